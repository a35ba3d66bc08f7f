/* Event buffer, spool and equalized flushes (seed 001, Okita, Ino, Hagihara: "Large-scale trace
 * generation ... with decreasing performance perturbation", figs. 3 and 5).
 *
 * Events go to an in-memory buffer. Flushes happen only right after a collective that every rank
 * takes part in (on MPI_COMM_WORLD or a communicator of the same size): the ranks agree (an
 * Allreduce OR of "my buffer is over S") whether to flush; if so every rank writes its buffer,
 * the clock offsets to rank 0 are measured again, rank 0 computes one suspension time
 * Z = w + m*log2(P) + d and every rank busy-waits until Z has passed since its own suspension
 * start, so every rank is delayed by the same Z and analysis can subtract it. The check itself is
 * an Allreduce, so it is not done after every collective: each check also agrees on how many such
 * collectives may pass before the next one could be needed.
 *
 * Environment:
 *   CAUSAL_LENS_TRACE_DIR        where the spool and the archive go (default ./causal-lens-trace)
 *   CAUSAL_LENS_FLUSH_THRESHOLD  S in bytes of buffered records (default 64 MiB)
 *   CAUSAL_LENS_MEMORY_BUDGET    buffer bytes after which a rank warns that it cannot flush (256 MiB)
 *   CAUSAL_LENS_FLUSH_MODE       "equalized" (default) or "independent": the ablation where each
 *                                rank flushes on its own as soon as its buffer is over S
 *   CAUSAL_LENS_PIN              1: pin each rank to a core (pin_to_core)
 *   CAUSAL_LENS_PRECONNECT       1 or 0: every pair of ranks exchanges a message in the start-up, or
 *                                not (default: when at most PRECONNECT_MAX_RANKS ranks; preconnect)
 */
#define _GNU_SOURCE
#include "recorder.h"
#include "otf2_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cl_active;

static struct {
  int rank, size;
  char dir[4096];
  int spool_fd;
  FILE *comm_file;
  cl_record *buf;
  size_t count, cap;
  size_t flush_records;   /* S, in records */
  size_t budget_records;
  int independent;
  int warned_budget;
  int preconnected;
  uint64_t written, dropped, suspensions;
  char truncated[256];
  MPI_Comm priv;          /* our own duplicate of MPI_COMM_WORLD: our messages never match the program's */
  uint64_t cpu0, start;
  int64_t offset_ns;      /* this rank's clock + offset = rank 0's clock */
  double mean_ns, max_err_ns;   /* m and d of the last offset measurement (rank 0) */
  int collectives_until_check;
  uint64_t records_at_check;
  int collectives_since_check;
  uint32_t next_comm, comm_serial;
  struct { MPI_Comm comm; uint32_t index; } *comms;
  size_t ncomms, comms_cap;
  pthread_mutex_t lock;
} S = { .spool_fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

uint64_t cl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t env_size(const char *name, size_t fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  char *end;
  unsigned long long n = strtoull(v, &end, 10);
  if (*end || n == 0) {
    fprintf(stderr, "causal-lens recorder: %s=\"%s\" is not a positive byte count; using %zu\n", name, v, fallback);
    return fallback;
  }
  return (size_t)n;
}

/* 1 or 0 from the environment, else `fallback`; another value is said once (by rank 0), with what
 * is done instead (`fallback_says`). */
static int env_switch(const char *name, int fallback, const char *fallback_says) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  if (strcmp(v, "1") == 0) return 1;
  if (strcmp(v, "0") == 0) return 0;
  if (S.rank == 0) fprintf(stderr, "causal-lens recorder: %s=\"%s\" is neither 1 nor 0; %s\n", name, v, fallback_says);
  return fallback;
}

/* Only MPI_THREAD_MULTIPLE lets several threads call MPI at once; otherwise the lock is skipped. */
int cl_threads_share_mpi;
void cl_lock(void) {
  if (cl_threads_share_mpi) pthread_mutex_lock(&S.lock);
}
void cl_unlock(void) {
  if (cl_threads_share_mpi) pthread_mutex_unlock(&S.lock);
}

static void mark_truncated(const char *reason) {
  if (!S.truncated[0]) snprintf(S.truncated, sizeof S.truncated, "%s", reason);
}

/* Appends the buffer to the spool. A failed write (full disk) keeps the program running: the
 * rank stops writing, counts what it drops, and the archive says it is truncated. */
