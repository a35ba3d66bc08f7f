/* Token ring: rank 0 sends, every other rank receives from its left and sends to its right, for
 * ITERATIONS rounds; an MPI_Allreduce every 10 rounds.
 * usage: ring ITERATIONS [--thread] [--abort-after ROUND] [--sleep-us MICROSECONDS]
 *   --thread       starts with MPI_Init_thread(MPI_THREAD_FUNNELED)
 *   --abort-after  the last rank calls MPI_Abort after that round (a run that dies mid-way)
 *   --sleep-us     every rank sleeps that long in every round before it passes the token on
 *                  (time off the core between MPI calls, as blocking I/O is) */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "counts.h"

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 1000, abort_after = -1, sleep_us = 0;
  int thread = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--thread")) thread = 1;
    else if (!strcmp(argv[i], "--abort-after") && i + 1 < argc) abort_after = atol(argv[++i]);
    else if (!strcmp(argv[i], "--sleep-us") && i + 1 < argc) sleep_us = atol(argv[++i]);
  }
  if (thread) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long token = 0;
  for (long it = 0; it < iterations; it++) {
    if (rank == 0) {
      token++;
      if (sleep_us > 0) usleep((useconds_t)sleep_us);
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD), n_send++;
      MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), n_recv++;
    } else {
      MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), n_recv++;
      token++;
      if (sleep_us > 0) usleep((useconds_t)sleep_us);
      MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD), n_send++;
    }
    if (it % 10 == 9) {
      long sum;
      MPI_Allreduce(&token, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), n_coll++;
    }
    if (it == abort_after && rank == size - 1) {
      fprintf(stderr, "ring: rank %d aborting after round %ld as asked\n", rank, it);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  if (rank == 0) printf("ring: token %ld after %ld rounds on %d ranks\n", token, iterations, size);
  report_counts(rank);
  MPI_Finalize();
  return 0;
}
