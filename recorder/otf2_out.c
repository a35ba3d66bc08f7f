/* The spool (rawlog.h) to OTF2, written with libotf2 (OTF2 3.0 reference, "OTF2 writing API";
 * https://perftools.pages.jsc.fz-juelich.de/cicd/otf2/ and the Debian libotf2-trace-dev headers).
 * The records and definitions written are the contract in recorder/README.md.
 *
 * One process writes every location (serial collective callbacks), so the same code serves the
 * end of a normal run (rank 0, after PMPI_Finalize) and the converter for a run that died
 * (convert.c). A spool cut short or damaged is read up to what is whole: bad records are skipped
 * and counted, each kind reported once with its file and byte offset, and the archive says it is
 * truncated. */
#define _GNU_SOURCE
#include "otf2_out.h"

#include <otf2/otf2.h>
#include <dirent.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rawlog.h"

typedef struct {
  char *key;
  uint32_t size;
  uint64_t *members;
} comm_def;

typedef struct {
  int present, finished;
  int rank;
  int preconnected; /* every pair of ranks exchanged a message before the trace (recorder.c, preconnect) */
  uint64_t clock_read_ns, clock_reads; /* the median real read of the thread's CPU clock, and how many (recorder.c, read_took) */
  uint64_t start, end, realtime;
  char host[256], cpu_set[256], truncated[256];
  uint32_t *comm_ids; /* local comm index -> global comm id */
  uint32_t ncomm;
  uint64_t events;
  /* Receives posted with MPI_ANY_SOURCE: a reader knows a rank deals by them without reading its events. */
  uint64_t any_source_receives;
  /* Per region, the smallest CPU time of one call over the whole run (0: none measured): a
   * reader gets it without reading every event first. */
  uint64_t smallest_call_cpu[CL_REGION_COUNT];
  char smallest_text[CL_REGION_COUNT * 48];
} rank_info;

typedef struct {
  char **items;
  uint32_t count, cap;
} strings;

static uint32_t string_ref(strings *s, const char *text) {
  for (uint32_t i = 0; i < s->count; i++)
    if (strcmp(s->items[i], text) == 0) return i;
  if (s->count == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->items = realloc(s->items, sizeof(char *) * s->cap);
  }
  s->items[s->count] = strdup(text);
  return s->count++;
}

static void append_reason(char *reason, size_t len, const char *text) {
  size_t used = strlen(reason);
  if (used + 3 >= len) return;
  snprintf(reason + used, len - used, "%s%s", used ? "; " : "", text);
}

static void read_meta(const char *dir, int rank, rank_info *info) {
  char path[4200], line[600];
  snprintf(path, sizeof path, "%s/spool/rank-%d.meta", dir, rank);
  FILE *f = fopen(path, "r");
  if (!f) return;
  info->present = 1;
  info->rank = rank;
  snprintf(info->host, sizeof info->host, "unknown");
  snprintf(info->cpu_set, sizeof info->cpu_set, "unknown");
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *value = strchr(line, ' ');
    if (!value) continue;
    *value++ = 0;
    if (!strcmp(line, "host")) snprintf(info->host, sizeof info->host, "%s", value);
    else if (!strcmp(line, "cpu_set")) snprintf(info->cpu_set, sizeof info->cpu_set, "%s", value);
    else if (!strcmp(line, "start_ns")) info->start = strtoull(value, NULL, 10);
    else if (!strcmp(line, "end_ns")) info->end = strtoull(value, NULL, 10);
    else if (!strcmp(line, "realtime_ns")) info->realtime = strtoull(value, NULL, 10);
    else if (!strcmp(line, "finished")) info->finished = 1;
    else if (!strcmp(line, "preconnected")) info->preconnected = atoi(value) == 1;
    else if (!strcmp(line, "clock_read_ns")) sscanf(value, "%" SCNu64 " %" SCNu64, &info->clock_read_ns, &info->clock_reads);
    else if (!strcmp(line, "truncated")) snprintf(info->truncated, sizeof info->truncated, "%s", value);
  }
  fclose(f);
}

