// PEM against the calibration's own program: the relaying ping-pong (k ranks on core 0, k/2 pairs
// bouncing a 0-byte message, a round trip over k) run untraced and under the recorder for k = 2,
// 4 and 8, and each traced run predicted from its own trace with that repetition's measurements
// (relaying turns, the recorder's cost per call and per turn) over this machine's table
// (samples/mpi/comm-table.json). A program that is nothing but turns on a shared core shows what
// PEM charges a turn when the tracer stays (docs/pem.md, "The recorder's hidden cost per turn"):
//   npx tsc -p . && scripts/build-mpi.sh && node validation/pem/relay-replay.mjs [--reps 3] [--keep DIR]
// Per repetition and k: the untraced and traced turns, the prediction's error, and the smallest
// CPU of one MPI_Recv in the trace, which PEM charges every receive: where every receive waits
// (here at 2 and 4 ranks; the recorder estimates a read under 5 µs after the last as the wall
// time) it holds the other ranks' turns, and the prediction is long.

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { measureRecorderCosts } = require(path.join(root, 'out/server/src/mpi/calibration.js'));
const { loadCommTable } = require(path.join(root, 'out/server/src/network/commTable.js'));
const { predictScenarios } = require(path.join(root, 'out/server/src/pem/index.js'));
const { openOtf2Archive } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const reps = Number(option('reps', '3'));
const keep = option('keep');
const work = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-relay-replay-'));
const machine = loadCommTable(path.join(root, 'samples/mpi/comm-table.json'));
const us = (seconds) => (seconds * 1e6).toFixed(3);

/** The smallest CPU of one MPI_Recv over the trace's ranks (the recorder's whole-run figure). */
function smallestRecv(trace) {
  const archive = openOtf2Archive(trace);
  return Math.min(...archive.ranks.map((rank) => rank.smallestCallCpu?.get('MPI_Recv') ?? Infinity));
}

try {
  for (let rep = 0; rep < reps; rep++) {
    const dir = path.join(work, `rep-${rep}`);
    const { relayTurn, recorderCallSeconds, recorderTurn, traced } = await measureRecorderCosts([2, 4, 8], 0, undefined, dir);
    const table = { ...machine, relayTurn, recorderCallSeconds, recorderTurn };
    process.stdout.write(`repetition ${rep + 1}: recorder per call ${us(recorderCallSeconds)} µs, per turn ${recorderTurn.map((p) => `${p.ranksPerCore}: ${us(p.seconds)} µs`).join(', ')}\n`);
    for (const turn of traced) {
      const trace = path.join(dir, `relay-${turn.ranksPerCore}`, 'traces.otf2');
      const prediction = await predictScenarios(trace, [], { tracedNetwork: table });
      const error = (prediction.scenarios[0].predictedSeconds / prediction.measuredSeconds - 1) * 100;
      const untraced = relayTurn.find((p) => p.ranksPerCore === turn.ranksPerCore).seconds;
      process.stdout.write(
        `  ${turn.ranksPerCore} ranks: turn ${us(untraced)} µs untraced, ${us(turn.seconds)} µs traced (its gaps ${us(turn.gapSeconds)} µs, ${turn.realReads.toFixed(2)} real clock reads); ` +
          `predicted ${error >= 0 ? '+' : ''}${error.toFixed(1)}%; smallest MPI_Recv ${us(smallestRecv(trace))} µs\n`,
      );
    }
  }
} finally {
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
}
