/* Does the machine's noise (validation/pem/detours.c) lengthen MPI messages on average? The
 * calibration keeps the median one-way time of each size (calibrate/pingpong.c), which leaves the
 * rare long round trips out; a run's time adds every message's. docs/pem.md ("a fine-grained
 * halo") has what this measured.
 *
 *   mpicc -O2 -o /tmp/pingpong-mean validation/pem/pingpong-mean.c
 *   mpirun -np 2 --mca mpi_yield_when_idle 1 validation/pem/pin-rank.sh 2 /tmp/pingpong-mean [ROUND_TRIPS]
 *
 * Ranks 0 and 1 bounce a 0-byte message ROUND_TRIPS times (default 200,000, after 1,000 to warm
 * up); rank 0 prints the one-way time's median, mean, mean with each round trip capped at 50 µs,
 * and 90th and 99th percentiles. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { WARM_UP = 1000 };

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 200000;
  if (size != 2 || n < 1) {
    if (rank == 0) fprintf(stderr, "pingpong-mean: needs 2 ranks and a positive number of round trips\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *one_way = malloc(sizeof(double) * (size_t)n);
  char ball = 0;
  for (long i = -WARM_UP; i < n; i++) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(&ball, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&ball, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&ball, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&ball, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (i >= 0) one_way[i] = (MPI_Wtime() - t0) / 2;
  }
  if (rank == 0) {
    double sum = 0, capped = 0;
    for (long i = 0; i < n; i++) {
      sum += one_way[i];
      capped += one_way[i] < 25e-6 ? one_way[i] : 25e-6;
    }
    qsort(one_way, (size_t)n, sizeof(double), by_value);
    printf("one-way (us): median %.3f mean %.3f mean capped %.3f p90 %.3f p99 %.3f\n", one_way[n / 2] * 1e6, sum / n * 1e6, capped / n * 1e6,
           one_way[n * 9 / 10] * 1e6, one_way[n * 99 / 100] * 1e6);
  }
  free(one_way);
  MPI_Finalize();
  return 0;
}
