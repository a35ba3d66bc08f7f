/* A pipeline of stages, one per rank: rank 0 produces BLOCKS blocks, each later stage receives
 * them from the stage before (MPI_Irecv polled with MPI_Test while it works), transforms them
 * and forwards them (MPI_Isend, completed with MPI_Waitsome or, when all send slots are busy,
 * MPI_Waitany). The last stage sums them; a final MPI_Reduce checks the result.
 * usage: pipeline BLOCKS BLOCK_DOUBLES */
#include <mpi.h>
#include <stdlib.h>
#include "counts.h"

enum { SLOTS = 3 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long blocks = argc > 1 ? atol(argv[1]) : 200;
  int len = argc > 2 ? atoi(argv[2]) : 4096;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  double *in = malloc(sizeof(double) * (size_t)len), *out[SLOTS];
  MPI_Request sends[SLOTS];
  for (int s = 0; s < SLOTS; s++) out[s] = malloc(sizeof(double) * (size_t)len), sends[s] = MPI_REQUEST_NULL;
  double sum = 0;
  for (long b = 0; b < blocks; b++) {
    if (rank > 0) {
      MPI_Request r;
      int done = 0;
      MPI_Irecv(in, len, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, &r), n_irecv++;
      while (!done) {
        spin_work(2);
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      }
    } else {
      compute_begin();
      for (int i = 0; i < len; i++) in[i] = (double)(b + i);
      compute_end();
    }
    if (rank == size - 1) {
      compute_begin();
      for (int i = 0; i < len; i++) sum += in[i];
      compute_end();
      continue;
    }
    int slot = -1;
    for (int s = 0; s < SLOTS && slot < 0; s++)
      if (sends[s] == MPI_REQUEST_NULL) slot = s;
    if (slot < 0) {
      int done, idx[SLOTS];
      MPI_Waitsome(SLOTS, sends, &done, idx, MPI_STATUSES_IGNORE);
      slot = idx[0];
    }
    compute_begin();
    for (int i = 0; i < len; i++) out[slot][i] = in[i] * 1.0001 + (double)rank;
    compute_end();
    MPI_Isend(out[slot], len, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD, &sends[slot]), n_isend++;
    if (b % 16 == 15) {
      int any;
      MPI_Waitany(SLOTS, sends, &any, MPI_STATUS_IGNORE);
    }
  }
  MPI_Waitall(SLOTS, sends, MPI_STATUSES_IGNORE);
  double total;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), n_coll++;
  if (rank == 0) printf("pipeline: %ld blocks through %d stages, sum %.6e\n", blocks, size, total);
  report_counts(rank);
  for (int s = 0; s < SLOTS; s++) free(out[s]);
  free(in);
  MPI_Finalize();
  return 0;
}