static int highest_rank(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/spool", dir);
  DIR *d = opendir(path);
  if (!d) return -1;
  int high = -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    int r;
    char tail[16];
    if (sscanf(e->d_name, "rank-%d.%15s", &r, tail) == 2 && !strcmp(tail, "meta") && r > high) high = r;
  }
  closedir(d);
  return high;
}

static uint32_t find_comm(comm_def **defs, uint32_t *ndefs, const char *key, uint32_t size, const uint64_t *members) {
  for (uint32_t i = 0; i < *ndefs; i++)
    if (!strcmp((*defs)[i].key, key)) return i;
  *defs = realloc(*defs, sizeof(comm_def) * (*ndefs + 1));
  comm_def *c = &(*defs)[*ndefs];
  c->key = strdup(key);
  c->size = size;
  c->members = malloc(sizeof(uint64_t) * (size ? size : 1));
  memcpy(c->members, members, sizeof(uint64_t) * size);
  return (*ndefs)++;
}

static void read_comms(const char *dir, rank_info *info, comm_def **defs, uint32_t *ndefs, uint32_t nranks) {
  char path[4200];
  snprintf(path, sizeof path, "%s/spool/rank-%d.comm", dir, info->rank);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "causal-lens-otf2: %s: missing; this rank's messages are kept only on MPI_COMM_WORLD\n", path);
  }
  uint64_t *members = malloc(sizeof(uint64_t) * (nranks ? nranks : 1));
  char key[128];
  unsigned size;
  long line = 0;
  while (f && fscanf(f, "%127s %u", key, &size) == 2) {
    line++;
    int ok = size <= nranks;
    for (unsigned i = 0; ok && i < size; i++) {
      unsigned long long m;
      if (fscanf(f, "%llu", &m) != 1 || m >= nranks) ok = 0;
      else members[i] = m;
    }
    if (!ok) {
      fprintf(stderr, "causal-lens-otf2: %s: line %ld: bad communicator definition; the rest of the file is ignored\n",
              path, line);
      break;
    }
    info->comm_ids = realloc(info->comm_ids, sizeof(uint32_t) * (info->ncomm + 1));
    info->comm_ids[info->ncomm++] = find_comm(defs, ndefs, key, size, members);
  }
  if (info->ncomm == 0) {
    for (uint32_t i = 0; i < nranks; i++) members[i] = i;
    info->comm_ids = malloc(sizeof(uint32_t));
    info->comm_ids[info->ncomm++] = find_comm(defs, ndefs, "world", nranks, members);
  }
  free(members);
  if (f) fclose(f);
}

enum skip_reason { SKIP_KIND, SKIP_REGION, SKIP_COMM, SKIP_TIME, SKIP_REASONS };

/* The attributes the archive defines. */
enum { Z_NS_ATTRIBUTE, WILDCARDS_ATTRIBUTE };
static const char *const skip_text[SKIP_REASONS] = { "unknown record kind", "unknown region", "unknown communicator",
                                                     "time going backwards" };

typedef struct {
  OTF2_EvtWriter *evt;
  OTF2_DefWriter *def;
  OTF2_AttributeList *attrs;
  rank_info *info;
  uint64_t last_time;
  uint64_t skipped[SKIP_REASONS];
  uint64_t min_time, max_time;
  /* The call being converted: its region and CPU time at its Enter. */
  uint32_t call_region;
  uint64_t call_cpu;
} location_writer;

static uint32_t to_u32(int32_t v) { return v < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)v; }

static void cpu_metric(location_writer *w, const cl_record *r) {
  OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue value;
  value.unsigned_int = r->cpu;
  OTF2_EvtWriter_Metric(w->evt, NULL, r->time, 0, 1, &type, &value);
  w->info->events++;
}

/* The attribute list of a receive posted with wildcards (WILDCARDS_ATTRIBUTE), or none. */
static OTF2_AttributeList *wildcards(location_writer *w, const cl_record *r) {
  if (!r->op) return NULL;
  if (r->op & CL_ANY_SOURCE) w->info->any_source_receives++;
  OTF2_AttributeValue v;
  v.uint8 = r->op;
  OTF2_AttributeList_AddAttribute(w->attrs, WILDCARDS_ATTRIBUTE, OTF2_TYPE_UINT8, v);
  return w->attrs;
}

