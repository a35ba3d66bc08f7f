/**
 * The latency of a load that misses the caches, measured where the bench runs: a walk through a
 * random cycle of indices (each load's address is the previous load's value, so no two overlap).
 * On the AMD EPYC VM a walk over 1 MiB took 8–10 ns a load, and one over 8 MiB 98–124 ns at one
 * hour and 19–78 ns the next (256 MiB: 216 ns): beyond the 1 MiB L2 of a core, the 32 MiB L3 the
 * CPU reports is shared with the host's other work, and at times a miss costs what memory costs
 * (docs/pem.md, Performance, 2026-11-28). A replay of many ranks touches each rank's
 * objects about once per round of all ranks, so its time per operation follows this latency.
 * Run as a script (`node out/bench/memoryLatency.js`) it prints the walks over 1 MiB and 8 MiB as
 * JSON: a bench runs it in a process of its own, so that its arrays stay out of the bench's memory.
 */
import { mulberry32 } from '../server/src/causal/random';

/** Nanoseconds per dependent load on a random cycle through `bytes` of memory. */
export function chaseNanoseconds(bytes: number, loads = 4_000_000): number {
  const next = randomCycle(Math.max(2, Math.floor(bytes / 4)));
  // A first walk pages the array in and lets the loop be compiled.
  walk(next, Math.min(loads, next.length));
  const start = process.hrtime.bigint();
  const end = walk(next, loads);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  // Using where the walk ended keeps V8 from dropping it; an index outside the array is a broken cycle.
  if (!(end >= 0 && end < next.length)) throw new Error(`the walk left its cycle at ${end}`);
  return (seconds * 1e9) / loads;
}

/** One cycle through every index (Sattolo's shuffle), so that a walk never settles in a short loop. */
function randomCycle(length: number): Int32Array {
  const next = new Int32Array(length);
  for (let i = 0; i < length; i++) next[i] = i;
  const random = mulberry32(42);
  for (let i = length - 1; i > 0; i--) {
    const j = Math.floor(random() * i);
    const swap = next[i];
    next[i] = next[j];
    next[j] = swap;
  }
  return next;
}

/** Follows the cycle for `loads` steps from index 0; returns where it ends (used, so the loop stays). */
function walk(next: Int32Array, loads: number): number {
  let at = 0;
  for (let i = 0; i < loads; i++) at = next[at];
  return at;
}

if (require.main === module) {
  process.stdout.write(`${JSON.stringify({ chaseNs1MiB: +chaseNanoseconds(2 ** 20).toFixed(1), chaseNs8MiB: +chaseNanoseconds(8 * 2 ** 20).toFixed(1) })}\n`);
}
