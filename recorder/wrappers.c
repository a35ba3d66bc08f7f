/* The PMPI interposition: every wrapped MPI call records Enter, its message or collective
 * records, and Leave, around the real PMPI call (MPI standard, "Profiling Interface"). A call
 * made before MPI_Init or after MPI_Finalize goes straight through. The recorder's mutex is
 * never held across a PMPI call that can block on another rank, except during a flush, when
 * every rank is suspended anyway. */
#include "recorder.h"
#include "otf2_out.h"

#include <otf2/otf2.h>
#include <stdlib.h>

#define LOCKED(stmt) \
  do {               \
    cl_lock();       \
    stmt;            \
    cl_unlock();     \
  } while (0)

static void enter(enum cl_region region) { LOCKED(cl_enter(region)); }
static void leave(enum cl_region region) { LOCKED(cl_leave(region)); }

static void message(enum cl_kind kind, int peer, MPI_Comm comm, int tag, uint64_t bytes, uint8_t wildcards) {
  if (peer == MPI_PROC_NULL) return;
  cl_lock();
  cl_record *r = cl_event(kind);
  r->peer = peer;
  r->comm = cl_comm_index(comm);
  r->tag = tag;
  r->bytes = bytes;
  r->op = wildcards;
  cl_unlock();
}

/* A blocking receive posted for (source, tag), with what matched. */
static void received(MPI_Comm comm, const MPI_Status *status, int source, int tag) {
  int count = 0;
  PMPI_Get_count(status, MPI_BYTE, &count);
  message(CL_RECV, status->MPI_SOURCE, comm, status->MPI_TAG, count == MPI_UNDEFINED ? 0 : (uint64_t)count,
          cl_wildcards(source, tag));
}

static void collective_begin(enum cl_region region) {
  cl_lock();
  cl_enter(region);
  cl_event(CL_COLL_BEGIN);
  cl_unlock();
}

static void collective_end(enum cl_region region, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent,
                           uint64_t received_bytes) {
  cl_lock();
  cl_record *r = cl_event(CL_COLL_END);
  r->op = (uint8_t)op;
  r->comm = cl_comm_index(comm);
  r->peer = root;
  r->bytes = sent;
  r->request = received_bytes;
  cl_leave(region);
  cl_after_collective(comm);
  cl_unlock();
}

static int comm_size(MPI_Comm comm) {
  int n = 1;
  PMPI_Comm_size(comm, &n);
  return n;
}

static int comm_rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

/* Statuses for the completion calls: the program's, or ours when it passed MPI_STATUS(ES)_IGNORE,
 * since the actual source and size of a receive are in the status. */
enum { STACK_STATUSES = 32 };
typedef struct {
  MPI_Status stack[STACK_STATUSES];
  MPI_Status *use;
  MPI_Request stack_requests[STACK_STATUSES];
  MPI_Request *saved;
  int owned;
} completion;

static void completion_begin(completion *c, int n, const MPI_Request *requests, MPI_Status *program_statuses) {
  c->owned = n > STACK_STATUSES;
  c->saved = c->owned ? malloc(sizeof(MPI_Request) * (size_t)n) : c->stack_requests;
  for (int i = 0; i < n; i++) c->saved[i] = requests[i];
  if (program_statuses != MPI_STATUSES_IGNORE) c->use = program_statuses;
  else c->use = c->owned ? malloc(sizeof(MPI_Status) * (size_t)n) : c->stack;
}

static void completion_end(completion *c, MPI_Status *program_statuses) {
  if (c->owned) {
    free(c->saved);
    if (c->use != program_statuses) free(c->use);
  }
}

static void complete(MPI_Request request, const MPI_Status *status) { LOCKED(cl_request_completed(request, status)); }
static void tested(MPI_Request request) { LOCKED(cl_request_tested(request)); }

/* ---- start and end ---------------------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  cl_start();
  enter(CL_REGION_INIT);
  leave(CL_REGION_INIT);
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  cl_threads_share_mpi = *provided == MPI_THREAD_MULTIPLE;
  cl_start();
  enter(CL_REGION_INIT_THREAD);
  leave(CL_REGION_INIT_THREAD);
  return rc;
}

int MPI_Finalize(void) {
  if (!cl_active) return PMPI_Finalize();
  enter(CL_REGION_FINALIZE);
  cl_finish();
  int rank0 = cl_is_rank0();
  int rc = PMPI_Finalize();
  /* After PMPI_Finalize, so the other ranks are not held while rank 0 writes the archive. */
  if (rank0) cl_write_archive(cl_dir(), NULL, 0);
  return rc;
}