/* Returns the reason the record was skipped, or -1 when it was written. */
static int write_record(location_writer *w, const cl_record *r) {
  if (r->kind < CL_ENTER || r->kind > CL_CLOCK_OFFSET) return SKIP_KIND;
  if (r->kind == CL_CLOCK_OFFSET) {
    OTF2_DefWriter_WriteClockOffset(w->def, r->time, (int64_t)r->bytes, (double)r->request);
    return -1;
  }
  if (r->time < w->last_time) return SKIP_TIME;
  uint32_t comm = 0;
  switch (r->kind) {
  case CL_SEND: case CL_ISEND: case CL_RECV: case CL_IRECV: case CL_COLL_END:
    if (r->comm >= w->info->ncomm) return SKIP_COMM;
    comm = w->info->comm_ids[r->comm];
    break;
  case CL_ENTER: case CL_LEAVE:
    if (r->region >= CL_REGION_COUNT) return SKIP_REGION;
    break;
  }
  w->last_time = r->time;
  OTF2_EvtWriter *e = w->evt;
  switch (r->kind) {
  case CL_ENTER:
    cpu_metric(w, r);
    OTF2_EvtWriter_Enter(e, NULL, r->time, r->region);
    w->call_region = r->region;
    w->call_cpu = r->cpu;
    break;
  case CL_LEAVE:
    cpu_metric(w, r);
    OTF2_EvtWriter_Leave(e, NULL, r->time, r->region);
    /* A call whose CPU clock did not advance says nothing of its work (the reader's rule too). */
    if (r->region == w->call_region && r->cpu > w->call_cpu) {
      uint64_t *smallest = &w->info->smallest_call_cpu[r->region];
      if (!*smallest || r->cpu - w->call_cpu < *smallest) *smallest = r->cpu - w->call_cpu;
    }
    w->call_region = CL_REGION_COUNT;
    break;
  case CL_SEND: OTF2_EvtWriter_MpiSend(e, NULL, r->time, to_u32(r->peer), comm, (uint32_t)r->tag, r->bytes); break;
  case CL_ISEND:
    OTF2_EvtWriter_MpiIsend(e, NULL, r->time, to_u32(r->peer), comm, (uint32_t)r->tag, r->bytes, r->request);
    break;
  case CL_ISEND_COMPLETE: OTF2_EvtWriter_MpiIsendComplete(e, NULL, r->time, r->request); break;
  case CL_RECV:
    OTF2_EvtWriter_MpiRecv(e, wildcards(w, r), r->time, to_u32(r->peer), comm, (uint32_t)r->tag, r->bytes);
    break;
  case CL_IRECV_REQUEST: OTF2_EvtWriter_MpiIrecvRequest(e, NULL, r->time, r->request); break;
  case CL_IRECV:
    OTF2_EvtWriter_MpiIrecv(e, wildcards(w, r), r->time, to_u32(r->peer), comm, (uint32_t)r->tag, r->bytes,
                            r->request);
    break;
  case CL_REQUEST_TEST: OTF2_EvtWriter_MpiRequestTest(e, NULL, r->time, r->request); break;
  case CL_COLL_BEGIN: OTF2_EvtWriter_MpiCollectiveBegin(e, NULL, r->time); break;
  case CL_COLL_END:
    OTF2_EvtWriter_MpiCollectiveEnd(e, NULL, r->time, (OTF2_CollectiveOp)r->op, comm, to_u32(r->peer), r->bytes,
                                    r->request);
    break;
  case CL_FLUSH: {
    OTF2_AttributeValue z;
    z.uint64 = r->request;
    OTF2_AttributeList_AddAttribute(w->attrs, Z_NS_ATTRIBUTE, OTF2_TYPE_UINT64, z);
    OTF2_EvtWriter_BufferFlush(e, w->attrs, r->time, r->bytes);
    if (r->bytes > r->time) w->last_time = r->bytes;
    break;
  }
  }
  w->info->events++;
  if (r->time < w->min_time) w->min_time = r->time;
  if (w->last_time > w->max_time) w->max_time = w->last_time;
  return -1;
}

