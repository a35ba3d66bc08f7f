/* The same question with MPI ranks (poller-steal.c has it with plain processes): rank 0 computes
 * on CPU 0 in BURSTS pieces with an MPI_Iprobe between them (1: one piece, no call), while ranks
 * 1 .. n-2, also on CPU 0, wait in MPI_Recv for the last rank, which runs on CPU SENDER_CPU and
 * sends to them once rank 0 is done. docs/pem.md ("a lead on the N/2 shortfalls") has what this
 * measured.
 *
 *   mpicc -O2 -o /tmp/poller-steal-mpi validation/pem/poller-steal-mpi.c
 *   mpirun -np N --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none /tmp/poller-steal-mpi WORK SENDER_CPU BURSTS
 *
 * Prints rank 0's wall time for its computation. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long work = argc > 1 ? atol(argv[1]) : 100000000;
  int sender_cpu = argc > 2 ? atoi(argv[2]) : 1;
  long bursts = argc > 3 ? atol(argv[3]) : 1;
  if (size < 2 || bursts < 1) {
    if (rank == 0) fprintf(stderr, "poller-steal-mpi: needs 2 or more ranks and BURSTS >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int last = size - 1;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(rank == last ? sender_cpu : 0, &cpus);
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
    fprintf(stderr, "poller-steal-mpi: rank %d cannot be pinned\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char token = 0;
  if (rank == 0) {
    volatile double x = 1.0;
    int found;
    double start = now();
    for (long b = 0; b < bursts; b++) {
      for (long k = 0; k < work / bursts; k++) x = x * 1.0000001 + 1e-9;
      if (bursts > 1) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
    }
    double seconds = now() - start;
    MPI_Send(&token, 1, MPI_CHAR, last, 0, MPI_COMM_WORLD);
    printf("waiting %d sender-cpu %d bursts %ld seconds %.4f\n", size - 2, sender_cpu, bursts, seconds);
  } else if (rank == last) {
    MPI_Recv(&token, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 1; r < last; r++) MPI_Send(&token, 1, MPI_CHAR, r, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_CHAR, last, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
