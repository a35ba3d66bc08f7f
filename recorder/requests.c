/* Nonblocking requests: the recorder needs, at completion, what was posted (peer, tag, size
 * of a send; the request id) and, for a receive, what actually arrived (the status). MPI reuses
 * request handles once they complete, so the table is keyed by handle and an entry leaves it
 * when its request completes. */
#include "recorder.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  MPI_Request handle;
  uint64_t id;
  uint64_t bytes;
  int peer, tag;
  uint32_t comm;
  int is_recv;
  int used;
} entry;

static entry *table;
static size_t cap, used;
static uint64_t next_id = 1;

static size_t slot_of(MPI_Request handle) {
  uint64_t key = 0;
  memcpy(&key, &handle, sizeof handle < sizeof key ? sizeof handle : sizeof key);
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

static entry *find(MPI_Request handle) {
  if (!cap) return NULL;
  for (size_t i = slot_of(handle);; i = (i + 1) & (cap - 1)) {
    if (!table[i].used) return NULL;
    if (table[i].handle == handle) return &table[i];
  }
}

static void insert(const entry *e) {
  for (size_t i = slot_of(e->handle);; i = (i + 1) & (cap - 1))
    if (!table[i].used || table[i].handle == e->handle) {
      if (!table[i].used) used++;
      table[i] = *e;
      return;
    }
}

static void grow(void) {
  entry *old = table;
  size_t old_cap = cap;
  cap = cap ? cap * 2 : 1024;
  table = calloc(cap, sizeof *table);
  used = 0;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].used) insert(&old[i]);
  free(old);
}

/* Removal in linear probing: re-insert the rest of the cluster so lookups still reach it. */
static void remove_entry(entry *e) {
  size_t i = (size_t)(e - table);
  table[i].used = 0;
  used--;
  for (size_t j = (i + 1) & (cap - 1); table[j].used; j = (j + 1) & (cap - 1)) {
    entry moved = table[j];
    table[j].used = 0;
    used--;
    insert(&moved);
  }
}

void cl_request_posted(MPI_Request request, int is_recv, int peer, uint32_t comm, int tag, uint64_t bytes) {
  if (request == MPI_REQUEST_NULL) return;
  if ((used + 1) * 2 > cap) grow();
  entry e = { request, next_id++, bytes, peer, tag, comm, is_recv, 1 };
  insert(&e);
  cl_record *r = cl_event(is_recv ? CL_IRECV_REQUEST : CL_ISEND);
  r->request = e.id;
  if (!is_recv) {
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    r->bytes = bytes;
  }
}

void cl_request_completed(MPI_Request request, const MPI_Status *status) {
  entry *e = find(request);
  if (!e) return;
  if (e->is_recv) {
    int count = 0;
    PMPI_Get_count(status, MPI_BYTE, &count);
    cl_record *r = cl_event(CL_IRECV);
    r->peer = status->MPI_SOURCE;
    r->tag = status->MPI_TAG;
    r->comm = e->comm;
    r->bytes = count == MPI_UNDEFINED ? e->bytes : (uint64_t)count;
    r->request = e->id;
    r->op = cl_wildcards(e->peer, e->tag);
  } else {
    cl_record *r = cl_event(CL_ISEND_COMPLETE);
    r->request = e->id;
  }
  remove_entry(e);
}

void cl_request_tested(MPI_Request request) {
  entry *e = find(request);
  if (!e) return;
  cl_event(CL_REQUEST_TEST)->request = e->id;
}
