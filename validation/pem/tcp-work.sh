#!/bin/sh
# Where the halo's ranks spend their CPU over unshaped TCP between the netns kit's two nodes
# (docs/pem.md, Networks, "the recorder opens every connection"): perf samples every CPU at 20 kHz
# during one untraced run (4 ranks, 2 per node, Open MPI over TCP), and the halo processes'
# samples are split by their call stacks into the program's own code and libraries, the kernel's
# network path (TCP, IP, veth, netfilter, socket copies) other than polling sockets, socket polls
# and sched_yield (waiting), and the rest of the kernel (context switches, page faults, ...).
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
perf script -i "$out/perf.data" -F comm,tid,ip,sym,dso 2> /dev/null | python3 -c '
import re, sys
steps = int(sys.argv[1])
network = re.compile(r"^(_*tcp|_*ip_|_*skb|veth|_*net|_*sock|nf_|ipt_|_*dev_|loopback|_*inet|eth_|napi|bbr|_*sk_|_copy_(from|to)_iter|_*alloc_skb|page_frag|process_backlog|validate_xmit)")
waiting = {"sock_poll", "tcp_poll", "do_sched_yield", "do_sys_poll"}
counts = {"program and libraries": 0, "kernel, network path": 0, "kernel, socket polls and yields": 0, "kernel, other": 0}
comm, stack = None, []
def done():
    if comm != "halo" or not stack:
        return
    if stack[0][1] != "[kernel.kallsyms]":
        counts["program and libraries"] += 1
    elif stack[0][0] in waiting:
        counts["kernel, socket polls and yields"] += 1
    elif any(network.match(name) for name, _ in stack):
        counts["kernel, network path"] += 1
    else:
        counts["kernel, other"] += 1
for line in sys.stdin:
    if not line.strip():
        done()
        comm, stack = None, []
    elif not line[0].isspace():
        comm, stack = line.split()[0], []
    else:
        frame = re.match(r"\s+[0-9a-f]+ (\S+) \((.*)\)\s*$", line)
        if frame:
            stack.append((frame.group(1).split("+")[0], frame.group(2)))
done()
sample_us = 1e6 / 20000
for what, n in counts.items():
    print(f"{what}: {n * sample_us / 1e3:.1f} ms of CPU, {n * sample_us / steps:.1f} us per step")
' "$steps"
