/* Does a rank that alternates computation with requests to another core slow the ranks
 * computing beside it by more than its own CPU? (a master-worker's worker, beside other workers;
 * docs/pem.md, "a lead on the N/2 shortfalls").
 *
 *   mpicc -O2 -o /tmp/serve-beside validation/pem/serve-beside.c
 *   mpirun -np 5 --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none /tmp/serve-beside ROUNDS WORK SERVE BIG
 *
 * Rank 0 on CPU 0 serves ROUNDS requests, computing SERVE iterations for each before it replies.
 * Rank 1 on CPU 1 computes WORK iterations and then requests and waits for the reply, ROUNDS
 * times, and prints its wall and CPU time. Ranks 2 .. n-1 on CPU 1 compute BIG iterations each
 * and print their wall time. ROUNDS 0 gives the time without rank 1. (1e8 iterations: about
 * 0.27 s here.) */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_seconds(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void compute(long iterations) {
  volatile double x = 1.0;
  for (long k = 0; k < iterations; k++) x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5 || size < 3) {
    if (rank == 0) fprintf(stderr, "usage: serve-beside ROUNDS WORK SERVE BIG, on 3 or more ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long rounds = atol(argv[1]), work = atol(argv[2]), serve = atol(argv[3]), big = atol(argv[4]);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(rank == 0 ? 0 : 1, &cpus);
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
    fprintf(stderr, "serve-beside: rank %d cannot be pinned (needs 2 CPUs)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char token = 0;
  if (rank == 0) {
    for (long i = 0; i < rounds; i++) {
      MPI_Recv(&token, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      compute(serve);
      MPI_Send(&token, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    }
  } else if (rank == 1) {
    double wall = clock_seconds(CLOCK_MONOTONIC), cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < rounds; i++) {
      compute(work);
      MPI_Send(&token, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("requesting rank: %ld rounds, wall %.3f s, cpu %.3f s\n", rounds, clock_seconds(CLOCK_MONOTONIC) - wall,
           clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu);
  } else {
    double wall = clock_seconds(CLOCK_MONOTONIC);
    compute(big);
    printf("computing rank %d: wall %.4f s\n", rank, clock_seconds(CLOCK_MONOTONIC) - wall);
  }
  MPI_Finalize();
  return 0;
}