static void write_spool(void) {
  const char *p = (const char *)S.buf;
  size_t left = S.count * sizeof(cl_record);
  while (S.spool_fd >= 0 && left > 0) {
    ssize_t n = write(S.spool_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      char reason[200];
      snprintf(reason, sizeof reason, "rank %d could not write its spool: %s", S.rank, strerror(n < 0 ? errno : EIO));
      mark_truncated(reason);
      close(S.spool_fd);
      S.spool_fd = -1;
      break;
    }
    p += n;
    left -= (size_t)n;
  }
  size_t whole = S.count - left / sizeof(cl_record);
  S.written += whole;
  S.dropped += S.count - whole;
  S.count = 0;
}

static void grow_buffer(void) {
  size_t cap = S.cap ? S.cap * 2 : 65536;
  cl_record *buf = realloc(S.buf, cap * sizeof(cl_record));
  if (!buf) {
    mark_truncated("out of memory for the event buffer");
    write_spool();
    return;
  }
  S.buf = buf;
  S.cap = cap;
}

static void suspend_independently(void);

static cl_record *event_at(enum cl_kind kind, uint64_t now) {
  if (S.independent && S.count >= S.flush_records) suspend_independently();
  if (S.count >= S.budget_records && !S.warned_budget) {
    S.warned_budget = 1;
    fprintf(stderr,
            "causal-lens recorder: rank %d holds %zu MiB of events, over the memory budget, and no collective of "
            "all ranks came to flush at; it keeps buffering until MPI_Finalize\n",
            S.rank, S.count * sizeof(cl_record) >> 20);
  }
  if (S.count == S.cap) grow_buffer();
  cl_record *r = &S.buf[S.count++];
  memset(r, 0, sizeof *r);
  r->time = now;
  r->kind = (uint8_t)kind;
  r->peer = CL_NO_RANK;
  return r;
}

cl_record *cl_event(enum cl_kind kind) { return event_at(kind, cl_now()); }

/* Reading the thread's CPU clock is a system call (about 0.2 us on this VM, where the perf mmap
 * page offers no user-space time), and MPI calls often come microseconds apart. Over an interval
 * shorter than SHORT_NS the thread cannot have lost the CPU for longer than the interval itself,
 * and a lost time slice lasts far longer, so its CPU time advances by the wall time instead of
 * being read; a real read anchors the value again at least every MAX_SPAN_NS. */
enum { SHORT_NS = 5000, MAX_SPAN_NS = 100000 };
static __thread uint64_t cpu_last, wall_last, span;

/* How long the real reads took, in READ_BUCKET_NS buckets (the last holds the longer ones): a
 * system call, so its time follows the kernel's speed, which on a VM changes from one run to the
 * next while user-space work does not (docs/pem.md, "The kernel's speed"). Only reads within
 * STEADY_NS of the thread's last event count: after a longer wait other work had the core and the
 * read pays for the caches it lost (1.0-1.4 us after the halo's millisecond waits, 0.6 us in a
 * relay, on one VM). The converter writes the median as causal_lens:clock_read_ns. */
enum { READ_BUCKET_NS = 10, READ_BUCKETS = 256, STEADY_NS = 50000 };
static __thread uint64_t read_took[READ_BUCKETS];

static uint64_t cpu_at(uint64_t now) {
  uint64_t gap = now - wall_last;
  uint64_t cpu;
  if (wall_last && gap < SHORT_NS && span + gap < MAX_SPAN_NS) {
    cpu = cpu_last + gap;
    span += gap;
  } else {
    cpu = thread_cpu();
    if (gap < STEADY_NS) {
      uint64_t took = (cl_now() - now) / READ_BUCKET_NS;
      read_took[took < READ_BUCKETS ? took : READ_BUCKETS - 1]++;
    }
    if (cpu < cpu_last) cpu = cpu_last;
    span = 0;
  }
  cpu_last = cpu;
  wall_last = now;
  return cpu;
}

void cl_enter(enum cl_region region) {
  uint64_t now = cl_now();
  uint64_t cpu = cpu_at(now);
  cl_record *r = event_at(CL_ENTER, now);
  r->region = (uint16_t)region;
  r->cpu = cpu - S.cpu0;
}

