#!/bin/sh
# Shapes the kit's link like its shape.sh (same rule: each packet held for delay + size/rate), but
# with one link emulator per receiving namespace, pinned to that emulated node's core:
#   shape-per-node.sh KIT RATE_MBIT|none DELAY_US
# The kit runs one nfqdelay (SCHED_FIFO) for both directions on whichever core the scheduler
# picks, so one node's ranks lose the CPU of all the traffic (measured: computations of the rank on
# that core took 16% longer than their CPU time, 0.5% on the other). Here the CPU of a packet is
# spent on the node that receives it, as a network stack's would be; networks.mjs measures it
# and hands it to PEM as the table's stackCpu. Node k is namespace nsk and core k (pin-rank.sh).
set -eu
kit=$1 rate=$2 delay=$3
"$kit/shape.sh" "$rate" "$delay" >/dev/null
[ -f "$kit/nfqdelay.pid" ] || exit 0
kill "$(cat "$kit/nfqdelay.pid")"
sleep 0.5
kbit=0
[ "$rate" = none ] || kbit=$(awk "BEGIN{print int($rate*1000)}")
pids=
for node in 0 1; do
  taskset -c "$node" "$kit/nfqdelay" "ns$node:0:$delay:$kbit" </dev/null >/dev/null 2>>"$kit/nfqdelay.log" &
  pids="$pids $!"
done
# The kit's shape.sh and teardown.sh stop every process named in this file.
echo $pids > "$kit/nfqdelay.pid"
# The kit's cpuguard.sh subtracts the CPU of one emulator from the machine's; with two, both join
# the cgroup it measures the run in, so that their CPU is the run's, not another process's.
cg=/sys/fs/cgroup/unified/netnsmpi
mkdir -p "$cg"
for pid in $pids; do echo "$pid" > "$cg/cgroup.procs"; done
sleep 0.3