/* Returns 1 when the spool had damage (the archive is then truncated). */
static int write_location(const char *dir, location_writer *w, char *reason, size_t reason_len) {
  char path[4200];
  snprintf(path, sizeof path, "%s/spool/rank-%d.evt", dir, w->info->rank);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "causal-lens-otf2: %s: cannot open; rank %d has no events\n", path, w->info->rank);
    return 1;
  }
  enum { BATCH = 4096 };
  cl_record *batch = malloc(sizeof(cl_record) * BATCH);
  uint64_t offset = 0, first_bad[SKIP_REASONS];
  size_t n, partial = 0;
  char tail[sizeof(cl_record)];
  while ((n = fread(batch, 1, sizeof(cl_record) * BATCH, f)) > 0) {
    size_t whole = n / sizeof(cl_record);
    for (size_t i = 0; i < whole; i++) {
      int skip = write_record(w, &batch[i]);
      if (skip >= 0 && w->skipped[skip]++ == 0) first_bad[skip] = offset;
      offset += sizeof(cl_record);
    }
    partial = n % sizeof(cl_record);
    if (partial) {
      memcpy(tail, (char *)batch + whole * sizeof(cl_record), partial);
      size_t more = fread(tail + partial, 1, sizeof(cl_record) - partial, f);
      if (partial + more == sizeof(cl_record)) {
        cl_record r;
        memcpy(&r, tail, sizeof r);
        int skip = write_record(w, &r);
        if (skip >= 0 && w->skipped[skip]++ == 0) first_bad[skip] = offset;
        offset += sizeof(cl_record);
        partial = 0;
      } else {
        partial += more;
      }
    }
  }
  free(batch);
  fclose(f);
  int damaged = 0;
  char text[300];
  for (int s = 0; s < SKIP_REASONS; s++) {
    if (!w->skipped[s]) continue;
    damaged = 1;
    fprintf(stderr, "causal-lens-otf2: %s: offset %" PRIu64 ": %s; %" PRIu64 " record(s) skipped\n", path,
            first_bad[s], skip_text[s], w->skipped[s]);
    snprintf(text, sizeof text, "rank %d: %" PRIu64 " record(s) skipped (%s)", w->info->rank, w->skipped[s],
             skip_text[s]);
    append_reason(reason, reason_len, text);
  }
  if (partial) {
    damaged = 1;
    fprintf(stderr, "causal-lens-otf2: %s: offset %" PRIu64 ": partial record of %zu bytes at the end, skipped\n", path,
            offset, partial);
    snprintf(text, sizeof text, "rank %d: spool cut in the middle of a record", w->info->rank);
    append_reason(reason, reason_len, text);
  }
  return damaged;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location, void *caller, bool final) {
  (void)user, (void)type, (void)location, (void)caller, (void)final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location) {
  (void)user, (void)type, (void)location;
  return OTF2_UNDEFINED_TIMESTAMP;
}

static void write_string_property(OTF2_GlobalDefWriter *g, strings *s, uint32_t location, const char *name,
                                  const char *value) {
  OTF2_AttributeValue v;
  v.stringRef = string_ref(s, value);
  OTF2_GlobalDefWriter_WriteLocationProperty(g, location, string_ref(s, name), OTF2_TYPE_STRING, v);
}

