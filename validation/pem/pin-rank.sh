#!/bin/sh
# Runs one MPI rank pinned to the core of its emulated node: pin-rank.sh NODES PROGRAM ARGS...
# Ranks are spread over NODES nodes in blocks (rank r of N is on node floor(r * NODES / N)) and
# node k is core k, so "8/2" is ranks 0-3 on core 0 and 4-7 on core 1 (placement.md: one machine,
# nodes emulated by pinning). Open MPI sets OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE.
set -eu
nodes=$1
shift
rank=${OMPI_COMM_WORLD_RANK:?run under Open MPI mpirun}
size=${OMPI_COMM_WORLD_SIZE:?run under Open MPI mpirun}
exec taskset -c $((rank * nodes / size)) "$@"