void cl_leave(enum cl_region region) {
  uint64_t now = cl_now();
  uint64_t cpu = cpu_at(now);
  cl_record *r = event_at(CL_LEAVE, now);
  r->region = (uint16_t)region;
  r->cpu = cpu - S.cpu0;
}

uint64_t cl_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
  return (uint64_t)(count < 0 ? 0 : count) * (uint64_t)(size < 0 ? 0 : size);
}

/* ---- communicators ---------------------------------------------------------------------- */

static uint32_t remember_comm(MPI_Comm comm, const char *key) {
  MPI_Group group, world_group;
  int n;
  PMPI_Comm_group(comm, &group);
  PMPI_Group_size(group, &n);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int *local = malloc(sizeof(int) * (size_t)n), *world = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) local[i] = i;
  PMPI_Group_translate_ranks(group, n, local, world_group, world);
  uint32_t index = S.next_comm++;
  if (S.comm_file) {
    fprintf(S.comm_file, "%s %d", key, n);
    for (int i = 0; i < n; i++) fprintf(S.comm_file, " %d", world[i]);
    fputc('\n', S.comm_file);
    fflush(S.comm_file);
  }
  free(local);
  free(world);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  if (S.ncomms == S.comms_cap) {
    S.comms_cap = S.comms_cap ? S.comms_cap * 2 : 16;
    S.comms = realloc(S.comms, S.comms_cap * sizeof *S.comms);
  }
  S.comms[S.ncomms].comm = comm;
  S.comms[S.ncomms].index = index;
  S.ncomms++;
  return index;
}

uint32_t cl_comm_index(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 0;
  for (size_t i = 0; i < S.ncomms; i++)
    if (S.comms[i].comm == comm) return S.comms[i].index;
  /* A communicator we did not see created (MPI_COMM_SELF, or made by a call we do not wrap):
   * its members are still known, but no other rank can match its key. */
  char key[64];
  snprintf(key, sizeof key, "local.%d.%u", S.rank, S.comm_serial++);
  return remember_comm(comm, key);
}

void cl_register_comm(MPI_Comm newcomm) {
  if (newcomm == MPI_COMM_NULL) return;
  int rank, inter = 0;
  PMPI_Comm_test_inter(newcomm, &inter);
  /* An inter-communicator's broadcast needs roots on both sides; it stays a per-rank communicator. */
  if (inter) {
    cl_comm_index(newcomm);
    return;
  }
  PMPI_Comm_rank(newcomm, &rank);
  int key[2] = { S.rank, (int)S.comm_serial };
  PMPI_Bcast(key, 2, MPI_INT, 0, newcomm);
  if (rank == 0) S.comm_serial++;
  char text[64];
  snprintf(text, sizeof text, "%d.%d", key[0], key[1]);
  remember_comm(newcomm, text);
}

void cl_forget_comm(MPI_Comm comm) {
  for (size_t i = 0; i < S.ncomms; i++)
    if (S.comms[i].comm == comm) {
      S.comms[i] = S.comms[--S.ncomms];
      return;
    }
}

/* ---- clocks and suspensions ------------------------------------------------------------- */

enum { OFFSET_ROUNDS = 3 };

/* Ping-pong of every rank with rank 0 (Fig. 6): the offset comes from the round trip with the
 * smallest time, as the midpoint of rank 0's send and receive. m is the mean one-way time, d the
 * largest deviation from it; both are only needed on rank 0. */
