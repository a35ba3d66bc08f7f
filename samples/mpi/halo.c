/* 1-D Jacobi stencil: per iteration a halo exchange (2 Irecv + 2 Isend + Waitall) with both
 * neighbours, the local update, and an MPI_Allreduce of the residual. At the end the ranks split
 * into even and odd halves (MPI_Comm_split) and reduce a checksum within each half.
 * usage: halo POINTS_PER_RANK ITERATIONS [HALO_DOUBLES] */
#include <mpi.h>
#include <math.h>
#include <stdlib.h>
#include "counts.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 100000, iterations = argc > 2 ? atol(argv[2]) : 100;
  int h = argc > 3 ? atoi(argv[3]) : 128;
  if (n < h) n = h;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *u = calloc((size_t)(n + 2 * h), sizeof(double)), *v = calloc((size_t)(n + 2 * h), sizeof(double));
  compute_begin();
  for (long i = 0; i < n; i++) u[h + i] = sin((double)(rank * n + i) * 1e-3);
  compute_end();
  double residual = 0;
  for (long it = 0; it < iterations; it++) {
    MPI_Request req[4];
    int nreq = 0;
    if (left != MPI_PROC_NULL) {
      MPI_Irecv(u, h, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[nreq++]), n_irecv++;
      MPI_Isend(u + h, h, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[nreq++]), n_isend++;
    }
    if (right != MPI_PROC_NULL) {
      MPI_Irecv(u + h + n, h, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[nreq++]), n_irecv++;
      MPI_Isend(u + n, h, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[nreq++]), n_isend++;
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    compute_begin();
    double local = 0;
    for (long i = h; i < h + n; i++) {
      v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
      local += fabs(v[i] - u[i]);
    }
    compute_end();
    double *t = u;
    u = v;
    v = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), n_coll++;
  }
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  double sum = 0, half_sum;
  compute_begin();
  for (long i = h; i < h + n; i++) sum += u[i];
  compute_end();
  MPI_Allreduce(&sum, &half_sum, 1, MPI_DOUBLE, MPI_SUM, half), n_coll++;
  MPI_Comm_free(&half);
  if (rank == 0) printf("halo: residual %.6e, even-half checksum %.6f\n", residual, half_sum);
  report_counts(rank);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
