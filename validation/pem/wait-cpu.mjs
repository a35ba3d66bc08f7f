// How much CPU ranks spend inside their waiting MPI calls, in recorder traces of pinned runs
// (validation/pem/validate.mjs --keep DIR):
//   npx tsc -p . && node validation/pem/wait-cpu.mjs DIR/halo-8-2-0/traces.otf2 DIR/halo-8-1-0/traces.otf2
// Per trace: for each rank, the CPU time inside its waiting calls (receives, waits, tests,
// collectives) over their wall time, and, over all ranks, that CPU's share of all the ranks'
// CPU. PEM takes a rank blocked in MPI to use no CPU (docs/pem.md, "a lead on the N/2
// shortfalls"). The recorder reads the CPU clock for real only 5 µs or more after the last read
// and advances it by the wall time in between, so calls shorter than that count as all CPU.

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tracesWithCpuClock } from './trace-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { openRankEvents } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { EventRecord } = require(path.join(root, 'out/server/src/trace/otf2Events.js'));

const WAITING = /^MPI_(Recv|Wait.*|Test.*|Barrier|Allreduce|Reduce|Alltoallv?|Sendrecv)$/;

for (const { trace, archive, cpuMetrics } of tracesWithCpuClock('wait-cpu.mjs')) {
  const ticks = archive.defs.clock.ticksPerSecond;
  const waiting = new Set([...archive.defs.regions].filter(([, name]) => WAITING.test(name)).map(([id]) => id));
  const shares = [];
  let waitCpu = 0;
  let allCpu = 0;
  for (const rank of archive.ranks) {
    const reader = openRankEvents(archive, rank);
    let cpu = NaN;
    let firstCpu = NaN;
    let enteredAt = NaN;
    let enteredCpu = NaN;
    let inWaiting = false;
    let wall = 0;
    let spent = 0;
    while (reader.next()) {
      if (reader.type === EventRecord.Metric && cpuMetrics.has(reader.metric) && reader.metricValues.length > 0) {
        cpu = reader.metricValues[0];
        if (Number.isNaN(firstCpu)) firstCpu = cpu;
      } else if (reader.type === EventRecord.Enter) {
        inWaiting = waiting.has(reader.region);
        enteredAt = reader.time;
        enteredCpu = cpu;
      } else if (reader.type === EventRecord.Leave && inWaiting) {
        wall += (reader.time - enteredAt) / ticks;
        spent += (cpu - enteredCpu) * 1e-9;
        inWaiting = false;
      }
    }
    reader.close();
    shares.push(wall > 0 ? `${((spent / wall) * 100).toFixed(1)}%` : '-');
    waitCpu += spent;
    allCpu += (cpu - firstCpu) * 1e-9;
  }
  process.stdout.write(`${trace}: CPU over wall time inside waiting calls, per rank: ${shares.join(' ')}; all ranks: ${(waitCpu * 1e3).toFixed(1)} ms of ${(allCpu * 1e3).toFixed(1)} ms of CPU (${((waitCpu / allCpu) * 100).toFixed(1)}%)\n`);
}
