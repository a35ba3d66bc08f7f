/* The recorder's state and the calls the PMPI wrappers make into it. */
#ifndef CAUSAL_LENS_RECORDER_H
#define CAUSAL_LENS_RECORDER_H

#include <mpi.h>
#include <stdint.h>
#include "rawlog.h"

/* Whether events are being recorded: between our MPI_Init and MPI_Finalize. */
extern int cl_active;
/* Set when MPI_Init_thread granted MPI_THREAD_MULTIPLE: records are then appended under a lock. */
extern int cl_threads_share_mpi;

uint64_t cl_now(void);
void cl_start(void);
void cl_finish(void);
int cl_is_rank0(void);
const char *cl_dir(void);

void cl_enter(enum cl_region region);
void cl_leave(enum cl_region region);
/* A record slot for the current event; time is set, the caller fills the rest. */
cl_record *cl_event(enum cl_kind kind);
void cl_lock(void);
void cl_unlock(void);

uint32_t cl_comm_index(MPI_Comm comm);
/* Collective over newcomm (a no-op for MPI_COMM_NULL): gives it a key every member agrees on. */
void cl_register_comm(MPI_Comm newcomm);
void cl_forget_comm(MPI_Comm comm);
/* Called right after every collective: after one of all ranks, this is where flushes happen. */
void cl_after_collective(MPI_Comm comm);

uint64_t cl_bytes(int count, MPI_Datatype type);
/* The CL_ANY_* bits of a receive posted for (source, tag). */
static inline uint8_t cl_wildcards(int source, int tag) {
  return (uint8_t)((source == MPI_ANY_SOURCE ? CL_ANY_SOURCE : 0) | (tag == MPI_ANY_TAG ? CL_ANY_TAG : 0));
}

/* Nonblocking requests: what was posted, resolved when a Wait/Test completes it. */
void cl_request_posted(MPI_Request request, int is_recv, int peer, uint32_t comm, int tag, uint64_t bytes);
/* Records the completion event (MpiIsendComplete or MpiIrecv) of a request we know. */
void cl_request_completed(MPI_Request request, const MPI_Status *status);
void cl_request_tested(MPI_Request request);

#endif