static void measure_clock_offsets(void) {
  double sum = 0, lo = 1e300, hi = 0;
  int n = 0;
  int64_t mine = 0;
  double mine_err = 0;
  uint64_t at = cl_now();
  if (S.rank == 0) {
    for (int peer = 1; peer < S.size; peer++) {
      int64_t best_offset = 0;
      uint64_t best_rtt = UINT64_MAX;
      for (int k = 0; k < OFFSET_ROUNDS; k++) {
        uint64_t u1 = cl_now(), u2;
        PMPI_Send(&u1, 1, MPI_UINT64_T, peer, 1, S.priv);
        PMPI_Recv(&u2, 1, MPI_UINT64_T, peer, 1, S.priv, MPI_STATUS_IGNORE);
        uint64_t u3 = cl_now(), rtt = u3 - u1;
        double one_way = (double)rtt / 2;
        sum += one_way;
        n++;
        if (one_way < lo) lo = one_way;
        if (one_way > hi) hi = one_way;
        if (rtt < best_rtt) {
          best_rtt = rtt;
          best_offset = (int64_t)(u1 + rtt / 2) - (int64_t)u2;
        }
      }
      int64_t reply[2] = { best_offset, (int64_t)(best_rtt / 2) };
      PMPI_Send(reply, 2, MPI_INT64_T, peer, 2, S.priv);
    }
    S.mean_ns = n ? sum / n : 0;
    S.max_err_ns = n ? fmax(hi - S.mean_ns, S.mean_ns - lo) : 0;
  } else {
    for (int k = 0; k < OFFSET_ROUNDS; k++) {
      uint64_t u1, u2;
      PMPI_Recv(&u1, 1, MPI_UINT64_T, 0, 1, S.priv, MPI_STATUS_IGNORE);
      u2 = cl_now();
      PMPI_Send(&u2, 1, MPI_UINT64_T, 0, 1, S.priv);
    }
    int64_t reply[2];
    PMPI_Recv(reply, 2, MPI_INT64_T, 0, 2, S.priv, MPI_STATUS_IGNORE);
    mine = reply[0];
    mine_err = (double)reply[1];
    at = cl_now();
  }
  S.offset_ns = mine;
  cl_record *r = cl_event(CL_CLOCK_OFFSET);
  r->time = at;
  r->bytes = (uint64_t)mine;
  r->request = (uint64_t)mine_err;
}

static void record_suspension(uint64_t start, uint64_t z) {
  cl_record *r = cl_event(CL_FLUSH);
  r->bytes = cl_now();
  r->time = start;
  r->request = z;
  S.suspensions++;
}

/* Fig. 5: Z from the earliest suspension start, in rank 0's clock. */
static uint64_t suspension_time(uint64_t start) {
  uint64_t global_start = start + (uint64_t)S.offset_ns, earliest = global_start;
  uint64_t *starts = S.rank == 0 ? malloc(sizeof(uint64_t) * (size_t)S.size) : NULL;
  PMPI_Gather(&global_start, 1, MPI_UINT64_T, starts, 1, MPI_UINT64_T, 0, S.priv);
  uint64_t z = 0;
  if (S.rank == 0) {
    for (int i = 0; i < S.size; i++)
      if (starts[i] < earliest) earliest = starts[i];
    free(starts);
    double w = (double)(cl_now() - earliest);
    z = (uint64_t)(w + S.mean_ns * log2((double)S.size) + S.max_err_ns);
  }
  PMPI_Bcast(&z, 1, MPI_UINT64_T, 0, S.priv);
  return z;
}

enum { MAX_COLLECTIVES_BETWEEN_CHECKS = 1024 };

/* How many more world collectives this rank can take before its buffer reaches S, at the
 * growth seen since the last check, with a safety factor of 2. */
static int collectives_left(void) {
  uint64_t grown = S.written + S.dropped + S.count - S.records_at_check;
  int since = S.collectives_since_check > 0 ? S.collectives_since_check : 1;
  double per = (double)grown / since;
  if (S.count >= S.flush_records) return 0;
  if (per <= 0) return MAX_COLLECTIVES_BETWEEN_CHECKS;
  double left = (double)(S.flush_records - S.count) / per / 2;
  return left >= MAX_COLLECTIVES_BETWEEN_CHECKS ? MAX_COLLECTIVES_BETWEEN_CHECKS : (int)left;
}

/* Every rank takes part in a collective on a communicator as large as MPI_COMM_WORLD (a Cartesian
 * grid, a duplicate), and safe programs call those in the same order on every rank. */
static int spans_world(MPI_Comm comm) {
  int size = 0, inter = 0;
  if (comm == MPI_COMM_WORLD) return 1;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  return !inter && size == S.size;
}

void cl_after_collective(MPI_Comm comm) {
  if (S.independent || !spans_world(comm)) return;
  S.collectives_since_check++;
  if (--S.collectives_until_check > 0) return;
  uint64_t start = cl_now();
  int over = S.count >= S.flush_records;
  int mine[2] = { over, -collectives_left() }, all[2];
  PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, S.priv);
  S.collectives_until_check = -all[1] < 1 ? 1 : -all[1];
  if (all[0]) {
    write_spool();
    measure_clock_offsets();
    uint64_t z = suspension_time(start);
    while (cl_now() - start < z) {
    }
    record_suspension(start, z);
  }
  S.records_at_check = S.written + S.dropped + S.count;
  S.collectives_since_check = 0;
}

