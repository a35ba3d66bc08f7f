/* Latency-bound: ranks pair up (0-1, 2-3, ...) and ping-pong 8-byte messages ROUNDS times, with
 * an MPI_Barrier every BARRIER_EVERY rounds (100; 0: none); an odd last rank only joins the barriers.
 * usage: latency ROUNDS [BARRIER_EVERY] */
#include <mpi.h>
#include <stdlib.h>
#include "counts.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long rounds = argc > 1 ? atol(argv[1]) : 2000;
  long barrier_every = argc > 2 ? atol(argv[2]) : 100;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  int partner = rank ^ 1;
  double t0 = MPI_Wtime();
  long ball = 0;
  for (long i = 0; i < rounds; i++) {
    if (partner < size) {
      if (rank % 2 == 0) {
        MPI_Send(&ball, 1, MPI_LONG, partner, 0, MPI_COMM_WORLD), n_send++;
        MPI_Recv(&ball, 1, MPI_LONG, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), n_recv++;
      } else {
        MPI_Recv(&ball, 1, MPI_LONG, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), n_recv++;
        ball++;
        MPI_Send(&ball, 1, MPI_LONG, partner, 0, MPI_COMM_WORLD), n_send++;
      }
    }
    if (barrier_every > 0 && i % barrier_every == barrier_every - 1) MPI_Barrier(MPI_COMM_WORLD), n_coll++;
  }
  double t = MPI_Wtime() - t0;
  if (rank == 0) printf("latency: %ld round trips, %.2f us per round trip\n", rounds, t / (double)rounds * 1e6);
  report_counts(rank);
  MPI_Finalize();
  return 0;
}