/* ---- point to point --------------------------------------------------------------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!cl_active) return PMPI_Send(buf, count, type, dest, tag, comm);
  enter(CL_REGION_SEND);
  message(CL_SEND, dest, comm, tag, cl_bytes(count, type), 0);
  int rc = PMPI_Send(buf, count, type, dest, tag, comm);
  leave(CL_REGION_SEND);
  return rc;
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!cl_active) return PMPI_Ssend(buf, count, type, dest, tag, comm);
  enter(CL_REGION_SSEND);
  message(CL_SEND, dest, comm, tag, cl_bytes(count, type), 0);
  int rc = PMPI_Ssend(buf, count, type, dest, tag, comm);
  leave(CL_REGION_SSEND);
  return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (!cl_active) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  enter(CL_REGION_RECV);
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  received(comm, st, source, tag);
  leave(CL_REGION_RECV);
  return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  if (!cl_active)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  enter(CL_REGION_SENDRECV);
  message(CL_SEND, dest, comm, sendtag, cl_bytes(sendcount, sendtype), 0);
  int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, st);
  received(comm, st, source, recvtag);
  leave(CL_REGION_SENDRECV);
  return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  if (!cl_active) return PMPI_Isend(buf, count, type, dest, tag, comm, request);
  enter(CL_REGION_ISEND);
  int rc = PMPI_Isend(buf, count, type, dest, tag, comm, request);
  if (dest != MPI_PROC_NULL)
    LOCKED(cl_request_posted(*request, 0, dest, cl_comm_index(comm), tag, cl_bytes(count, type)));
  leave(CL_REGION_ISEND);
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  if (!cl_active) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  enter(CL_REGION_IRECV);
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (source != MPI_PROC_NULL)
    LOCKED(cl_request_posted(*request, 1, source, cl_comm_index(comm), tag, cl_bytes(count, type)));
  leave(CL_REGION_IRECV);
  return rc;
}

/* ---- completion ------------------------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!cl_active) return PMPI_Wait(request, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  enter(CL_REGION_WAIT);
  int rc = PMPI_Wait(request, st);
  complete(saved, st);
  leave(CL_REGION_WAIT);
  return rc;
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
  if (!cl_active) return PMPI_Waitall(n, requests, statuses);
  completion c;
  completion_begin(&c, n, requests, statuses);
  enter(CL_REGION_WAITALL);
  int rc = PMPI_Waitall(n, requests, c.use);
  for (int i = 0; i < n; i++) complete(c.saved[i], &c.use[i]);
  leave(CL_REGION_WAITALL);
  completion_end(&c, statuses);
  return rc;
}

int MPI_Waitany(int n, MPI_Request requests[], int *index, MPI_Status *status) {
  if (!cl_active) return PMPI_Waitany(n, requests, index, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  completion c;
  completion_begin(&c, n, requests, MPI_STATUSES_IGNORE);
  enter(CL_REGION_WAITANY);
  int rc = PMPI_Waitany(n, requests, index, st);
  if (*index != MPI_UNDEFINED) complete(c.saved[*index], st);
  leave(CL_REGION_WAITANY);
  completion_end(&c, MPI_STATUSES_IGNORE);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  if (!cl_active) return PMPI_Waitsome(n, requests, outcount, indices, statuses);
  completion c;
  completion_begin(&c, n, requests, statuses);
  enter(CL_REGION_WAITSOME);
  int rc = PMPI_Waitsome(n, requests, outcount, indices, c.use);
  for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++) complete(c.saved[indices[i]], &c.use[i]);
  leave(CL_REGION_WAITSOME);
  completion_end(&c, statuses);
  return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!cl_active) return PMPI_Test(request, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request saved = *request;
  enter(CL_REGION_TEST);
  int rc = PMPI_Test(request, flag, st);
  if (*flag) complete(saved, st);
  else tested(saved);
  leave(CL_REGION_TEST);
  return rc;
}

int MPI_Testall(int n, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (!cl_active) return PMPI_Testall(n, requests, flag, statuses);
  completion c;
  completion_begin(&c, n, requests, statuses);
  enter(CL_REGION_TESTALL);
  int rc = PMPI_Testall(n, requests, flag, c.use);
  for (int i = 0; i < n; i++) {
    if (*flag) complete(c.saved[i], &c.use[i]);
    else tested(c.saved[i]);
  }
  leave(CL_REGION_TESTALL);
  completion_end(&c, statuses);
  return rc;
}

int MPI_Testany(int n, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  if (!cl_active) return PMPI_Testany(n, requests, index, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  completion c;
  completion_begin(&c, n, requests, MPI_STATUSES_IGNORE);
  enter(CL_REGION_TESTANY);
  int rc = PMPI_Testany(n, requests, index, flag, st);
  if (*flag && *index != MPI_UNDEFINED) complete(c.saved[*index], st);
  else if (!*flag)
    for (int i = 0; i < n; i++) tested(c.saved[i]);
  leave(CL_REGION_TESTANY);
  completion_end(&c, MPI_STATUSES_IGNORE);
  return rc;
}

int MPI_Testsome(int n, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  if (!cl_active) return PMPI_Testsome(n, requests, outcount, indices, statuses);
  completion c;
  completion_begin(&c, n, requests, statuses);
  enter(CL_REGION_TESTSOME);
  int rc = PMPI_Testsome(n, requests, outcount, indices, c.use);
  for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++) complete(c.saved[indices[i]], &c.use[i]);
  leave(CL_REGION_TESTSOME);
  completion_end(&c, statuses);
  return rc;
}

/* ---- collectives: sizes are this rank's own payload, sent and received ------------------- */