/* The ablation: this rank alone stops, writes, and goes on; its suspension is its own write. */
static void suspend_independently(void) {
  uint64_t start = cl_now();
  write_spool();
  record_suspension(start, cl_now() - start);
}

/* ---- start and finish ------------------------------------------------------------------- */

static void cpu_set_text(char *out, size_t len) {
  cpu_set_t set;
  out[0] = 0;
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    snprintf(out, len, "unknown");
    return;
  }
  size_t used = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) last++;
    used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%d", used ? "," : "", c);
    if (last > c) used += (size_t)snprintf(out + used, used < len ? len - used : 0, "-%d", last);
    c = last;
  }
}

static void write_meta(int finished) {
  char path[4200];
  snprintf(path, sizeof path, "%s/spool/rank-%d.meta", S.dir, S.rank);
  FILE *f = fopen(path, "w");
  if (!f) return;
  char host[256] = "unknown", cpus[256];
  gethostname(host, sizeof host);
  host[sizeof host - 1] = 0;
  cpu_set_text(cpus, sizeof cpus);
  struct timespec real;
  clock_gettime(CLOCK_REALTIME, &real);
  fprintf(f, "rank %d\nsize %d\nhost %s\ncpu_set %s\npid %d\nstart_ns %llu\n", S.rank, S.size, host, cpus,
          (int)getpid(), (unsigned long long)S.start);
  fprintf(f, "realtime_ns %llu\nmode %s\nflush_threshold_bytes %zu\n",
          (unsigned long long)((uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec - (cl_now() - S.start)),
          S.independent ? "independent" : "equalized", S.flush_records * sizeof(cl_record));
  if (finished)
    fprintf(f, "finished 1\nend_ns %llu\nrecords %llu\ndropped %llu\nsuspensions %llu\n", (unsigned long long)cl_now(),
            (unsigned long long)S.written, (unsigned long long)S.dropped, (unsigned long long)S.suspensions);
  fprintf(f, "preconnected %d\n", S.preconnected);
  uint64_t reads = 0, seen = 0;
  for (int b = 0; b < READ_BUCKETS; b++) reads += read_took[b];
  for (int b = 0; b < READ_BUCKETS && reads; b++) {
    seen += read_took[b];
    if (2 * seen >= reads) {
      fprintf(f, "clock_read_ns %d %llu\n", b * READ_BUCKET_NS + READ_BUCKET_NS / 2, (unsigned long long)reads);
      break;
    }
  }
  if (S.truncated[0]) fprintf(f, "truncated %s\n", S.truncated);
  fclose(f);
}

static void make_dirs(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/spool", S.dir);
  mkdir(S.dir, 0777);
  if (mkdir(path, 0777) != 0 && errno != EEXIST)
    fprintf(stderr, "causal-lens recorder: cannot create %s: %s; nothing will be recorded\n", path, strerror(errno));
}

/* CAUSAL_LENS_PIN=1 pins each rank to one of the cores it may use, in blocks over the ranks of
 * its host (the k-th of n local ranks on the floor(k * c / n)-th of its c cores), as
 * validation/pem/pin-rank.sh does: ranks that outnumber their cores unpinned are moved between
 * them by Linux, which PEM does not replay (docs/pem.md, "The traced configuration"). */
static void pin_to_core(void) {
  MPI_Comm local;
  int local_rank, local_size;
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  PMPI_Comm_rank(local, &local_rank);
  PMPI_Comm_size(local, &local_size);
  PMPI_Comm_free(&local);
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  int cores[CPU_SETSIZE], count = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &allowed)) cores[count++] = c;
  if (count < 2) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cores[(int)((long long)local_rank * count / local_size)], &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    fprintf(stderr, "causal-lens recorder: rank %d: cannot pin to a core: %s\n", S.rank, strerror(errno));
}

/* Open MPI's TCP transport opens a pair's connection at its first message: 5-10 ms on the
 * emulated networks here, and the recorder's own start-up opens some pairs (its clock ping-pongs,
 * its barriers'), so a trace would pay for some of the program's connections and not others, in
 * a way no replay can tell (docs/pem.md, "Connections opened before the trace"). Every pair
 * exchanges an empty message before the trace starts instead: none is opened inside it. It costs
 * a message per pair, so only small jobs do it unless asked. */
#define PRECONNECT_MAX_RANKS 64

