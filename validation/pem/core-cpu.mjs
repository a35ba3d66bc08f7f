// Each emulated node's CPU in recorder traces of pinned runs (validation/pem/validate.mjs --keep DIR):
//   npx tsc -p . && NODES=2 node validation/pem/core-cpu.mjs DIR/pipeline-8-2-0/traces.otf2
// Per trace: the run's span and, per node (rank r of N on node floor(r * NODES / N), one core
// each), its ranks' CPU over that span, the part inside MPI calls and the five calls with the
// most. A node near 100% is saturated: the run's time is then its CPU, whatever the ranks did
// with it (a rank waiting in MPI with mpi_yield_when_idle still spins between its yields).
// Beside it, the replay's: the trace predicted for its own placement with its own computations
// and the kept run's table (DIR/measured.json), its nodes' CPU (the ranks' computations, and
// their calls' work, switches back and polls, ScenarioResult.perRank): on a saturated node, CPU
// the replay does not give is time it cannot predict (beyond the ranks' CPU, a saturated node's
// predicted time holds its waiting ranks' turns, which belong to no one rank).

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tracesWithCpuClock } from './trace-args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { openRankEvents } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { predictScenarios } = require(path.join(root, 'out/server/src/pem/index.js'));
const { EventRecord } = require(path.join(root, 'out/server/src/trace/otf2Events.js'));

const nodes = Number(process.env.NODES ?? 2);
const ms = (seconds) => (seconds * 1e3).toFixed(1);

for (const { trace, archive, cpuMetrics } of tracesWithCpuClock('core-cpu.mjs')) {
  const ticks = archive.defs.clock.ticksPerSecond;
  const ranks = archive.ranks.length;
  /** pin-rank.sh's placement: rank r of N on node ⌊r·NODES/N⌋. */
  const nodeOf = (rank) => Math.floor((rank * nodes) / ranks);
  const perNode = Array.from({ length: nodes }, () => ({ cpu: 0, inCalls: 0, byCall: new Map() }));
  let first = Infinity;
  let last = -Infinity;
  for (const rank of archive.ranks) {
    const node = perNode[nodeOf(rank.rank)];
    const reader = openRankEvents(archive, rank);
    let cpu = NaN;
    let firstCpu = NaN;
    let enteredCpu = NaN;
    let region = -1;
    while (reader.next()) {
      const seconds = reader.time / ticks;
      first = Math.min(first, seconds);
      last = Math.max(last, seconds);
      if (reader.type === EventRecord.Metric && cpuMetrics.has(reader.metric) && reader.metricValues.length > 0) {
        cpu = reader.metricValues[0] * 1e-9;
        if (Number.isNaN(firstCpu)) firstCpu = cpu;
      } else if (reader.type === EventRecord.Enter) {
        region = reader.region;
        enteredCpu = cpu;
      } else if (reader.type === EventRecord.Leave && region >= 0) {
        const spent = cpu - enteredCpu;
        const name = archive.defs.regions.get(region);
        node.inCalls += spent;
        node.byCall.set(name, (node.byCall.get(name) ?? 0) + spent);
        region = -1;
      }
    }
    reader.close();
    node.cpu += cpu - firstCpu;
  }
  const span = last - first;
  process.stdout.write(`${trace}: span ${ms(span)} ms\n`);
  const replay = await replayedCpu(trace, nodeOf);
  perNode.forEach((node, i) => {
    const top = [...node.byCall].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, spent]) => `${name} ${ms(spent)}`);
    process.stdout.write(`  node ${i}: CPU ${ms(node.cpu)} ms (${((node.cpu / span) * 100).toFixed(0)}%), in calls ${ms(node.inCalls)} ms: ${top.join(', ')}\n`);
    if (replay) process.stdout.write(`    replay: CPU ${ms(replay.perNode[i].compute + replay.perNode[i].calls)} ms (${ms(replay.seconds)} ms predicted), in calls ${ms(replay.perNode[i].calls)} ms\n`);
  });
}

/** The replay's CPU per node, or undefined (said on stderr) when the trace's kept run has no table. */
async function replayedCpu(trace, nodeOf) {
  const table = path.join(path.dirname(path.dirname(path.resolve(trace))), 'measured.json');
  if (!fs.existsSync(table)) {
    process.stderr.write(`${trace}: no replay, ${table} does not exist (validate.mjs --keep DIR makes it)\n`);
    return undefined;
  }
  const tracedNetwork = JSON.parse(fs.readFileSync(table, 'utf8')).traced;
  const [scenario] = (await predictScenarios(trace, [{}], { tracedNetwork, coresPerNode: 1, computeFrom: trace })).scenarios;
  const perNode = Array.from({ length: nodes }, () => ({ compute: 0, calls: 0 }));
  for (const r of scenario.perRank) {
    const node = perNode[nodeOf(r.rank)];
    node.compute += r.computeCpuSeconds;
    node.calls += r.callCpuSeconds;
  }
  return { seconds: scenario.predictedSeconds, perNode };
}
