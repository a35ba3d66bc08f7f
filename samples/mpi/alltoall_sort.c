/* Bucket sort across ranks: each round every rank makes KEYS skewed keys, exchanges bucket
 * counts with MPI_Alltoall and the keys with MPI_Alltoallv, sorts what it got, and checks the
 * global order with MPI_Sendrecv to its neighbours; an MPI_Allreduce sums the keys at the end.
 * usage: alltoall_sort KEYS_PER_RANK ROUNDS */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "counts.h"

static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long keys = argc > 1 ? atol(argv[1]) : 100000, rounds = argc > 2 ? atol(argv[2]) : 4;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mark_start();
  uint32_t *mine = malloc(sizeof(uint32_t) * (size_t)keys), *sorted = NULL, *sendbuf = malloc(sizeof(uint32_t) * (size_t)keys);
  int *scount = calloc((size_t)size, sizeof(int)), *rcount = calloc((size_t)size, sizeof(int));
  int *sdisp = calloc((size_t)size, sizeof(int)), *rdisp = calloc((size_t)size, sizeof(int));
  uint64_t seed = 777 + (uint64_t)rank, checksum = 0;
  long unsorted = 0;
  for (long round = 0; round < rounds; round++) {
    compute_begin();
    for (long i = 0; i < keys; i++) {
      uint64_t r = splitmix64(&seed);
      /* skewed: a third of the keys fall into the middle quarter of the range */
      mine[i] = (r & 3) == 0 ? (uint32_t)(0x60000000u + ((r >> 32) & 0x3fffffff)) : (uint32_t)(r >> 32);
    }
    memset(scount, 0, sizeof(int) * (size_t)size);
    for (long i = 0; i < keys; i++) scount[(uint64_t)mine[i] * (uint64_t)size >> 32]++;
    for (int p = 1; p < size; p++) sdisp[p] = sdisp[p - 1] + scount[p - 1];
    int *fill = calloc((size_t)size, sizeof(int));
    for (long i = 0; i < keys; i++) {
      int b = (int)((uint64_t)mine[i] * (uint64_t)size >> 32);
      sendbuf[sdisp[b] + fill[b]++] = mine[i];
    }
    free(fill);
    compute_end();
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD), n_coll++;
    long total = rcount[0];
    for (int p = 1; p < size; p++) rdisp[p] = rdisp[p - 1] + rcount[p - 1], total += rcount[p];
    sorted = realloc(sorted, sizeof(uint32_t) * (size_t)(total ? total : 1));
    MPI_Alltoallv(sendbuf, scount, sdisp, MPI_UINT32_T, sorted, rcount, rdisp, MPI_UINT32_T, MPI_COMM_WORLD), n_coll++;
    compute_begin();
    qsort(sorted, (size_t)total, sizeof(uint32_t), by_value);
    for (long i = 0; i < total; i++) checksum += sorted[i];
    compute_end();
    uint32_t my_max = total ? sorted[total - 1] : 0, left_max = 0;
    int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&my_max, 1, MPI_UINT32_T, right, 5, &left_max, 1, MPI_UINT32_T, left, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (right != MPI_PROC_NULL) n_send++;
    if (left != MPI_PROC_NULL) n_recv++;
    if (total && left != MPI_PROC_NULL && left_max > sorted[0]) unsorted++;
  }
  uint64_t all;
  MPI_Allreduce(&checksum, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), n_coll++;
  if (rank == 0) printf("alltoall_sort: checksum %llu\n", (unsigned long long)all);
  if (unsorted) printf("alltoall_sort: rank %d saw %ld unsorted rounds\n", rank, unsorted);
  report_counts(rank);
  free(mine), free(sorted), free(sendbuf), free(scount), free(rcount), free(sdisp), free(rdisp);
  MPI_Finalize();
  return 0;
}