static void preconnect(void) {
  int small = S.size <= PRECONNECT_MAX_RANKS;
  char fallback_says[96];
  snprintf(fallback_says, sizeof fallback_says, "%s (%d ranks, limit %d)", small ? "preconnecting" : "not preconnecting", S.size,
           PRECONNECT_MAX_RANKS);
  if (!env_switch("CAUSAL_LENS_PRECONNECT", small, fallback_says)) return;
  /* Round d: each rank sends to the d-th rank after it and hears from the d-th before it. */
  for (int d = 1; d < S.size; d++)
    PMPI_Sendrecv(NULL, 0, MPI_BYTE, (S.rank + d) % S.size, 3, NULL, 0, MPI_BYTE, (S.rank - d + S.size) % S.size, 3,
                  S.priv, MPI_STATUS_IGNORE);
  S.preconnected = 1;
}

void cl_start(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &S.size);
  if (env_switch("CAUSAL_LENS_PIN", 0, "the ranks are not pinned")) pin_to_core();
  PMPI_Comm_dup(MPI_COMM_WORLD, &S.priv);
  const char *dir = getenv("CAUSAL_LENS_TRACE_DIR");
  snprintf(S.dir, sizeof S.dir, "%s", dir && *dir ? dir : "causal-lens-trace");
  S.flush_records = env_size("CAUSAL_LENS_FLUSH_THRESHOLD", 64u << 20) / sizeof(cl_record);
  if (S.flush_records == 0) S.flush_records = 1;
  S.budget_records = env_size("CAUSAL_LENS_MEMORY_BUDGET", 256u << 20) / sizeof(cl_record);
  const char *mode = getenv("CAUSAL_LENS_FLUSH_MODE");
  S.independent = mode && strcmp(mode, "independent") == 0;
  if (mode && *mode && !S.independent && strcmp(mode, "equalized") != 0 && S.rank == 0)
    fprintf(stderr, "causal-lens recorder: CAUSAL_LENS_FLUSH_MODE=\"%s\" is neither equalized nor independent; using equalized\n", mode);
  if (S.rank == 0) make_dirs();
  PMPI_Barrier(S.priv);
  make_dirs();
  char path[4200];
  snprintf(path, sizeof path, "%s/spool/rank-%d.evt", S.dir, S.rank);
  S.spool_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (S.spool_fd < 0) mark_truncated("could not create the spool file");
  snprintf(path, sizeof path, "%s/spool/rank-%d.comm", S.dir, S.rank);
  S.comm_file = fopen(path, "w");
  if (S.comm_file) {
    fprintf(S.comm_file, "world %d", S.size);
    for (int i = 0; i < S.size; i++) fprintf(S.comm_file, " %d", i);
    fputc('\n', S.comm_file);
    fflush(S.comm_file);
  } else {
    mark_truncated("could not create the communicator file");
  }
  S.next_comm = 1;
  S.collectives_until_check = 1;
  /* The event buffer's pages are touched now, in the start-up: a first touch during the run is a
   * page fault (about 1 µs on this VM) every 85 records, which a latency-bound trace showed as
   * 0.03–0.05 µs more tracer work per call on average than its shortest gaps. */
  grow_buffer();
  if (S.buf) memset(S.buf, 0, S.cap * sizeof(cl_record));
  preconnect();
  S.cpu0 = thread_cpu();
  S.start = cl_now();
  measure_clock_offsets();
  write_meta(0);
  /* Every rank leaves the start-up together, as MPI_Init itself ends: rank 0 measures the clock
   * offsets one rank after another, and a rank done early would start computing while the others
   * wait for their turn (first events up to 47 ms apart in a 200 ms run with 4 ranks on a core). */
  PMPI_Barrier(S.priv);
  cl_active = 1;
}

void cl_finish(void) {
  PMPI_Barrier(S.priv);
  cl_leave(CL_REGION_FINALIZE);
  cl_active = 0;
  write_spool();
  write_meta(1);
  if (S.comm_file) fclose(S.comm_file);
  if (S.spool_fd >= 0) close(S.spool_fd);
  S.spool_fd = -1;
  free(S.buf);
  S.buf = NULL;
  PMPI_Barrier(S.priv);
  PMPI_Comm_free(&S.priv);
}

int cl_is_rank0(void) { return S.rank == 0; }
const char *cl_dir(void) { return S.dir; }
