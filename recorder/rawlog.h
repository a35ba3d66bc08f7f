/* The recorder's on-disk spool: what each rank appends at a flush, and what the converter
 * (otf2_out.c) turns into OTF2. Fixed-size little-endian records so that a file cut short by an
 * abort or a full disk is still readable up to its last whole record.
 *
 * Per rank r, in the trace directory:
 *   spool/rank-<r>.meta   text, "key value" lines, written at MPI_Init and rewritten at finalize
 *   spool/rank-<r>.evt    cl_record[] appended at each flush
 *   spool/rank-<r>.comm   text, one line per communicator: "<key> <size> <world rank>..."
 */
#ifndef CAUSAL_LENS_RAWLOG_H
#define CAUSAL_LENS_RAWLOG_H

#include <stdint.h>

/* The MPI functions with a region, and the OTF2 region role each gets. */
#define CL_REGIONS(X)                                                                  \
  X(INIT, "MPI_Init", OTF2_REGION_ROLE_FUNCTION)                                      \
  X(INIT_THREAD, "MPI_Init_thread", OTF2_REGION_ROLE_FUNCTION)                        \
  X(FINALIZE, "MPI_Finalize", OTF2_REGION_ROLE_FUNCTION)                              \
  X(SEND, "MPI_Send", OTF2_REGION_ROLE_POINT2POINT)                                   \
  X(SSEND, "MPI_Ssend", OTF2_REGION_ROLE_POINT2POINT)                                 \
  X(RECV, "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT)                                   \
  X(SENDRECV, "MPI_Sendrecv", OTF2_REGION_ROLE_POINT2POINT)                           \
  X(ISEND, "MPI_Isend", OTF2_REGION_ROLE_POINT2POINT)                                 \
  X(IRECV, "MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT)                                 \
  X(WAIT, "MPI_Wait", OTF2_REGION_ROLE_POINT2POINT)                                   \
  X(WAITALL, "MPI_Waitall", OTF2_REGION_ROLE_POINT2POINT)                             \
  X(WAITANY, "MPI_Waitany", OTF2_REGION_ROLE_POINT2POINT)                             \
  X(WAITSOME, "MPI_Waitsome", OTF2_REGION_ROLE_POINT2POINT)                           \
  X(TEST, "MPI_Test", OTF2_REGION_ROLE_POINT2POINT)                                   \
  X(TESTALL, "MPI_Testall", OTF2_REGION_ROLE_POINT2POINT)                             \
  X(TESTANY, "MPI_Testany", OTF2_REGION_ROLE_POINT2POINT)                             \
  X(TESTSOME, "MPI_Testsome", OTF2_REGION_ROLE_POINT2POINT)                           \
  X(BARRIER, "MPI_Barrier", OTF2_REGION_ROLE_BARRIER)                                 \
  X(BCAST, "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL)                                \
  X(REDUCE, "MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE)                              \
  X(ALLREDUCE, "MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL)                        \
  X(GATHER, "MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE)                              \
  X(SCATTER, "MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL)                            \
  X(ALLGATHER, "MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL)                        \
  X(ALLTOALL, "MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL)                          \
  X(ALLTOALLV, "MPI_Alltoallv", OTF2_REGION_ROLE_COLL_ALL2ALL)                        \
  X(COMM_SPLIT, "MPI_Comm_split", OTF2_REGION_ROLE_COLL_ALL2ALL)                      \
  X(COMM_DUP, "MPI_Comm_dup", OTF2_REGION_ROLE_COLL_ALL2ALL)                          \
  X(CART_CREATE, "MPI_Cart_create", OTF2_REGION_ROLE_COLL_ALL2ALL)

#define CL_REGION_ENUM(id, name, role) CL_REGION_##id,
enum cl_region { CL_REGIONS(CL_REGION_ENUM) CL_REGION_COUNT };
#undef CL_REGION_ENUM

enum cl_kind {
  CL_ENTER = 1,          /* region; cpu */
  CL_LEAVE,              /* region; cpu */
  CL_SEND,               /* peer, comm, tag, bytes */
  CL_ISEND,              /* peer, comm, tag, bytes, request */
  CL_ISEND_COMPLETE,     /* request */
  CL_RECV,               /* peer (the actual source), comm, tag, bytes; op = wildcards posted (CL_ANY_*) */
  CL_IRECV_REQUEST,      /* request */
  CL_IRECV,              /* peer (the actual source), comm, tag, bytes, request; op = wildcards posted */
  CL_REQUEST_TEST,       /* request: tested, not complete */
  CL_COLL_BEGIN,
  CL_COLL_END,           /* op, comm, root (peer), sent (bytes), received (request) */
  CL_FLUSH,              /* time = suspension start, bytes = stop time, request = Z in ns */
  CL_CLOCK_OFFSET,       /* time; offset (as int64 in bytes) and standard deviation ns (request) */
};

/* A receive's wildcards (its op byte): OTF2 records what matched, a replay needs what was posted.
 * Written as the attribute causal_lens:wildcards, these bits. */
#define CL_ANY_SOURCE 1
#define CL_ANY_TAG 2

/* peer/root value when there is none */
#define CL_NO_RANK (-1)

typedef struct {
  uint64_t time;     /* CLOCK_MONOTONIC ns */
  uint64_t cpu;      /* thread CPU ns since MPI_Init (Enter/Leave) */
  uint64_t bytes;
  uint64_t request;
  int32_t peer;
  int32_t tag;
  uint32_t comm;     /* index into this rank's .comm lines; 0 = MPI_COMM_WORLD */
  uint8_t kind;
  uint8_t op;        /* OTF2 collective op for CL_COLL_END; wildcards for CL_RECV, CL_IRECV */
  uint16_t region;
} cl_record;

_Static_assert(sizeof(cl_record) == 48, "spool records are 48 bytes");

#endif
