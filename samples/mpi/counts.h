/* Every sample counts the MPI records it causes, so a trace can be checked against what the
 * program did: one line per rank at the end, "counts rank=R send=.. isend=.. recv=.. irecv=.. coll=..",
 * matching the OTF2 records MpiSend, MpiIsend, MpiRecv, MpiIrecv and MpiCollectiveEnd; and
 * "elapsed rank=R seconds=S", the rank's time from mark_start() (right after MPI_Init) to then,
 * which the benches compare with and without the recorder; and "started rank=R monotonic=S", when
 * mark_start() ran on the machine's monotonic clock (ranks sharing a core start ticks apart); and
 * "compute rank=R seconds=S", the thread CPU time of its compute sections (compute_begin() to
 * compute_end()): a run without the recorder says with it how fast it computed, so that
 * validation/pem/validate.mjs can scale a traced twin run's computations to that speed. */
#ifndef SAMPLES_MPI_COUNTS_H
#define SAMPLES_MPI_COUNTS_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static long n_send, n_isend, n_recv, n_irecv, n_coll;
static double started_at, started_monotonic;
static double compute_seconds, compute_began;

static inline double thread_cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static inline void compute_begin(void) { compute_began = thread_cpu_seconds(); }

static inline void compute_end(void) { compute_seconds += thread_cpu_seconds() - compute_began; }

static inline void mark_start(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  started_monotonic = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
  started_at = MPI_Wtime();
}

static inline void report_counts(int rank) {
  double elapsed = MPI_Wtime() - started_at;
  printf("elapsed rank=%d seconds=%.6f\n", rank, elapsed);
  printf("started rank=%d monotonic=%.9f\n", rank, started_monotonic);
  printf("compute rank=%d seconds=%.6f\n", rank, compute_seconds);
  printf("counts rank=%d send=%ld isend=%ld recv=%ld irecv=%ld coll=%ld\n", rank, n_send, n_isend, n_recv, n_irecv,
         n_coll);
  fflush(stdout);
}

/* splitmix64: the same uneven work on every run and every machine */
static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A fixed amount of floating-point work, kept from being optimized away. */
static inline double spin_work(long units) {
  double x = 1.0;
  for (long i = 0; i < units * 1000; i++) x = x * 1.0000001 + 1e-9;
  return x;
}
#endif
