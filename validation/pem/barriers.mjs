// What a program's MPI_Barrier calls cost in recorder traces of pinned runs
// (validation/pem/validate.mjs --keep DIR):
//   npx tsc -p . && node validation/pem/barriers.mjs DIR/latency-8-2-0/traces.otf2 DIR/latency-4-1-0/traces.otf2
// Per trace, over its barriers after the first: the mean time from the first rank's entry to the
// last rank's (the spread: how far apart the ranks arrive), from the last entry to the last exit
// (the barrier itself), and, when the ranks ran on two or more CPU sets (emulated nodes), each
// set's mean segment (from its last rank leaving one barrier to its last rank entering the next)
// and the mean difference between the first two sets' segments, signed and absolute: a barrier
// waits for the slower set, which PEM's replay, where every core keeps one pace, does not see
// (docs/pem.md, "seven repetitions, and why latency 8/2 is slower than 4/1").

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openedTraces } from './trace-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { openRankEvents } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { EventRecord } = require(path.join(root, 'out/server/src/trace/otf2Events.js'));

const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
const us = (seconds) => `${(seconds * 1e6).toFixed(1)} µs`;

/** Each rank's barrier entries and exits, in seconds. */
function barrierTimes(archive, rank, barrier) {
  const ticks = archive.defs.clock.ticksPerSecond;
  const reader = openRankEvents(archive, rank);
  const entries = [];
  const exits = [];
  let depth = 0;
  let inBarrier = false;
  while (reader.next()) {
    if (reader.type === EventRecord.Enter) {
      if (depth++ === 0 && reader.region === barrier) {
        inBarrier = true;
        entries.push(reader.time / ticks);
      }
    } else if (reader.type === EventRecord.Leave && --depth === 0 && inBarrier) {
      inBarrier = false;
      exits.push(reader.time / ticks);
    }
  }
  reader.close();
  return { entries, exits };
}

for (const { trace, archive } of openedTraces('barriers.mjs')) {
  const barrier = [...archive.defs.regions].find(([, name]) => name === 'MPI_Barrier')?.[0];
  if (barrier === undefined) {
    process.stdout.write(`${trace}: no MPI_Barrier region\n`);
    continue;
  }
  const times = archive.ranks.map((rank) => barrierTimes(archive, rank, barrier));
  const count = Math.min(...times.map((t) => Math.min(t.entries.length, t.exits.length)));
  if (count < 2) {
    process.stdout.write(`${trace}: a rank with ${count} barrier(s): too few to compare\n`);
    continue;
  }
  const spreads = [];
  const completions = [];
  for (let i = 1; i < count; i++) {
    const firstEntry = Math.min(...times.map((t) => t.entries[i]));
    const lastEntry = Math.max(...times.map((t) => t.entries[i]));
    spreads.push(lastEntry - firstEntry);
    completions.push(Math.max(...times.map((t) => t.exits[i])) - lastEntry);
  }
  let line = `${trace}: ${count} barriers; ranks arrive ${us(mean(spreads))} apart, the last entry to the last exit ${us(mean(completions))}`;
  // Ranks by the CPU set they were pinned to (the recorder's causal_lens:cpu_set), in rank order.
  const sets = new Map();
  archive.ranks.forEach((rank, i) => {
    const key = rank.cpuSet ?? `host ${rank.host}`;
    if (!sets.has(key)) sets.set(key, []);
    sets.get(key).push(i);
  });
  if (sets.size >= 2) {
    const segments = [...sets.values()].map((members) => {
      const each = [];
      for (let i = 1; i < count; i++) {
        const left = Math.max(...members.map((m) => times[m].exits[i - 1]));
        each.push(Math.max(...members.map((m) => times[m].entries[i])) - left);
      }
      return each;
    });
    const [a, b] = segments;
    const signed = mean(a.map((s, i) => s - b[i]));
    const absolute = mean(a.map((s, i) => Math.abs(s - b[i])));
    line += `; segments per CPU set ${[...sets.keys()].map((key, i) => `${key}: ${us(mean(segments[i]))}`).join(', ')}; first two sets differ by ${us(signed)} (signed), ${us(absolute)} (absolute)`;
  }
  process.stdout.write(`${line}\n`);
}
