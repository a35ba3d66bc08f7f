#!/bin/sh
# Where the halo's ranks spend their CPU over unshaped TCP between the netns kit's two nodes
# (docs/pem.md, Networks, "the recorder opens every connection"): perf samples every CPU at 20 kHz
# during one untraced run (4 ranks, 2 per node, Open MPI over TCP), and the halo processes'
# samples are split by their call stacks into the program's own code and libraries, the kernel's
# network path (TCP, IP, veth, netfilter, socket copies) other than polling sockets, socket polls
# and sched_yield (waiting), and the rest of the kernel (context switches, page faults, ...):
# perf-network.mjs.
# As root, with the kit prepared (networks.mjs's header) and the link unshaped:
#   validation/pem/tcp-work.sh KIT [STEPS]
set -eu
kit=$1
steps=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
build=${CAUSAL_LENS_MPI_BUILD:-$here/../../build/mpi}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
perf record -q -a -e cpu-clock -F 20000 -g -o "$out/perf.data" -- \
  "$kit/mpirun-ns.sh" -np 4 --hostfile "$kit/hosts4" --mca btl tcp,self --mca mpi_yield_when_idle 1 --bind-to none \
  "$here/pin-rank.sh" 2 "$build/halo" 400000 "$steps" > "$out/run.out" 2> "$out/perf.err"
grep '^elapsed rank=0' "$out/run.out"
node "$here/perf-network.mjs" "$out/perf.data" halo "$steps" | sed 's/per unit/per step/'
