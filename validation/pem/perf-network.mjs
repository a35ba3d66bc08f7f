// The CPU a program's processes spend in the kernel's network path, from `perf record -a -g`
// samples: the kernel keeps no account of it apart (no IRQ time accounting here, and on veth the
// receiving stack runs on the sending CPU, inside the sender's system call). Each sample of the
// processes named `comm` is counted once, by its call stack: the program and its libraries; the
// kernel's network path (TCP, IP, veth, netfilter, socket copies) other than waiting; socket polls
// and sched_yield (a rank waiting in MPI); the rest of the kernel (context switches, page faults).
// Used by networks.mjs (the table's messageCpu) and tcp-work.sh; alone:
//   node validation/pem/perf-network.mjs PERF_DATA COMM UNITS   (CPU per unit: message, step, ...)

import './closed-pipe.mjs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const NETWORK_PATH = /^(_*tcp|_*ip_|_*skb|veth|_*net|_*sock|nf_|ipt_|_*dev_|loopback|_*inet|eth_|napi|bbr|_*sk_|_copy_(from|to)_iter|_*alloc_skb|page_frag|process_backlog|validate_xmit)/;
// A sample inside a poll or a yield is waiting, whatever socket code it is in (tcp_poll, ...).
const WAITING = new Set(['do_sys_poll', 'do_poll', 'sock_poll', 'tcp_poll', 'do_sched_yield', 'do_epoll_wait', 'ep_poll']);
const FRAME = /^\s+[0-9a-f]+ (\S+) \((.*)\)\s*$/;

/** Seconds of CPU by kind for the samples of `comm` in `perf script -F comm,tid,ip,sym,dso` text, sampled at `hz`. */
export function networkCpu(perfScript, comm, hz) {
  const seconds = { program: 0, network: 0, waiting: 0, kernel: 0 };
  let current = null;
  let stack = [];
  const done = () => {
    if (current !== comm || stack.length === 0) return;
    const dso = stack[0][1];
    const kind = dso !== '[kernel.kallsyms]' ? 'program' : stack.some(([name]) => WAITING.has(name)) ? 'waiting' : stack.some(([name]) => NETWORK_PATH.test(name)) ? 'network' : 'kernel';
    seconds[kind] += 1 / hz;
  };
  for (const line of perfScript.split('\n')) {
    if (line.trim() === '') {
      done();
      current = null;
      stack = [];
    } else if (!/^\s/.test(line)) {
      current = line.trim().split(/\s+/)[0];
      stack = [];
    } else {
      const frame = FRAME.exec(line);
      if (frame) stack.push([frame[1].split('+')[0], frame[2]]);
    }
  }
  done();
  return seconds;
}

/** `perf script` of `data` (it can be tens of megabytes). */
export async function perfScript(data) {
  const { stdout } = await promisify(execFile)('perf', ['script', '-i', data, '-F', 'comm,tid,ip,sym,dso'], { maxBuffer: 1 << 30 });
  return stdout;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [data, comm, units] = process.argv.slice(2);
  const seconds = networkCpu(await perfScript(data), comm, Number(process.env.PERF_HZ ?? 20000));
  for (const [kind, s] of Object.entries(seconds)) process.stdout.write(`${kind}: ${(s * 1e3).toFixed(1)} ms of CPU, ${((s / Number(units)) * 1e6).toFixed(2)} µs per unit\n`);
}
