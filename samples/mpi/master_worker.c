/* Master-worker with uneven tasks: rank 0 hands out TASKS tasks of heavy-tailed cost
 * (1 + 40u^3 units, splitmix64 seed 12345), one outstanding per worker, and takes results with
 * MPI_ANY_SOURCE. Prints how many results each worker returned, so a trace can be checked for
 * the actual source of each receive. With SETUP > 0 the master first broadcasts its parameters
 * SETUP times (a long start before the dealing, as a real master's input and setup).
 * usage: master_worker TASKS [SETUP] */
#include <mpi.h>
#include <stdlib.h>
#include "counts.h"

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long tasks = argc > 1 ? atol(argv[1]) : 200;
  long setup = argc > 2 ? atol(argv[2]) : 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  for (long i = 0; i < setup; i++) {
    long parameters[2] = { tasks, i };
    MPI_Bcast(parameters, 2, MPI_LONG, 0, MPI_COMM_WORLD), n_coll++;
  }
  double checksum = 0;
  if (size < 2) {
    fprintf(stderr, "master_worker: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    uint64_t seed = 12345;
    long next = 0, *per_worker = calloc((size_t)size, sizeof(long));
    int active = 0;
    for (int w = 1; w < size; w++) {
      if (next < tasks) {
        double u = (double)(splitmix64(&seed) >> 11) / 9007199254740992.0;
        long cost = 1 + (long)(40 * u * u * u);
        MPI_Send(&cost, 1, MPI_LONG, w, TAG_TASK, MPI_COMM_WORLD), n_send++;
        next++, active++;
      } else {
        long none = 0;
        MPI_Send(&none, 1, MPI_LONG, w, TAG_STOP, MPI_COMM_WORLD), n_send++;
      }
    }
    while (active > 0) {
      double result;
      MPI_Status st;
      MPI_Recv(&result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st), n_recv++;
      active--;
      checksum += result;
      per_worker[st.MPI_SOURCE]++;
      if (next < tasks) {
        double u = (double)(splitmix64(&seed) >> 11) / 9007199254740992.0;
        long cost = 1 + (long)(40 * u * u * u);
        MPI_Send(&cost, 1, MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD), n_send++;
        next++, active++;
      } else {
        long none = 0;
        MPI_Send(&none, 1, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD), n_send++;
      }
    }
    for (int w = 1; w < size; w++) printf("results from=%d count=%ld\n", w, per_worker[w]);
    free(per_worker);
  } else {
    for (;;) {
      long cost;
      MPI_Status st;
      MPI_Recv(&cost, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st), n_recv++;
      if (st.MPI_TAG == TAG_STOP) break;
      compute_begin();
      double result = spin_work(cost * 50);
      compute_end();
      MPI_Send(&result, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD), n_send++;
    }
  }
  double total;
  MPI_Reduce(&checksum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), n_coll++;
  if (rank == 0) printf("master_worker: %ld tasks, checksum %.3f\n", tasks, total);
  report_counts(rank);
  MPI_Finalize();
  return 0;
}
