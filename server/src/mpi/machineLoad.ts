// How busy this machine is while a measurement runs nothing of its own. A calibration's ranks
// wait in MPI by yielding their core, so any other process that wants it gets it first: with a
// compile running beside it, the calibrate test's 0-byte one-way came out 463 µs where it is
// 0.7 µs (2026-11-26). Such a table makes every prediction from it wrong, so calibrate says so.

import * as os from 'node:os';

/** The share of all CPUs' time spent busy (user, nice, system, interrupts) over the next `seconds`. */
export async function busyShare(seconds: number): Promise<number> {
  const before = os.cpus();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = os.cpus();
  let busy = 0;
  let total = 0;
  after.forEach((cpu, i) => {
    const was = before[i]?.times;
    if (!was) return;
    const used = cpu.times.user - was.user + (cpu.times.nice - was.nice) + (cpu.times.sys - was.sys) + (cpu.times.irq - was.irq);
    busy += used;
    total += used + (cpu.times.idle - was.idle);
  });
  return total > 0 ? busy / total : 0;
}
