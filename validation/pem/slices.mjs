// How long a computation keeps its core, in recorder traces of pinned runs with ranks sharing
// cores (validation/pem/validate.mjs --keep DIR):
//   npx tsc -p . && node validation/pem/slices.mjs DIR/master_worker-8-2-*/traces.otf2
// A computation (from the end of one MPI call to the start of the next) lost its core when its
// wall time exceeds its CPU time (the recorder's CPU_TIME metric) by 30 µs or more. Per length of
// CPU it prints how many lost it and the mean time lost. With the scheduler's slice S and tick T
// (docs/pem.md, "Taking turns") a computation of c > S loses it with odd (c − S) / T when a rank
// beside it is ready; under processor sharing every computation with a ready rank beside it would.

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tracesWithCpuClock } from './trace-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { EventRecord } = require(path.join(root, 'out/server/src/trace/otf2Events.js'));
const { openRankEvents } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));

const LOST = 30e-6;
/** Upper bounds of the CPU-time bins, milliseconds. */
const BINS = [0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, Infinity];
const bins = BINS.map(() => ({ computations: 0, lost: 0, lostSeconds: 0 }));

for (const { archive, cpuMetrics } of tracesWithCpuClock('slices.mjs')) {
  const perSecond = archive.defs.clock.ticksPerSecond;
  const mpi = new Set([...archive.defs.regions].filter(([, name]) => name.startsWith('MPI_')).map(([id]) => id));
  for (const rank of archive.ranks) {
    const reader = openRankEvents(archive, rank);
    // The CPU clock's metric record precedes the Enter or Leave it belongs to.
    let cpu = NaN;
    let leftAt = NaN;
    let leftCpu = NaN;
    while (reader.next()) {
      if (reader.type === EventRecord.Metric && cpuMetrics.has(reader.metric) && reader.metricValues.length > 0) cpu = reader.metricValues[0];
      else if (reader.type === EventRecord.Enter && mpi.has(reader.region) && !Number.isNaN(leftAt)) {
        const wall = (reader.time - leftAt) / perSecond;
        const used = (cpu - leftCpu) * 1e-9;
        const bin = bins[BINS.findIndex((upper) => used * 1e3 < upper)];
        bin.computations++;
        if (wall - used >= LOST) {
          bin.lost++;
          bin.lostSeconds += wall - used;
        }
      } else if (reader.type === EventRecord.Leave && mpi.has(reader.region)) {
        leftAt = reader.time;
        leftCpu = cpu;
      }
    }
    reader.close();
  }
}

let lower = 0;
for (const [i, bin] of bins.entries()) {
  if (bin.computations > 0) {
    const share = ((100 * bin.lost) / bin.computations).toFixed(0);
    const mean = bin.lost > 0 ? ((bin.lostSeconds / bin.lost) * 1e3).toFixed(2) : '-';
    process.stdout.write(`CPU ${lower}–${BINS[i]} ms: ${bin.computations} computations, ${share}% lost the core (mean ${mean} ms lost)\n`);
  }
  lower = BINS[i];
}
