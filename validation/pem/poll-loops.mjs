// The polling loops PEM reads from recorder traces, and the share of a core it gives a rank
// waiting in one (docs/pem.md, Semantics, "Polling loops"):
//   npx tsc -p . && node validation/pem/poll-loops.mjs DIR/pipeline-8-2-0/traces.otf2 DIR/pipeline-8-1-0/traces.otf2
// Per trace: the waits that come from polling loops (MPI_Test-family calls failing before one
// completes), their mean poll interval τ (the CPU of one poll and the computation after it), the
// computation per wait over all ranks (what a computing rank's turn lasts), and τ over it, the
// weight such a wait has beside a running rank (the engine measures that computation as the
// replay goes, per node, so its weights differ somewhat).

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openedTraces } from './trace-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { communicatorRanks } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { Otf2RankStream, cpuTimeMetrics } = require(path.join(root, 'out/server/src/pem/otf2Ops.js'));

for (const { trace, archive } of openedTraces('poll-loops.mjs')) {
  const communicators = communicatorRanks(archive.defs);
  const cpuMetrics = cpuTimeMetrics(archive);
  let loops = 0;
  let intervals = 0;
  let computed = 0;
  let waits = 0;
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, communicators, cpuMetrics, archive.defs.clock.globalOffset);
    for (let op = stream.next(); op; op = stream.next()) {
      computed += op.compute;
      // Waits are the only operations that name requests (PemOp.requests).
      if (op.requests.length > 0) waits++;
      if (op.pollInterval) {
        loops++;
        intervals += op.pollInterval;
      }
    }
    stream.close();
  }
  if (loops === 0) {
    process.stdout.write(`${trace}: no polling loops\n`);
    continue;
  }
  const tau = intervals / loops;
  const turn = computed / waits;
  process.stdout.write(`${trace}: ${loops} waits from polling loops, mean poll τ ${(tau * 1e6).toFixed(2)} µs; computation per wait ${(turn * 1e6).toFixed(1)} µs; weight τ / it ${(tau / turn).toFixed(3)}\n`);
}