static void write_definitions(OTF2_GlobalDefWriter *g, rank_info *ranks, uint32_t nranks, comm_def *comms,
                              uint32_t ncomms, uint64_t offset, uint64_t length, uint64_t realtime, const char *truncated) {
  strings s = { 0 };
  /* OTF2 wants every string defined before a definition refers to it: collect them all first. */
  uint32_t machine = string_ref(&s, "machine"), node_class = string_ref(&s, "node"), empty = string_ref(&s, "");
  uint32_t *host_node = calloc(nranks ? nranks : 1, sizeof(uint32_t));
  char **hosts = calloc(nranks ? nranks : 1, sizeof(char *));
  uint32_t nhosts = 0;
  for (uint32_t r = 0; r < nranks; r++) {
    uint32_t h = 0;
    while (h < nhosts && strcmp(hosts[h], ranks[r].host)) h++;
    if (h == nhosts) hosts[nhosts++] = ranks[r].host;
    host_node[r] = h + 1;
    string_ref(&s, ranks[r].host);
  }
  char name[300];
  static const char *const region_names[] = {
#define CL_REGION_TEXT(id, text, role) text,
    CL_REGIONS(CL_REGION_TEXT)
#undef CL_REGION_TEXT
  };
  for (uint32_t r = 0; r < nranks; r++) {
    snprintf(name, sizeof name, "MPI Rank %u", r);
    string_ref(&s, name);
    string_ref(&s, ranks[r].cpu_set);
    /* "MPI_Send=66,MPI_Recv=28": nanoseconds by region name. */
    size_t used = 0;
    ranks[r].smallest_text[0] = 0;
    for (int g = 0; g < CL_REGION_COUNT; g++) {
      if (!ranks[r].smallest_call_cpu[g]) continue;
      used += (size_t)snprintf(ranks[r].smallest_text + used, sizeof ranks[r].smallest_text - used, "%s%s=%" PRIu64,
                               used ? "," : "", region_names[g], ranks[r].smallest_call_cpu[g]);
    }
    string_ref(&s, ranks[r].smallest_text);
  }
  string_ref(&s, "Master thread");
#define CL_REGION_NAME(id, text, role) string_ref(&s, text);
  CL_REGIONS(CL_REGION_NAME)
#undef CL_REGION_NAME
  for (uint32_t c = 0; c < ncomms; c++) {
    snprintf(name, sizeof name, "%s", !strcmp(comms[c].key, "world") ? "MPI_COMM_WORLD" : comms[c].key);
    string_ref(&s, name);
  }
  const char *fixed[] = { "MPI", "CPU_TIME", "thread CPU time since MPI_Init", "ns", "causal_lens:z_ns",
                          "suspension time Z of an equalized flush", "causal_lens:cpu_set", "causal_lens:rank",
                          "causal_lens:truncated", "causal_lens:truncated_reason", "true", "false", "causal_lens:wildcards",
                          "the receive was posted with MPI_ANY_SOURCE (1), MPI_ANY_TAG (2)", "causal_lens:any_source_receives",
                          "causal_lens:smallest_call_cpu_ns", "causal_lens:preconnected", "causal_lens:clock_read_ns",
                          "causal_lens:clock_reads", truncated };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) string_ref(&s, fixed[i]);

  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, offset, length, realtime);
  for (uint32_t i = 0; i < s.count; i++) OTF2_GlobalDefWriter_WriteString(g, i, s.items[i]);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (uint32_t h = 0; h < nhosts; h++)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, h + 1, string_ref(&s, hosts[h]), node_class, 0);
  for (uint32_t r = 0; r < nranks; r++) {
    snprintf(name, sizeof name, "MPI Rank %u", r);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, r, string_ref(&s, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, host_node[r],
                                            OTF2_UNDEFINED_LOCATION_GROUP);
  }
  for (uint32_t r = 0; r < nranks; r++) {
    OTF2_GlobalDefWriter_WriteLocation(g, r, string_ref(&s, "Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD,
                                       ranks[r].events, r);
    write_string_property(g, &s, r, "causal_lens:cpu_set", ranks[r].cpu_set);
    OTF2_AttributeValue v;
    v.uint32 = r;
    OTF2_GlobalDefWriter_WriteLocationProperty(g, r, string_ref(&s, "causal_lens:rank"), OTF2_TYPE_UINT32, v);
    write_string_property(g, &s, r, "causal_lens:truncated", truncated[0] ? "true" : "false");
    write_string_property(g, &s, r, "causal_lens:preconnected", ranks[r].preconnected ? "true" : "false");
    if (truncated[0]) write_string_property(g, &s, r, "causal_lens:truncated_reason", truncated);
    if (ranks[r].smallest_text[0]) write_string_property(g, &s, r, "causal_lens:smallest_call_cpu_ns", ranks[r].smallest_text);
    if (ranks[r].clock_reads > 0) {
      v.uint64 = ranks[r].clock_read_ns;
      OTF2_GlobalDefWriter_WriteLocationProperty(g, r, string_ref(&s, "causal_lens:clock_read_ns"), OTF2_TYPE_UINT64, v);
      v.uint64 = ranks[r].clock_reads;
      OTF2_GlobalDefWriter_WriteLocationProperty(g, r, string_ref(&s, "causal_lens:clock_reads"), OTF2_TYPE_UINT64, v);
    }
    if (ranks[r].any_source_receives > 0) {
      v.uint64 = ranks[r].any_source_receives;
      OTF2_GlobalDefWriter_WriteLocationProperty(g, r, string_ref(&s, "causal_lens:any_source_receives"), OTF2_TYPE_UINT64, v);
    }
  }
  uint32_t region = 0;
#define CL_REGION_DEF(id, text, role)                                                                        \
  OTF2_GlobalDefWriter_WriteRegion(g, region++, string_ref(&s, text), string_ref(&s, text), empty, role,     \
                                   OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
  CL_REGIONS(CL_REGION_DEF)
#undef CL_REGION_DEF
  uint64_t *all = malloc(sizeof(uint64_t) * (nranks ? nranks : 1));
  for (uint32_t r = 0; r < nranks; r++) all[r] = r;
  OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  nranks, all);
  free(all);
  for (uint32_t c = 0; c < ncomms; c++) {
    snprintf(name, sizeof name, "%s", !strcmp(comms[c].key, "world") ? "MPI_COMM_WORLD" : comms[c].key);
    OTF2_GlobalDefWriter_WriteGroup(g, c + 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, comms[c].size, comms[c].members);
    OTF2_GlobalDefWriter_WriteComm(g, c, string_ref(&s, name), c + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_MetricMemberRef member = 0;
  OTF2_GlobalDefWriter_WriteMetricMember(g, 0, string_ref(&s, "CPU_TIME"), string_ref(&s, "thread CPU time since MPI_Init"),
                                         OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                         OTF2_BASE_DECIMAL, 0, string_ref(&s, "ns"));
  OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
  OTF2_GlobalDefWriter_WriteAttribute(g, Z_NS_ATTRIBUTE, string_ref(&s, "causal_lens:z_ns"),
                                      string_ref(&s, "suspension time Z of an equalized flush"), OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(g, WILDCARDS_ATTRIBUTE, string_ref(&s, "causal_lens:wildcards"),
                                      string_ref(&s, "the receive was posted with MPI_ANY_SOURCE (1), MPI_ANY_TAG (2)"),
                                      OTF2_TYPE_UINT8);
  for (uint32_t i = 0; i < s.count; i++) free(s.items[i]);
  free(s.items);
  free(hosts);
  free(host_node);
}

/* OTF2 refuses to create an archive over an existing one: a trace directory reused for a new
 * run (or a converter run again) replaces its archive. */
static void remove_old_archive(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/traces", dir);
  DIR *d = opendir(path);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char file[4500];
    snprintf(file, sizeof file, "%s/%s", path, e->d_name);
    unlink(file);
  }
  if (d) closedir(d);
  rmdir(path);
  snprintf(path, sizeof path, "%s/traces.otf2", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/traces.def", dir);
  unlink(path);
}

int cl_write_archive(const char *dir, const char *external_reason, FILE *summary) {
  int high = highest_rank(dir);
  if (high < 0) {
    fprintf(stderr, "causal-lens-otf2: %s/spool: no rank-<n>.meta file; no trace was recorded there\n", dir);
    return 1;
  }
  uint32_t nranks = (uint32_t)high + 1;
  rank_info *ranks = calloc(nranks, sizeof(rank_info));
  char reason[2048] = "", text[600], unfinished[400] = "";
  if (external_reason && *external_reason) append_reason(reason, sizeof reason, external_reason);
  comm_def *comms = NULL;
  uint32_t ncomms = 0;
  uint64_t offset = UINT64_MAX, end = 0, realtime = 0;
  for (uint32_t r = 0; r < nranks; r++) {
    read_meta(dir, (int)r, &ranks[r]);
    ranks[r].rank = (int)r;
    if (!ranks[r].present) {
      snprintf(ranks[r].host, sizeof ranks[r].host, "unknown");
      snprintf(ranks[r].cpu_set, sizeof ranks[r].cpu_set, "unknown");
      snprintf(text, sizeof text, "rank %u left no metadata", r);
      append_reason(reason, sizeof reason, text);
    } else if (!ranks[r].finished) {
      size_t used = strlen(unfinished);
      snprintf(unfinished + used, sizeof unfinished - used, "%s%u", used ? ", " : "", r);
    }
    if (ranks[r].truncated[0]) append_reason(reason, sizeof reason, ranks[r].truncated);
    if (ranks[r].present && ranks[r].start < offset) offset = ranks[r].start;
    if (r == 0) realtime = ranks[r].realtime;
    read_comms(dir, &ranks[r], &comms, &ncomms, nranks);
  }
  if (unfinished[0]) {
    snprintf(text, sizeof text, "rank(s) %s did not reach MPI_Finalize: their events after their last flush are lost",
             unfinished);
    append_reason(reason, sizeof reason, text);
  }
  if (offset == UINT64_MAX) offset = 0;

  remove_old_archive(dir);
  OTF2_Archive *archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive) {
    fprintf(stderr, "causal-lens-otf2: %s: cannot create the OTF2 archive there\n", dir);
    return 1;
  }
  OTF2_FlushCallbacks flush = { pre_flush, post_flush };
  OTF2_Archive_SetFlushCallbacks(archive, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "causal-lens recorder");
  OTF2_Archive_OpenEvtFiles(archive);
  OTF2_Archive_OpenDefFiles(archive);
  uint64_t total = 0;
  for (uint32_t r = 0; r < nranks; r++) {
    location_writer w = { 0 };
    w.info = &ranks[r];
    w.min_time = UINT64_MAX;
    w.call_region = CL_REGION_COUNT;
    w.evt = OTF2_Archive_GetEvtWriter(archive, r);
    w.def = OTF2_Archive_GetDefWriter(archive, r);
    w.attrs = OTF2_AttributeList_New();
    if (ranks[r].present) write_location(dir, &w, reason, sizeof reason);
    if (w.max_time > end) end = w.max_time;
    if (ranks[r].end > end) end = ranks[r].end;
    total += ranks[r].events;
    OTF2_AttributeList_Delete(w.attrs);
    OTF2_Archive_CloseEvtWriter(archive, w.evt);
    OTF2_Archive_CloseDefWriter(archive, w.def);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  OTF2_Archive_CloseDefFiles(archive);

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  write_definitions(g, ranks, nranks, comms, ncomms, offset, end > offset ? end - offset : 0, realtime, reason);
  OTF2_Archive_SetProperty(archive, "CAUSAL_LENS::TRUNCATED", reason[0] ? "true" : "false", true);
  if (reason[0]) OTF2_Archive_SetProperty(archive, "CAUSAL_LENS::TRUNCATED_REASON", reason, true);
  OTF2_ErrorCode closed = OTF2_Archive_Close(archive);
  if (closed != OTF2_SUCCESS)
    fprintf(stderr, "causal-lens-otf2: %s: closing the archive failed: %s\n", dir, OTF2_Error_GetName(closed));
  if (summary) {
    fprintf(summary, "archive %s/traces.otf2\nranks %u\nevents %" PRIu64 "\ntruncated %s\n", dir, nranks, total,
            reason[0] ? "true" : "false");
    if (reason[0]) fprintf(summary, "reason %s\n", reason);
  }
  for (uint32_t c = 0; c < ncomms; c++) free(comms[c].key), free(comms[c].members);
  free(comms);
  for (uint32_t r = 0; r < nranks; r++) free(ranks[r].comm_ids);
  free(ranks);
  return closed == OTF2_SUCCESS ? 0 : 1;
}