int MPI_Barrier(MPI_Comm comm) {
  if (!cl_active) return PMPI_Barrier(comm);
  collective_begin(CL_REGION_BARRIER);
  int rc = PMPI_Barrier(comm);
  collective_end(CL_REGION_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, comm, CL_NO_RANK, 0, 0);
  return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!cl_active) return PMPI_Bcast(buf, count, type, root, comm);
  uint64_t n = cl_bytes(count, type);
  int is_root = comm_rank(comm) == root;
  collective_begin(CL_REGION_BCAST);
  int rc = PMPI_Bcast(buf, count, type, root, comm);
  collective_end(CL_REGION_BCAST, OTF2_COLLECTIVE_OP_BCAST, comm, root, is_root ? n : 0, is_root ? 0 : n);
  return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (!cl_active) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  uint64_t n = cl_bytes(count, type);
  int is_root = comm_rank(comm) == root;
  collective_begin(CL_REGION_REDUCE);
  int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  collective_end(CL_REGION_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, comm, root, n, is_root ? n : 0);
  return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!cl_active) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  uint64_t n = cl_bytes(count, type);
  collective_begin(CL_REGION_ALLREDUCE);
  int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  collective_end(CL_REGION_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, CL_NO_RANK, n, n);
  return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!cl_active) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int is_root = comm_rank(comm) == root;
  uint64_t got = is_root ? cl_bytes(recvcount, recvtype) * (uint64_t)comm_size(comm) : 0;
  collective_begin(CL_REGION_GATHER);
  int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  collective_end(CL_REGION_GATHER, OTF2_COLLECTIVE_OP_GATHER, comm, root, cl_bytes(sendcount, sendtype), got);
  return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!cl_active) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int is_root = comm_rank(comm) == root;
  uint64_t sent = is_root ? cl_bytes(sendcount, sendtype) * (uint64_t)comm_size(comm) : 0;
  collective_begin(CL_REGION_SCATTER);
  int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  collective_end(CL_REGION_SCATTER, OTF2_COLLECTIVE_OP_SCATTER, comm, root, sent, cl_bytes(recvcount, recvtype));
  return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!cl_active) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  uint64_t got = cl_bytes(recvcount, recvtype) * (uint64_t)comm_size(comm);
  collective_begin(CL_REGION_ALLGATHER);
  int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  collective_end(CL_REGION_ALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHER, comm, CL_NO_RANK, cl_bytes(sendcount, sendtype), got);
  return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  if (!cl_active) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  uint64_t p = (uint64_t)comm_size(comm);
  collective_begin(CL_REGION_ALLTOALL);
  int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  collective_end(CL_REGION_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALL, comm, CL_NO_RANK, cl_bytes(sendcount, sendtype) * p,
                 cl_bytes(recvcount, recvtype) * p);
  return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (!cl_active)
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  int p = comm_size(comm);
  uint64_t sent = 0, got = 0;
  for (int i = 0; i < p; i++) {
    sent += cl_bytes(sendcounts[i], sendtype);
    got += cl_bytes(recvcounts[i], recvtype);
  }
  collective_begin(CL_REGION_ALLTOALLV);
  int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  collective_end(CL_REGION_ALLTOALLV, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, CL_NO_RANK, sent, got);
  return rc;
}

/* ---- communicators ---------------------------------------------------------------------- */

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  if (!cl_active) return PMPI_Comm_split(comm, color, key, newcomm);
  enter(CL_REGION_COMM_SPLIT);
  int rc = PMPI_Comm_split(comm, color, key, newcomm);
  LOCKED(cl_register_comm(*newcomm));
  leave(CL_REGION_COMM_SPLIT);
  return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  if (!cl_active) return PMPI_Comm_dup(comm, newcomm);
  enter(CL_REGION_COMM_DUP);
  int rc = PMPI_Comm_dup(comm, newcomm);
  LOCKED(cl_register_comm(*newcomm));
  leave(CL_REGION_COMM_DUP);
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *newcomm) {
  if (!cl_active) return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  enter(CL_REGION_CART_CREATE);
  int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  LOCKED(cl_register_comm(*newcomm));
  leave(CL_REGION_CART_CREATE);
  return rc;
}

int MPI_Comm_free(MPI_Comm *comm) {
  if (cl_active) LOCKED(cl_forget_comm(*comm));
  return PMPI_Comm_free(comm);
}
