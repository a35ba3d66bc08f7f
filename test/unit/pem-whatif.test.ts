// `causal-lens whatif` and predictScenarios on real recorder traces of the samples/mpi programs
// made here: the JSON the issue specifies, every rank simulated to its end, and properties that
// must hold whatever the machine's speed (no timing is asserted).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runWhatif } from '../../server/src/cli/whatif';
import { whatIfForPanel, whatIfOptions } from '../../server/src/lsp/panelViews';
import { loadCommTable, modelCommTable, tableAtBound } from '../../server/src/network/commTable';
import { recordTrace, recorderEnv } from '../../server/src/mpi/recordTrace';
import { mpirunArgv, runMpi } from '../../server/src/mpi/launch';
import { collectiveWork, identityWarning, kernelSlowness, lowQuantile, NO_SPREAD_NOTE, predictScenarios, rankStartSeconds, resumeCosts, shareWaitWork, takeRecordedSmallest } from '../../server/src/pem';
import { communicatorRanks, openOtf2Archive, openRankEvents } from '../../server/src/trace/otf2Archive';
import { EventRecord } from '../../server/src/trace/otf2Events';
import { CALLS_KEPT_PER_REGION, cpuTimeMetrics, isResumedCall, Otf2RankStream } from '../../server/src/pem/otf2Ops';
import { mapPlacement, samePlacement, spreadPlacement, tracedPlacement, unpinnedOversubscribed } from '../../server/src/pem/scenario';
import { OpKind } from '../../server/src/pem/ops';
import { scenariosCsv } from '../../webview/src/exportFormats';
import { buildMpi, MPI_BUILD } from './mpiBuild';

const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-whatif-'));
after(() => fs.rmSync(WORK, { recursive: true, force: true }));
const COMM_TABLE = path.join(__dirname, '../../../samples/mpi/comm-table.json');
const traces = new Map<string, string>();

const PROGRAMS: [string, number, string[]][] = [
  ['master_worker', 4, ['60']],
  ['halo', 4, ['40000', '20']],
  ['alltoall_sort', 4, ['20000', '2']],
  // 512 KiB blocks: a stage's receive takes long enough that runs of failed MPI_Test polls occur
  // (with 16 KiB blocks some runs had none of two or more, which the poll test needs).
  ['pipeline', 4, ['30', '65536']],
  ['latency', 4, ['400']],
];

before(async () => {
  buildMpi();
  for (const [program, np, args] of PROGRAMS) {
    const summary = await recordTrace({ np, outDir: path.join(WORK, program), program: path.join(MPI_BUILD, program), args, flushThresholdBytes: 16384 });
    assert.equal(summary.truncated, undefined, `${program}: ${summary.truncated}`);
    traces.set(program, summary.archive);
  }
});

/**
 * The warning of a trace whose ranks outnumbered their cores unpinned: the traces recorded here run
 * 4 ranks on this machine's cores without pinning, which on a 2-core machine is such a trace.
 */
function unpinnedWarnings(trace: string): string[] {
  return unpinnedOversubscribed(openOtf2Archive(trace).ranks).map(
    (node) => `${node.ranks} ranks shared cores ${node.cpuSet} without being pinned to one each: Linux moved them between the cores, which PEM does not model (it runs a node's ranks in turns from one queue), so predictions from this trace come out short; pin each rank to a core when recording a trace to predict from`,
  );
}

async function whatif(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runWhatif(args, (t) => (out += t), (t) => (err += t));
  return { code, out, err };
}

test('whatif --json: the shape the issue specifies, one scenario per placement × network, every rank finishes', async () => {
  for (const [program, np] of PROGRAMS) {
    const { code, out, err } = await whatif(['--json', traces.get(program)!, '--traced-network', COMM_TABLE, '--placement', `${np}/1`, '--placement', `${np}/2:cyclic`, '--network', 'gbe', '--network', 'ethernet-10m', '--cores', '1']);
    // Notes say how the trace was replayed and are no problem: the exit code stays 0. The N/1
    // placements on one core share it, in turns with this machine's table (it has a slice).
    const table = loadCommTable(COMM_TABLE);
    const turns = `causal-lens whatif: note: ranks sharing a core take it in turns: each keeps it for a slice of ${(table.schedulerSliceSeconds! * 1e3).toFixed(2)} ms and up to the scheduler's next tick (every ${(table.schedulerTickSeconds! * 1e3).toFixed(2)} ms), or until it waits`;
    const dealt = program === 'master_worker' ? ['rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2, 3: in each prediction a task goes to the worker that asks first, with its traced work'] : [];
    const notes = [...unpinnedWarnings(traces.get(program)!).map((warning) => `causal-lens whatif: warning: ${warning}`), ...dealt.map((note) => `causal-lens whatif: note: ${note}`), turns];
    assert.deepEqual(err.split('\n').filter(Boolean), notes, `${program}: ${err}`);
    assert.equal(code, 0);
    const json = JSON.parse(out);
    assert.deepEqual(Object.keys(json), ['measuredSeconds', 'scenarios']);
    assert.ok(json.measuredSeconds > 0);
    assert.deepEqual(
      json.scenarios.map((s: { placement: string; network: string }) => [s.placement, s.network]),
      [
        [`${np}/1`, 'gbe'],
        [`${np}/1`, 'ethernet-10m'],
        [`${np}/2 cyclic`, 'gbe'],
        [`${np}/2 cyclic`, 'ethernet-10m'],
      ],
    );
    for (const s of json.scenarios) {
      assert.deepEqual(Object.keys(s), ['placement', 'network', 'predictedSeconds', 'perRank', 'criticalPath']);
      assert.equal(s.perRank.length, np);
      assert.ok(s.perRank.every((r: { finishSeconds: number }) => Number.isFinite(r.finishSeconds) && r.finishSeconds <= s.predictedSeconds));
      // A rank runs on one core at most: the CPU the replay gave it fits in its time, and it computed.
      for (const r of s.perRank as { rank: number; finishSeconds: number; computeCpuSeconds: number; callCpuSeconds: number }[]) {
        assert.ok(r.computeCpuSeconds > 0 && r.callCpuSeconds >= 0, `${program} rank ${r.rank}: ${r.computeCpuSeconds}, ${r.callCpuSeconds}`);
        assert.ok(r.computeCpuSeconds + r.callCpuSeconds <= r.finishSeconds + 1e-9, `${program} rank ${r.rank}: CPU ${r.computeCpuSeconds + r.callCpuSeconds} in ${r.finishSeconds}`);
      }
      const c = s.criticalPath;
      assert.ok(Math.abs(c.computeSeconds + c.commSeconds + c.waitSeconds - s.predictedSeconds) < 1e-9 * Math.max(1, s.predictedSeconds), `${program}: critical path adds up`);
    }
  }
});

test('with no scenario flag the traced configuration is predicted; bad flags are usage errors', async () => {
  const { code, out } = await whatif(['--json', traces.get('halo')!, '--traced-network', COMM_TABLE]);
  assert.equal(code, 0);
  const json = JSON.parse(out);
  assert.equal(json.scenarios.length, 1);
  assert.match(json.scenarios[0].placement, /^traced \(4\/1\)$/);
  // Without --json: the measured time, then each scenario with its prediction against it.
  const text = (await whatif([traces.get('halo')!, '--traced-network', COMM_TABLE])).out.split('\n');
  assert.equal(text[0], `measured ${json.measuredSeconds.toFixed(4)} s (suspensions removed)`);
  const vs = ((json.scenarios[0].predictedSeconds - json.measuredSeconds) / json.measuredSeconds) * 100;
  assert.ok(text[1].startsWith('traced (4/1)'), text[1]);
  assert.ok(text[1].includes(` ${json.scenarios[0].predictedSeconds.toFixed(4)} s (${vs >= 0 ? '+' : ''}${vs.toFixed(1)}% vs measured)  (critical path: compute `), text[1]);
  await assert.rejects(whatif(['--json', traces.get('halo')!, '--placement', '8/2']), /the trace has 4 ranks/);
  await assert.rejects(whatif(['--json', traces.get('halo')!, '--placement', 'two']), /is not N\/M/);
  await assert.rejects(whatif(['--json', path.join(WORK, 'none.otf2')]), /none\.otf2: cannot read the OTF2 anchor file/);
});

test('property: one rank per node, a slower network never predicts a faster run', async () => {
  for (const [program, np] of PROGRAMS) {
    const networks = [{ latencySeconds: 1e-6, bandwidthBytesPerSecond: 1e10 }, { latencySeconds: 1e-4, bandwidthBytesPerSecond: 1e8 }, { latencySeconds: 1e-3, bandwidthBytesPerSecond: 1e6 }];
    const prediction = await predictScenarios(traces.get(program)!, networks.map((network) => ({ nodes: np, network })), { coresPerNode: 1 });
    const times = prediction.scenarios.map((s) => s.predictedSeconds);
    for (let i = 1; i < times.length; i++) assert.ok(times[i] >= times[i - 1] - 1e-12, `${program}: ${times}`);
  }
});

test('property: all ranks on one core take at least their summed computation and no less than one core each', async () => {
  for (const [program, np] of PROGRAMS) {
    const archive = openOtf2Archive(traces.get(program)!);
    const comms = communicatorRanks(archive.defs);
    let cpu = 0;
    for (const rank of archive.ranks) {
      const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
      for (let op = stream.next(); op; op = stream.next()) cpu += op.compute;
    }
    const prediction = await predictScenarios(traces.get(program)!, [{ nodes: 1 }, { nodes: np }], { coresPerNode: 1 });
    const [shared, spread] = prediction.scenarios.map((s) => s.predictedSeconds);
    assert.ok(shared >= cpu - 1e-9, `${program}: ${shared} s on one core < ${cpu} s of computation`);
    assert.ok(shared >= spread - 1e-9, `${program}: one core (${shared}) faster than ${np} (${spread})`);
  }
});

/** The longest computation between two operations of any rank but `except` (a worker's longest task). */
function longestComputation(trace: string, except: number): number {
  const archive = openOtf2Archive(trace);
  const comms = communicatorRanks(archive.defs);
  let longest = 0;
  for (const rank of archive.ranks.filter((r) => r.rank !== except)) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    for (let o = stream.next(); o; o = stream.next()) longest = Math.max(longest, o.compute);
    stream.close();
  }
  return longest;
}

test('property: removing the tracing cost per call (auto) never predicts a slower run, one rank per node (a dealt master: by no more than one task)', async () => {
  for (const [program, np] of PROGRAMS) {
    const [withCost, withoutCost] = await Promise.all([
      predictScenarios(traces.get(program)!, [{ nodes: np }], { coresPerNode: 1 }),
      predictScenarios(traces.get(program)!, [{ nodes: np }], { coresPerNode: 1, eventCostSeconds: 'auto' }),
    ]);
    const a = withCost.scenarios[0].predictedSeconds;
    const b = withoutCost.scenarios[0].predictedSeconds;
    // Tasks dealt to whoever asks first are list scheduling: shorter tasks can deal them worse
    // (Graham's anomaly), but a greedy deal ends within one task of the work's share per
    // worker, which the run with the cost cannot beat.
    const slack = withCost.notes.length > 0 ? longestComputation(traces.get(program)!, 0) : 1e-12;
    assert.ok(b <= a + slack && b > 0, `${program}: ${b} with the cost removed, ${a} with it (slack ${slack})`);
  }
  await assert.rejects(whatif(['--json', traces.get('halo')!, '--event-cost-ns', 'lots']), /--event-cost-ns needs "auto"/);
});

test('computeFrom: the same trace changes nothing; a trace of other ranks is refused by name', async () => {
  const trace = traces.get('halo')!;
  const [own, same] = await Promise.all([
    predictScenarios(trace, [{ nodes: 1 }, { nodes: 4 }], { coresPerNode: 1 }),
    predictScenarios(trace, [{ nodes: 1 }, { nodes: 4 }], { coresPerNode: 1, computeFrom: trace }),
  ]);
  assert.deepEqual(same.scenarios, own.scenarios);
  assert.deepEqual(same.traceProblems, own.traceProblems);
  const twoRanks = await recordTrace({ np: 2, outDir: path.join(WORK, 'halo-2'), program: path.join(MPI_BUILD, 'halo'), args: ['40000', '20'] });
  await assert.rejects(predictScenarios(trace, [], { computeFrom: twoRanks.archive }), (error: Error) => error.message.includes(twoRanks.archive) && /2 ranks, the trace 4/.test(error.message));
});

test("timedCompute: the programs time their compute sections, and a target's timing scales each rank's computations", async () => {
  const again = await recordTrace({ np: 4, outDir: path.join(WORK, 'halo-timed'), program: path.join(MPI_BUILD, 'halo'), args: ['40000', '20'] });
  const timed = [...again.stdout.matchAll(/^compute rank=(\d+) seconds=([\d.]+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.deepEqual(timed.map(([rank]) => rank).sort(), [0, 1, 2, 3]);
  assert.ok(timed.every(([, seconds]) => seconds > 0), JSON.stringify(timed));
  const trace = traces.get('halo')!;
  const options = { coresPerNode: 1, computeFrom: again.archive };
  // In the target run rank 0 computed at half the speed, rank 2 at twice, the others as traced.
  const [asTraced, target] = await Promise.all([
    predictScenarios(trace, [{ nodes: 4 }], options),
    predictScenarios(trace, [{ nodes: 4 }], { ...options, timedCompute: { source: [1, 1, 1, 1], target: [2, 1, 0.5, 1] } }),
  ]);
  const cpu = (prediction: typeof asTraced, rank: number) => prediction.scenarios[0].perRank[rank].computeCpuSeconds;
  for (const [rank, scale] of [[0, 2], [1, 1], [2, 0.5], [3, 1]]) {
    assert.ok(Math.abs(cpu(target, rank) - scale * cpu(asTraced, rank)) <= 1e-12 * cpu(asTraced, rank), `rank ${rank}: ${cpu(target, rank)} against ${cpu(asTraced, rank)}`);
  }
  // Its neighbours wait for the slow rank at every exchange.
  assert.ok(target.scenarios[0].predictedSeconds > asTraced.scenarios[0].predictedSeconds);
});

test("--compute-from-network: the other trace's calls are read with the network it was recorded on", async () => {
  const trace = traces.get('halo')!;
  // Traced on a network whose rounds take no time, every Allreduce's CPU is work.
  const instant = path.join(WORK, 'network-instant.json');
  fs.writeFileSync(instant, JSON.stringify(modelCommTable('instant', 0, 1e15)));
  const predicted = async (extra: string[]) => {
    const { code, out, err } = await whatif(['--json', trace, '--placement', '4/4', '--traced-network', instant, '--compute-from', trace, ...extra]);
    assert.equal(code, 0, err);
    return JSON.parse(out).scenarios[0];
  };
  const [same, readOnSlow] = await Promise.all([predicted([]), predicted(['--compute-from-network', 'ethernet-10m'])]);
  // Read on a network whose rounds take milliseconds, an Allreduce's CPU is all rounds: no work is
  // left to charge after it, so the computations are shorter than read on the traced network.
  assert.ok(readOnSlow.criticalPath.computeSeconds < same.criticalPath.computeSeconds, `${readOnSlow.criticalPath.computeSeconds} ≥ ${same.criticalPath.computeSeconds}`);
  assert.ok(readOnSlow.predictedSeconds < same.predictedSeconds);
  // By default the other trace is read on the traced network.
  const options = { coresPerNode: 1, computeFrom: trace, tracedNetwork: loadCommTable(instant) };
  const [byDefault, explicit] = await Promise.all([predictScenarios(trace, [{ nodes: 4 }], options), predictScenarios(trace, [{ nodes: 4 }], { ...options, computeFromNetwork: loadCommTable(instant) })]);
  assert.deepEqual(explicit.scenarios, byDefault.scenarios);
  await assert.rejects(whatif(['--json', trace, '--compute-from-network', 'ethernet-10m']), /give --compute-from TRACE too/);
});

test('a prediction that puts ranks on a shared core in turns (the table has a scheduler slice) says so; sharing with infinitely small quanta is the default', async () => {
  const trace = traces.get('halo')!;
  const table = loadCommTable(COMM_TABLE);
  const unpinned = unpinnedWarnings(trace);
  const turns = await predictScenarios(trace, [{ nodes: 1 }, { nodes: 2 }], { coresPerNode: 1, tracedNetwork: table });
  assert.deepEqual(turns.warnings, unpinned);
  assert.equal(turns.notes.length, 1, 'one note for both scenarios');
  assert.match(turns.notes[0], /^ranks sharing a core take it in turns: each keeps it for a slice of \d\.\d\d ms and up to the scheduler's next tick \(every \d\.\d\d ms\), or until it waits$/);
  assert.equal(turns.scenarios[0].problems, undefined);
  const alone = await predictScenarios(trace, [{ nodes: 4 }], { coresPerNode: 1, tracedNetwork: table });
  assert.deepEqual(alone.notes, [], 'no rank shares a core');
  // The default traced network is a model without a slice: seed 000's sharing, no note.
  const shared = await predictScenarios(trace, [{ nodes: 1 }], { coresPerNode: 1 });
  assert.deepEqual(shared.notes, []);
});

test("the traced configuration's replay far from the measured time says the traced table may be another machine's", async () => {
  const trace = traces.get('latency')!;
  // Four ranks relaying 0-byte messages: a millisecond per message is far from this machine.
  const wrong = modelCommTable('a slow network', 1e-3, 1e6);
  const identity = await predictScenarios(trace, [{}], { tracedNetwork: wrong });
  const [replay] = identity.scenarios;
  const off = replay.predictedSeconds / identity.measuredSeconds - 1;
  assert.ok(off > 0.1, `replay ${replay.predictedSeconds} s against ${identity.measuredSeconds} s`);
  const ms = (seconds: number) => `${(seconds * 1e3).toFixed(1)} ms`;
  const unpinned = unpinnedWarnings(trace);
  assert.deepEqual(identity.notes, []);
  assert.deepEqual(identity.warnings, [
    ...unpinned,
    `the traced configuration replays to ${ms(replay.predictedSeconds)}, ${(off * 100).toFixed(1)}% above the ${ms(identity.measuredSeconds)} measured, so the other predictions may be off by as much; if the traced network "a slow network" is not the machine the trace was recorded on, a table calibrated there (causal-lens calibrate, or the command "Calibrate This Machine's Network") is better`,
  ]);
  // Only a replay of the run as it ran is judged: not another placement, network, tracer or computations.
  const others = [
    await predictScenarios(trace, [{ nodes: 4 }], { tracedNetwork: wrong, coresPerNode: 1 }),
    await predictScenarios(trace, [{ network: 'gbe' }], { tracedNetwork: wrong }),
    await predictScenarios(trace, [{}], { tracedNetwork: wrong, eventCostSeconds: 'auto' }),
    await predictScenarios(trace, [{}], { tracedNetwork: wrong, computeFrom: trace }),
  ];
  for (const other of others) assert.deepEqual(other.warnings, unpinned, other.scenarios[0].placement);
});

test("a trace whose recorder opened every pair's connection in its start-up pays none while the tracer stays; without the tracer, or recorded without, a pair's first message across nodes opens one", async () => {
  const table = loadCommTable(COMM_TABLE);
  const slowConnect = { ...table, connectSeconds: 0.05 };
  const twoNodes = async (trace: string, network: typeof table, eventCostSeconds?: 'auto') =>
    (await predictScenarios(trace, [{ nodes: 2 }], { tracedNetwork: network, coresPerNode: 1, eventCostSeconds })).scenarios[0].predictedSeconds;
  const preconnected = traces.get('halo')!;
  assert.deepEqual(openOtf2Archive(preconnected).ranks.map((rank) => rank.preconnected), [true, true, true, true]);
  assert.equal(await twoNodes(preconnected, slowConnect), await twoNodes(preconnected, table));
  // Ranks 1 and 2 open theirs at the first halo exchange, the others wait for them at the Allreduce.
  const untraced = (await twoNodes(preconnected, slowConnect, 'auto')) - (await twoNodes(preconnected, table, 'auto'));
  assert.ok(untraced >= 0.05 && untraced < 0.2, `tracer removed: ${untraced} s more`);

  const outDir = path.join(WORK, 'halo-not-preconnected');
  const launch = { np: 4, outDir, program: path.join(MPI_BUILD, 'halo'), args: ['40000', '20'] };
  let output = '';
  const result = await runMpi(mpirunArgv({ ...launch, env: { ...recorderEnv(launch), CAUSAL_LENS_PRECONNECT: '0' } }), (text) => (output += text));
  assert.equal(result.code, 0, output);
  const notPreconnected = path.join(outDir, 'traces.otf2');
  assert.deepEqual(openOtf2Archive(notPreconnected).ranks.map((rank) => rank.preconnected), [false, false, false, false]);
  const traced = (await twoNodes(notPreconnected, slowConnect)) - (await twoNodes(notPreconnected, table));
  assert.ok(traced >= 0.05 && traced < 0.2, `tracer kept: ${traced} s more`);
});

test('identityWarning: quiet within 10% of the measured time either way, and names the direction beyond it', () => {
  assert.equal(identityWarning(1.09, 1, 'x'), undefined);
  assert.equal(identityWarning(0.91, 1, 'x'), undefined);
  assert.equal(identityWarning(1, NaN, 'x'), undefined);
  assert.match(identityWarning(0.0598, 0.0438, 'assumed')!, /^the traced configuration replays to 59\.8 ms, 36\.5% above the 43\.8 ms measured, so the other predictions may be off by as much; if the traced network "assumed" is not/);
  assert.match(identityWarning(0.85, 1, 'x')!, /replays to 850\.0 ms, 15\.0% below the 1000\.0 ms measured/);
});

test('a master that deals tasks by MPI_ANY_SOURCE: dealt in the prediction, its workers scaled as one with computeFrom', async () => {
  const again = await recordTrace({ np: 4, outDir: path.join(WORK, 'master_worker-again'), program: path.join(MPI_BUILD, 'master_worker'), args: ['60'] });
  const prediction = await predictScenarios(traces.get('master_worker')!, [{ nodes: 4 }], { coresPerNode: 1, computeFrom: again.archive });
  assert.ok(prediction.scenarios[0].predictedSeconds > 0);
  assert.equal(prediction.scenarios[0].problems, undefined);
  assert.deepEqual(prediction.warnings, unpinnedWarnings(traces.get('master_worker')!));
  assert.deepEqual(prediction.notes, ['rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2, 3: in each prediction a task goes to the worker that asks first, with its traced work']);
  const scaled = prediction.traceProblems.filter((p) => p.startsWith('computation from'));
  assert.equal(scaled.length, 1, scaled.join('; '));
  assert.match(scaled[0], /: ranks 1, 2, 3 run each other's tasks, so their own computations were scaled by one factor, \d\.\d{3}$/);
});

test("a master whose dealing starts after the first pass's 5,000 operations is known from the recorder's count", async () => {
  // 6,000 broadcasts of the master's parameters before the first task.
  const late = await recordTrace({ np: 3, outDir: path.join(WORK, 'master_worker-late'), program: path.join(MPI_BUILD, 'master_worker'), args: ['20', '6000'] });
  assert.equal(openOtf2Archive(late.archive).ranks[0].anySourceReceives, 20);
  const prediction = await predictScenarios(late.archive, [{ nodes: 3 }], { coresPerNode: 1 });
  assert.deepEqual(prediction.warnings, unpinnedWarnings(late.archive));
  assert.deepEqual(prediction.notes, ['rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2: in each prediction a task goes to the worker that asks first, with its traced work']);
  assert.equal(prediction.scenarios[0].problems, undefined);
});

test('unpinnedOversubscribed: the traced nodes whose ranks outnumbered their cores without a core each, by host and CPU set', () => {
  const at = (host: string, cpuSets: (string | undefined)[]) => cpuSets.map((cpuSet, rank) => ({ rank, host, cpuSet }));
  assert.deepEqual(unpinnedOversubscribed(at('a', ['0-1', '0-1', '0-1', '0-1'])), [{ cpuSet: '0-1', ranks: 4, cores: 2 }]);
  assert.deepEqual(unpinnedOversubscribed(at('a', ['0', '0', '1', '1'])), [], 'pinned, two to a core: the validation\'s 4/2');
  assert.deepEqual(unpinnedOversubscribed(at('a', ['0-3', '0-3', '0-3', '0-3'])), [], 'no more ranks than cores');
  assert.deepEqual(unpinnedOversubscribed(at('a', [undefined, undefined, undefined])), [], 'no CPU sets (Score-P): a core each is assumed');
  assert.deepEqual(unpinnedOversubscribed([...at('a', ['0-1', '0-1']), ...at('b', ['0-1', '0-1', '0-1']).map((r) => ({ ...r, rank: r.rank + 2 }))]), [{ cpuSet: '0-1', ranks: 3, cores: 2 }]);
  // The traces recorded here: 4 unpinned ranks carry the note on a machine with fewer cores (this 2-core VM).
  const halo = openOtf2Archive(traces.get('halo')!).ranks;
  if (os.cpus().length < 4) assert.deepEqual(unpinnedOversubscribed(halo), [{ cpuSet: halo[0].cpuSet, ranks: 4, cores: os.cpus().length }]);
});

test('the smallest CPU time inside each kind of call is found (charged to blocking calls by default)', () => {
  const archive = openOtf2Archive(traces.get('latency')!);
  const comms = communicatorRanks(archive.defs);
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    while (stream.next());
    const names = [...stream.facts.smallestCallCpu.keys()].map((region) => archive.defs.regions.get(region));
    for (const call of ['MPI_Send', 'MPI_Recv']) assert.ok(names.includes(call), `rank ${rank.rank}: ${call} missing from ${names.join(', ')}`);
    for (const [region, smallest] of stream.facts.smallestCallCpu) assert.ok(smallest >= 0 && smallest < 1e-3, `rank ${rank.rank} ${archive.defs.regions.get(region)}: ${smallest}`);
  }
});

test("each call's work is the recorder's smallest over the whole run, where the first pass saw more; collectives and unseen regions keep the first pass's", () => {
  const archive = {
    defs: { regions: new Map([[3, 'MPI_Send'], [5, 'MPI_Recv'], [7, 'MPI_Bcast'], [9, 'MPI_Wait']]) },
    ranks: [{ smallestCallCpu: new Map([['MPI_Send', 66e-9], ['MPI_Recv', 80e-9], ['MPI_Bcast', 100e-9], ['MPI_Wait', 50e-9]]) }, { smallestCallCpu: new Map([['MPI_Recv', 28e-9]]) }, {}],
  } as unknown as Parameters<typeof takeRecordedSmallest>[0];
  const inCall = new Map([[3, 70e-9], [5, 77e-9], [7, 500e-9]]);
  takeRecordedSmallest(archive, inCall, new Set([7]));
  assert.deepEqual([...inCall], [[3, 66e-9], [5, 28e-9], [7, 500e-9]]);
});

test("every kind of wait costs the smallest wait's work: a kind whose every call waited shows no work of its own", () => {
  // The pipeline's 2/1 trace: each MPI_Waitsome yielded to its receiver, MPI_Waitany did not always.
  const regions = new Map([[1, 'MPI_Waitsome'], [2, 'MPI_Waitany'], [3, 'MPI_Waitall'], [4, 'MPI_Test'], [5, 'MPI_Isend'], [6, 'MPI_Wait'], [7, 'MPI_Reduce']]);
  const inCall = new Map([[1, 6.49e-6], [2, 2.08e-6], [3, 3.47e-6], [4, 0.07e-6], [5, 0.43e-6], [6, 2.5e-6], [7, 16.67e-6]]);
  shareWaitWork(regions, inCall);
  assert.deepEqual([...inCall], [[1, 2.08e-6], [2, 2.08e-6], [3, 2.08e-6], [4, 0.07e-6], [5, 0.43e-6], [6, 2.08e-6], [7, 16.67e-6]], 'tests, sends and collectives keep their own');
  const noWaits = new Map([[5, 0.43e-6]]);
  shareWaitWork(regions, noWaits);
  assert.deepEqual([...noWaits], [[5, 0.43e-6]], 'a trace without waits is left alone');
});

test("a collective's work is its last members' median, not its luckiest call", () => {
  // Four members: a quarter of the calls wait for nobody (2-4 µs), the others polled too (10-40 µs).
  const work = [...Array.from({ length: 25 }, (_, i) => 2e-6 + i * 1e-7 - (i === 0 ? 1.5e-6 : 0)), ...Array.from({ length: 75 }, (_, i) => 10e-6 + i * 4e-7)];
  const members = work.map(() => 4);
  assert.equal(collectiveWork([...work], members), work[12], 'the median of the 25 cheapest, not the 0.5 µs outlier');
  assert.equal(collectiveWork([...work], work.map(() => 2)), work[24], 'two members: half of the calls are last');
  assert.equal(collectiveWork([3e-6], [4]), 3e-6);
  // A world of 4 and its halves of 2, one call each in four: the share of last members is their mean.
  assert.equal(collectiveWork([...work], work.map((_, i) => (i % 4 === 0 ? 2 : 4))), work[Math.floor(((0.25 * 3 + 0.5) / 4 / 2) * 99)]);
});

test('a resumed call waited off its core: 200 µs or more, under a tenth of it on the CPU; its kind costs their median less its work, from 20 of them', () => {
  assert.equal(isResumedCall(493e-6, 13.2e-6), true, 'the unshaped halo: a Waitall while the core-mate computed');
  assert.equal(isResumedCall(2607e-6, 1010e-6), false, 'at 10 Mbit/s: polled through the wait with the core free');
  assert.equal(isResumedCall(150e-6, 2e-6), false, 'too short to tell');
  assert.equal(isResumedCall(500e-6, 0), false, 'a CPU clock that did not move says nothing');
  const cpu = Array.from({ length: 21 }, (_, i) => (10 + i) * 1e-6);
  const costs = resumeCosts(new Map([[4, cpu], [6, cpu.slice(0, 19)], [8, [1e-6, ...cpu]]]), new Map([[4, 2e-6], [8, 50e-6]]));
  assert.ok(Math.abs(costs.get(4)! - 18e-6) < 1e-12, `median 20 µs less the work 2 µs: ${costs.get(4)}`);
  assert.equal(costs.has(6), false, '19 resumed calls are too few');
  assert.equal(costs.get(8), 0, 'never below nothing');
});

test('the first pass keeps every collective call\'s work and its communicator size (a recorded halo)', () => {
  const archive = openOtf2Archive(traces.get('halo')!);
  const comms = communicatorRanks(archive.defs);
  const allreduce = [...archive.defs.regions].find(([, name]) => name === 'MPI_Allreduce')![0];
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0, { unavoidableSeconds: () => 0 });
    while (stream.next());
    const calls = stream.facts.collectiveCalls.get(allreduce)!;
    assert.ok(calls && calls.work.length >= 2, `rank ${rank.rank}: ${calls?.work.length} MPI_Allreduce calls`);
    assert.equal(calls.work.length, calls.members.length);
    assert.ok(calls.work.every((seconds) => seconds >= stream.facts.smallestCallCpu.get(allreduce)!), 'none below the smallest');
    // The halo's last reduction is within its half of the world (MPI_Comm_split by rank % 2).
    assert.deepEqual([...new Set(calls.members)].sort(), [2, 4]);
  }
});

test('the first pass keeps the first CALLS_KEPT_PER_REGION collective calls of a region per rank, not all of them', async () => {
  const iterations = CALLS_KEPT_PER_REGION + 44;
  const summary = await recordTrace({ np: 2, outDir: path.join(WORK, 'halo-long'), program: path.join(MPI_BUILD, 'halo'), args: ['2000', String(iterations)] });
  const archive = openOtf2Archive(summary.archive);
  const allreduce = [...archive.defs.regions].find(([, name]) => name === 'MPI_Allreduce')![0];
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, communicatorRanks(archive.defs), cpuTimeMetrics(archive), 0, { unavoidableSeconds: () => 0 });
    let collectives = 0;
    for (let op = stream.next(); op; op = stream.next()) if (op.kind === OpKind.Collective) collectives++;
    assert.equal(collectives, iterations + 1, `rank ${rank.rank}: the replay still reads every call`);
    assert.equal(stream.facts.collectiveCalls.get(allreduce)!.work.length, CALLS_KEPT_PER_REGION);
  }
});

test("the tracer's cost per gap ('auto') is not set by a gap the CPU clock missed", () => {
  const gaps = [...Array.from({ length: 199 }, () => 3e-8), 0];
  assert.equal(lowQuantile(gaps), 3e-8, 'one 0 among 200 gaps of 30 ns');
  assert.equal(lowQuantile(Array.from({ length: 1000 }, (_, i) => 1000 - i)), 11, 'the 1% quantile');
  assert.equal(lowQuantile([5]), 5);
  assert.equal(lowQuantile([]), 0);
});

test("after a wait of 5 µs or more the recorder really reads the CPU clock; 'auto' removes that read's extra cost from the gap after it", async () => {
  // Four ranks ping-ponging on one core: every receive waits for the other pair's turn. 1,500
  // round trips: how many real reads a short gap follows moves with this VM's phase (of 400 round
  // trips, 80 in one hour and 60 in the next; 100 are needed).
  const summary = await recordTrace({ np: 4, outDir: path.join(WORK, 'latency-one-core'), program: 'taskset', args: ['-c', '0', path.join(MPI_BUILD, 'latency'), '1500'] });
  assert.equal(summary.truncated, undefined);
  const archive = openOtf2Archive(summary.archive);
  const comms = communicatorRanks(archive.defs);
  const totalCompute = (rank: (typeof archive.ranks)[number], realReadCostSeconds: number) => {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0, { realReadCostSeconds, sampleGaps: true });
    let compute = 0;
    for (let op = stream.next(); op; op = stream.next()) compute += op.compute;
    return { compute, samples: stream.facts.shortGapsAfterRead!, afterReal: stream.facts.gapsAfterRealRead };
  };
  for (const rank of archive.ranks) {
    const { compute, samples, afterReal } = totalCompute(rank, 0);
    // Every gap after a real read is counted, short or long; the samples keep the short ones.
    assert.ok(afterReal >= samples.real.length && afterReal > 0, `rank ${rank.rank}: ${afterReal} gaps after a real read counted, ${samples.real.length} short ones sampled`);
    assert.ok(samples.real.length >= 100 && samples.estimated.length >= 100, `rank ${rank.rank}: ${samples.real.length} short gaps after a real read, ${samples.estimated.length} after an estimated one`);
    assert.ok(lowQuantile(samples.real) > lowQuantile(samples.estimated), `rank ${rank.rank}: a system call costs more than an estimate (${lowQuantile(samples.real)} ≤ ${lowQuantile(samples.estimated)} s)`);
    const removed = compute - totalCompute(rank, 1e-7).compute;
    assert.ok(removed >= 100 * 1e-7, `rank ${rank.rank}: 0.1 µs removed after each of the real reads, ${removed} s in all`);
  }
});

test("a rank's kernel slowness is its timed CPU-clock reads over the table's, where it read in a steady rhythm; a slower kernel stretches the turns of a shared core", async () => {
  // Four ranks ping-ponging on one core: every wait ends in a real read (about one per two calls).
  const summary = await recordTrace({ np: 4, outDir: path.join(WORK, 'latency-kernel'), program: 'taskset', args: ['-c', '0', path.join(MPI_BUILD, 'latency'), '1500'] });
  assert.equal(summary.truncated, undefined);
  const archive = openOtf2Archive(summary.archive);
  const reads = archive.ranks.map((rank) => rank.clockRead!.seconds);
  const table = loadCommTable(COMM_TABLE);
  assert.deepEqual(kernelSlowness(archive, table), [1, 1, 1, 1], 'a table without clockReadSeconds: as calibrated');
  const calibrated = Math.min(...reads) / 2;
  const slowness = kernelSlowness(archive, { ...table, clockReadSeconds: calibrated });
  slowness.forEach((s, i) => assert.ok(Math.abs(s - reads[i] / calibrated) < 1e-12 && s >= 2, `rank ${i}: ${s}`));
  // Reads within 5% of the table's are the spread of one phase: the table's speed stands.
  const near = kernelSlowness(archive, { ...table, clockReadSeconds: reads[0] / 1.04 });
  assert.equal(near[0], 1, `reads 4% slower than calibrated: ${near[0]}`);
  assert.ok(Math.abs(kernelSlowness(archive, { ...table, clockReadSeconds: reads[0] / 1.06 })[0] - 1.06) < 1e-12, 'reads 6% slower: charged');
  // A rank whose reads are rare among its events (the long waits of a mostly fast pair) says nothing.
  const rare = { ...archive, ranks: archive.ranks.map((rank, i) => (i === 0 ? { ...rank, clockRead: { ...rank.clockRead!, count: 100 } } : rank)) };
  assert.equal(kernelSlowness(rare, { ...table, clockReadSeconds: calibrated })[0], 1);
  const predict = (clockReadSeconds: number) => predictScenarios(summary.archive, [{ nodes: 1 }], { tracedNetwork: { ...table, clockReadSeconds } });
  const steady = await predict(Math.max(...reads));
  const slow = await predict(calibrated);
  // Every turn doubles or more; the computations stay: longer, by less than twice.
  const [steadySeconds, slowSeconds] = [steady, slow].map((p) => p.scenarios[0].predictedSeconds);
  assert.ok(slowSeconds > steadySeconds * 1.2 && slowSeconds < steadySeconds * 2.5, `a kernel twice as slow as calibrated: ${slowSeconds} s against ${steadySeconds} s`);
  // The prediction says so, and says nothing when the kernel ran within 5% of its calibration.
  assert.ok(slow.notes.some((note) => /^the run's system calls took \d\.\d\d(–\d\.\d\d)? times as long as when the table was calibrated/.test(note)), slow.notes.join('\n'));
  const spread = Math.min(...reads) / Math.max(...reads);
  assert.equal(steady.notes.some((note) => note.includes('system calls')), spread < 0.95, `reads ${reads.join(', ')} s: ${steady.notes.join('; ')}`);
});

test("'auto' removes at least the table's measured recorder cost per call", async () => {
  const trace = traces.get('latency')!;
  const table = loadCommTable(COMM_TABLE);
  const predict = async (recorderCallSeconds?: number) =>
    (await predictScenarios(trace, [{ nodes: 1 }], { tracedNetwork: { ...table, recorderCallSeconds }, coresPerNode: 1, eventCostSeconds: 'auto' })).scenarios[0].predictedSeconds;
  const gapsOnly = await predict(undefined);
  const measured = await predict(5e-7);
  assert.ok(measured < gapsOnly, `with 0.5 µs per call removed ${measured} s, with the gaps' quantile only ${gapsOnly} s`);
  assert.ok(Math.abs((await predict(1e-12)) - gapsOnly) < 1e-9, "a cost below the gaps' quantile changes nothing");
});

test("a blocking send's work comes before its message leaves, a receive's after its message came", () => {
  const archive = openOtf2Archive(traces.get('latency')!);
  const comms = communicatorRanks(archive.defs);
  const region = (name: string) => [...archive.defs.regions].find(([, n]) => n === name)![0];
  const ops = (inCallCost: Map<number, number>) => {
    const stream = new Otf2RankStream(archive, archive.ranks[0], comms, cpuTimeMetrics(archive), 0, { inCallCost });
    const all = [];
    for (let op = stream.next(); op; op = stream.next()) all.push(op);
    return all;
  };
  const free = ops(new Map());
  const added = (charged: ReturnType<typeof ops>) => charged.map((op, i) => Math.round(op.compute - free[i].compute));
  const kinds = free.map((op) => op.kind);
  assert.ok(kinds.filter((kind) => kind === OpKind.Send).length >= 400, 'rank 0 sends 400 times');
  assert.deepEqual(added(ops(new Map([[region('MPI_Send'), 1]]))), kinds.map((kind) => (kind === OpKind.Send ? 1 : 0)), 'each send carries its own work');
  assert.deepEqual(added(ops(new Map([[region('MPI_Recv'), 1]]))), kinds.map((_, i) => (kinds[i - 1] === OpKind.Recv ? 1 : 0)), 'a receive is charged after its message: to the operation after it');
});

test('a call with MPI records is charged its kind\'s work, not its own CPU (an Irecv may copy a message in)', () => {
  const archive = openOtf2Archive(traces.get('pipeline')!);
  const comms = communicatorRanks(archive.defs);
  const irecv = [...archive.defs.regions].find(([, name]) => name === 'MPI_Irecv')![0];
  const rank = archive.ranks[1];
  const totalCompute = (inCallCost: Map<number, number>) => {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0, { inCallCost });
    let compute = 0;
    let irecvs = 0;
    for (let op = stream.next(); op; op = stream.next()) {
      compute += op.compute;
      if (op.kind === OpKind.Irecv) irecvs++;
    }
    return { compute, irecvs };
  };
  const free = totalCompute(new Map());
  const charged = totalCompute(new Map([[irecv, 1]]));
  assert.ok(free.irecvs > 0);
  assert.ok(Math.abs(charged.compute - free.compute - free.irecvs) < 1e-6, `${charged.compute} − ${free.compute} ≠ ${free.irecvs} Irecv calls × 1 s`);
});

test("a receive's copy is the CPU above their kind's smallest of its posting and of the poll that completed it (measured only when those smallest are given)", () => {
  const archive = openOtf2Archive(traces.get('pipeline')!);
  const comms = communicatorRanks(archive.defs);
  const regionId = (name: string) => [...archive.defs.regions].find(([, n]) => n === name)![0];
  const irecv = regionId('MPI_Irecv');
  const mpiTest = regionId('MPI_Test');
  const metrics = cpuTimeMetrics(archive);
  let completedInPolls = 0;
  for (const rank of archive.ranks.slice(1)) {
    // Independently, from the raw events: each call's CPU (the metric at its Leave less at its
    // Enter), the receives each Irecv posted and each MPI_Test completed.
    const calls: { region: number; cpu: number; posted: number[]; completed: number[] }[] = [];
    const reader = openRankEvents(archive, rank);
    let cpu = NaN;
    let call: { region: number; cpu: number; posted: number[]; completed: number[] } | undefined;
    while (reader.next()) {
      if (reader.type === EventRecord.Metric && metrics.has(reader.metric)) cpu = reader.metricValues[0];
      else if (reader.type === EventRecord.Enter) call = { region: reader.region, cpu, posted: [], completed: [] };
      else if (reader.type === EventRecord.MpiIrecvRequest) call!.posted.push(reader.request);
      else if (reader.type === EventRecord.MpiIrecv) call!.completed.push(reader.request);
      else if (reader.type === EventRecord.Leave) calls.push({ ...call!, cpu: (cpu - call!.cpu) * 1e-9 });
    }
    const smallest = (region: number) => Math.min(...calls.filter((c) => c.region === region).map((c) => c.cpu));
    const smallestCallCpu = new Map([[irecv, smallest(irecv)], [mpiTest, smallest(mpiTest)]]);
    const expected: number[] = [];
    const open = new Map<number, number>();
    for (const c of calls) {
      if (c.region === irecv) for (const request of c.posted) open.set(request, expected.push(c.cpu - smallestCallCpu.get(irecv)!) - 1);
      if (c.region === mpiTest) {
        for (const request of c.completed) expected[open.get(request)!] += (c.cpu - smallestCallCpu.get(mpiTest)!) / c.completed.length;
        completedInPolls += c.completed.length;
      }
    }
    const copies = (options: object) => {
      const stream = new Otf2RankStream(archive, rank, comms, metrics, 0, options);
      const found: number[] = [];
      for (let op = stream.next(); op; op = stream.next()) if (op.kind === OpKind.Irecv) found.push(op.copySeconds);
      return found;
    };
    assert.ok(copies({}).every((c) => c === -1), `rank ${rank.rank}: unmeasured copies are -1`);
    const measured = copies({ smallestCallCpu });
    assert.equal(measured.length, expected.length);
    measured.forEach((copy, i) => assert.ok(Math.abs(copy - expected[i]) < 1e-12, `rank ${rank.rank} receive ${i}: ${copy} ≠ ${expected[i]}`));
  }
  assert.ok(completedInPolls > 0, 'no receive completed in an MPI_Test: the poll part is untested');
});

test('pipeline: failed MPI_Test polls are waiting, not work: of each run of them only one poll interval stays, and its wait keeps what they took; the first stage never polls', () => {
  const archive = openOtf2Archive(traces.get('pipeline')!);
  const comms = communicatorRanks(archive.defs);
  const metrics = cpuTimeMetrics(archive);
  const polls = new Set([...archive.defs.regions].filter(([, name]) => /^MPI_Test(any|some|all)?$/.test(name)).map(([id]) => id));
  // Independently, from the raw events: computation is the CPU between calls (less suspensions)
  // and in calls without MPI records, up to MPI_Finalize. A run of n failed polls ends at a call
  // with a record; of the CPU S from the first failed poll's end to that call only S / n stays,
  // and the wait it ends carries S (PemOp.polledSeconds).
  const recordTypes = new Set([EventRecord.MpiSend, EventRecord.MpiIsend, EventRecord.MpiIsendComplete, EventRecord.MpiIrecvRequest, EventRecord.MpiRecv, EventRecord.MpiIrecv, EventRecord.MpiCollectiveEnd]);
  const expected = archive.ranks.map((rank) => {
    const reader = openRankEvents(archive, rank);
    let [cpu, region, enterCpu, lastLeaveCpu, suspended] = [0, -1, 0, NaN, 0];
    let records = false;
    let failed = 0;
    let firstFailedEnd = 0;
    let computation = 0;
    let waiting = 0;
    let polled = 0;
    while (reader.next()) {
      if (reader.type === EventRecord.Metric && metrics.has(reader.metric)) cpu = reader.metricValues[0];
      else if (reader.type === EventRecord.BufferFlush) suspended += reader.stopTime - reader.time;
      else if (reader.type === EventRecord.Enter) {
        if (!Number.isNaN(lastLeaveCpu)) computation += Math.max(0, (cpu - lastLeaveCpu) * 1e-9 - suspended / archive.defs.clock.ticksPerSecond);
        suspended = 0;
        if (archive.defs.regions.get(reader.region) === 'MPI_Finalize') break;
        [region, records, enterCpu] = [reader.region, false, cpu];
      } else if (recordTypes.has(reader.type)) records = true;
      else if (reader.type === EventRecord.Leave && reader.region === region) {
        lastLeaveCpu = cpu;
        if (!records) {
          computation += (cpu - enterCpu) * 1e-9;
          if (polls.has(region) && failed++ === 0) firstFailedEnd = cpu;
        } else {
          if (polls.has(region) && failed > 0) {
            waiting += ((enterCpu - firstFailedEnd) * 1e-9 * (failed - 1)) / failed;
            polled += (enterCpu - firstFailedEnd) * 1e-9;
          }
          failed = 0;
        }
      }
    }
    reader.close();
    return { computation: computation - waiting, waiting, polled };
  });
  archive.ranks.forEach((rank, i) => {
    const stream = new Otf2RankStream(archive, rank, comms, metrics, 0);
    let computation = 0;
    let polled = 0;
    for (let op = stream.next(); op; op = stream.next()) {
      computation += op.compute;
      polled += op.polledSeconds ?? 0;
    }
    assert.ok(Math.abs(computation - expected[i].computation) < 1e-9, `rank ${rank.rank}: ${computation} s of computation, the events give ${expected[i].computation} s`);
    assert.ok(Math.abs(polled - expected[i].polled) < 1e-9, `rank ${rank.rank}: its waits carry ${polled} s of polls, the events give ${expected[i].polled} s`);
  });
  assert.equal(expected[0].waiting, 0);
  // How often a stage finds its block already there depends on the machine's load; some poll fails.
  assert.ok(expected.some((e) => e.waiting > 0), `waiting per rank: ${expected.map((e) => e.waiting).join(', ')}`);
});
test("an MPI_Waitsome waits in the replay for the oldest send it found done, leaving the others to the rank's next wait, and no more", async () => {
  // Both pipeline ranks on core 0: the first stage runs while the second cannot, and its
  // MPI_Waitsome finds its three send slots done at once (2.95 a call in the validation's traces).
  const pinned = await recordTrace({ np: 2, outDir: path.join(WORK, 'pipeline-2-1'), program: path.join(__dirname, '../../../validation/pem/pin-rank.sh'), args: ['1', path.join(MPI_BUILD, 'pipeline'), '60', '65536'] });
  const archive = openOtf2Archive(pinned.archive);
  const waitsome = [...archive.defs.regions].find(([, name]) => name === 'MPI_Waitsome')![0];
  // From the raw events: the sends each of rank 0's MPI_Waitsome calls completed, in order.
  const completedPerCall: number[][] = [];
  const reader = openRankEvents(archive, archive.ranks[0]);
  let inWaitsome = false;
  while (reader.next()) {
    if (reader.type === EventRecord.Enter) inWaitsome = reader.region === waitsome;
    else if (reader.type === EventRecord.Leave) inWaitsome = false;
    else if (reader.type === EventRecord.MpiIsendComplete && inWaitsome) completedPerCall[completedPerCall.length - 1].push(reader.request);
    if (reader.type === EventRecord.Enter && inWaitsome) completedPerCall.push([]);
  }
  reader.close();
  const several = completedPerCall.filter((sends) => sends.length > 1);
  assert.ok(several.length > 0, `no MPI_Waitsome completed two sends: ${completedPerCall.map((sends) => sends.length).join(' ')}`);
  const stream = new Otf2RankStream(archive, archive.ranks[0], communicatorRanks(archive.defs), cpuTimeMetrics(archive), 0, {});
  const posted: number[] = [];
  const waits: (readonly number[])[] = [];
  for (let op = stream.next(); op; op = stream.next()) {
    if (op.kind === OpKind.Isend) posted.push(op.request);
    if (op.kind === OpKind.Wait) waits.push(op.requests);
  }
  // Every send is waited for once.
  assert.deepEqual(waits.flat().sort((a, b) => a - b), [...posted].sort((a, b) => a - b));
  for (const [first, ...others] of several) {
    const wait = waits.find((requests) => requests.includes(first))!;
    assert.ok(!others.some((request) => wait.includes(request)), `the wait of a call that completed ${[first, ...others].join(', ')} names ${wait.join(', ')}`);
  }
  // What is left over is one call's sends at most, however long the run.
  const mostPerCall = Math.max(...completedPerCall.map((sends) => sends.length));
  assert.ok(waits.every((requests) => requests.length <= 2 * mostPerCall), `requests per wait: ${waits.map((requests) => requests.length).join(' ')}`);
});

test("each rank starts at its first event after the earliest one when the prediction is of that run's placement (ranks sharing a core leave MPI_Init apart, traced or not), else all at once", () => {
  assert.deepEqual(rankStartSeconds([2.5, 2, NaN, 2.25], true), [0.5, 0, 0, 0.25]);
  assert.deepEqual(rankStartSeconds([2.5, 2, NaN, 2.25], false), [0, 0, 0, 0]);
  // Four ranks pinned two by two, as the validation's 4/2 runs are.
  const traced = tracedPlacement([0, 1, 2, 3].map((rank) => ({ rank, host: 'h', cpuSet: rank < 2 ? '0' : '1' })));
  assert.ok(samePlacement(spreadPlacement(4, 2, false, 1), traced));
  assert.ok(samePlacement(mapPlacement([1, 1, 0, 0], 4, 1, 'map'), traced), 'node numbers aside');
  assert.ok(!samePlacement(spreadPlacement(4, 2, true, 1), traced), 'cyclic groups other ranks');
  assert.ok(!samePlacement(spreadPlacement(4, 1, false, 1), traced));
  assert.ok(!samePlacement(spreadPlacement(4, 2, false, 2), traced), 'nodes of two cores');
  assert.ok(!samePlacement(mapPlacement([0, 0, 1, 2], 4, 1, 'map'), traced));
});

test("a run's traced time ends where its last rank enters MPI_Finalize (the recorder's closing barrier and writes are inside it), less the suspensions", async () => {
  const trace = traces.get('latency')!;
  const archive = openOtf2Archive(trace);
  let first = Infinity;
  let end = -Infinity;
  let lastEvent = -Infinity;
  const ticks = archive.defs.clock.ticksPerSecond;
  for (const rank of archive.ranks) {
    const reader = openRankEvents(archive, rank);
    let finalizeAt = NaN;
    let suspended = 0;
    while (reader.next()) {
      first = Math.min(first, reader.time);
      lastEvent = Math.max(lastEvent, reader.time);
      if (reader.type === EventRecord.BufferFlush && Number.isNaN(finalizeAt)) suspended += reader.stopTime - reader.time;
      if (reader.type === EventRecord.Enter && archive.defs.regions.get(reader.region) === 'MPI_Finalize') finalizeAt = reader.time;
    }
    reader.close();
    assert.ok(Number.isFinite(finalizeAt), `rank ${rank.rank} enters MPI_Finalize`);
    end = Math.max(end, finalizeAt - suspended);
  }
  assert.ok(lastEvent > end, 'the trace goes on after the entries into MPI_Finalize');
  const { measuredSeconds } = await predictScenarios(trace, []);
  assert.ok(Math.abs(measuredSeconds - (end - first) / ticks) < 1e-9, `${measuredSeconds} s, the events give ${(end - first) / ticks} s`);
});

test('time a rank spends off its core between calls (asleep, as in blocking I/O) is read from the trace and kept in the prediction', async () => {
  // One rank, passing the token to itself: on this VM a rank waiting for a message from a rank
  // that slept is itself descheduled for about a millisecond, which is not what is tested here.
  const summary = await recordTrace({ np: 1, outDir: path.join(WORK, 'ring-sleep'), program: path.join(MPI_BUILD, 'ring'), args: ['20', '--sleep-us', '2000'] });
  assert.equal(summary.truncated, undefined);
  const archive = openOtf2Archive(summary.archive);
  const comms = communicatorRanks(archive.defs);
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    let off = 0;
    let cpu = 0;
    for (let op = stream.next(); op; op = stream.next()) {
      off += op.offCpuSeconds ?? 0;
      cpu += op.compute;
    }
    assert.ok(off >= 0.9 * 20 * 2e-3, `rank ${rank.rank}: ${off} s off the core, slept 20 × 2 ms`);
    assert.ok(cpu < off / 4, `rank ${rank.rank}: ${cpu} s of CPU is not the sleep`);
  }
  const prediction = await predictScenarios(summary.archive, []);
  const ratio = prediction.scenarios[0].predictedSeconds / prediction.measuredSeconds;
  assert.ok(ratio > 0.9 && ratio < 1.1, `predicted ${prediction.scenarios[0].predictedSeconds} s for a run of ${prediction.measuredSeconds} s`);
});

test("the panel's prediction carries the notes: the sample master's tasks are dealt anew, and the trace says so", async () => {
  const samples = path.join(__dirname, '../../../samples');
  const trace = path.join(samples, 'mpi/traces/master_worker-3/traces.otf2');
  const result = await whatIfForPanel([samples], { trace, scenarios: [{ nodes: 3 }], coresPerNode: 1, progressId: 'notes' }, () => undefined, () => false);
  assert.ok(result.ok, result.ok ? '' : result.message);
  assert.deepEqual(result.notes, ['rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2: in each prediction a task goes to the worker that asks first, with its traced work']);
  // The recorder marked the master's receives: the sample was recorded with the attribute.
  const archive = openOtf2Archive(trace);
  const master = new Otf2RankStream(archive, archive.ranks[0], communicatorRanks(archive.defs), cpuTimeMetrics(archive), 0);
  let wildcards = 0;
  for (let o = master.next(); o; o = master.next()) if (o.kind === OpKind.Recv && o.anySource) wildcards++;
  master.close();
  assert.equal(wildcards, 30);
});

test("the What-if options give each trace the workspace's table measured on the trace's host, which the panel picks first", async () => {
  const samples = path.join(__dirname, '../../../samples');
  const globs = ['**/*.otf2'];
  const tables = ['**/comm-table*.json'];
  const options = await whatIfOptions([samples], globs, tables);
  assert.equal(options.assumedTracedNetwork, 'traced: shared memory (assumed, 2 µs, 3 GB/s)');
  // The samples were recorded on "vm", where samples/mpi/comm-table.json was measured.
  const halo = options.traces.find((t) => t.path.endsWith(path.join('halo-4', 'traces.otf2')));
  assert.deepEqual(halo && { ranks: halo.ranks, recordedWith: halo.recordedWith }, { ranks: 4, recordedWith: COMM_TABLE });
  assert.ok(options.networks.some((n) => n.id === COMM_TABLE && n.description === loadCommTable(COMM_TABLE).name));
  // A workspace with that trace and tables of another host, or of none: no table is its own.
  const workspace = fs.mkdtempSync(path.join(WORK, 'hosts-'));
  fs.cpSync(path.join(samples, 'mpi/traces/halo-4'), path.join(workspace, 'halo-4'), { recursive: true });
  const measured = JSON.parse(fs.readFileSync(COMM_TABLE, 'utf8'));
  fs.writeFileSync(path.join(workspace, 'comm-table-other.json'), JSON.stringify({ ...measured, host: 'other' }));
  fs.writeFileSync(path.join(workspace, 'comm-table-unnamed.json'), JSON.stringify({ ...measured, host: undefined }));
  const elsewhere = await whatIfOptions([workspace], globs, tables);
  assert.deepEqual(elsewhere.traces.map((t) => t.recordedWith), [undefined]);
  const own = path.join(workspace, 'comm-table-vm.json');
  fs.writeFileSync(own, JSON.stringify(measured));
  assert.deepEqual((await whatIfOptions([workspace], globs, tables)).traces.map((t) => t.recordedWith), [own]);
});

test('the panel predicts with the table the trace was recorded with, when it names one in the workspace', async () => {
  const samples = path.join(__dirname, '../../../samples');
  const trace = path.join(samples, 'mpi/traces/halo-4/traces.otf2');
  const ask = (tracedNetwork?: string) => whatIfForPanel([samples], { trace, scenarios: [{ nodes: 1 }], coresPerNode: 1, tracedNetwork, progressId: 'recorded-with' }, () => undefined, () => false);
  const assumed = await ask();
  const recorded = await ask(COMM_TABLE);
  assert.ok(assumed.ok && recorded.ok, JSON.stringify([assumed, recorded]));
  if (!assumed.ok || !recorded.ok) return;
  // This machine's table has a scheduler slice: the four ranks on one core take it in turns, and the prediction is the CLI's.
  assert.deepEqual(assumed.notes, []);
  assert.equal(recorded.notes.length, 1);
  assert.match(recorded.notes[0], /^ranks sharing a core take it in turns/);
  const cli = JSON.parse((await whatif(['--json', trace, '--traced-network', COMM_TABLE, '--placement', '4/1', '--cores', '1'])).out);
  assert.equal(recorded.scenarios[0].predictedSeconds, cli.scenarios[0].predictedSeconds);
  assert.notEqual(recorded.scenarios[0].predictedSeconds, assumed.scenarios[0].predictedSeconds);
  // A table outside the workspace is refused, as a trace or network there would be.
  const outside = await whatIfForPanel([path.join(samples, 'mpi/traces')], { trace, scenarios: [{}], tracedNetwork: COMM_TABLE, progressId: 'outside' }, () => undefined, () => false);
  assert.deepEqual(outside, { ok: false, message: `${COMM_TABLE} is outside the workspace` });
});

test("the panel's prediction carries a damaged trace's problems, as the CLI prints them, and predicts from the rest", async () => {
  const damaged = path.join(WORK, 'halo-4-damaged');
  fs.cpSync(path.join(__dirname, '../../../samples/mpi/traces/halo-4'), damaged, { recursive: true });
  const events = path.join(damaged, 'traces', '2.evt');
  fs.truncateSync(events, Math.floor(fs.statSync(events).size * 0.6));
  const trace = path.join(damaged, 'traces.otf2');
  const result = await whatIfForPanel([WORK], { trace, scenarios: [{ nodes: 2 }], coresPerNode: 1, progressId: 'problems' }, () => undefined, () => false);
  assert.ok(result.ok, result.ok ? '' : result.message);
  assert.ok(result.problems.length > 0, 'a truncated event file is a problem');
  assert.ok(result.problems[0].startsWith(`${events} @`) && /@\d+: \S/.test(result.problems[0]), `names the file and the offset: ${result.problems[0]}`);
  assert.ok(result.scenarios[0].predictedSeconds > 0, 'the rest is still predicted');
  const cli = await whatif([trace, '--placement', '4/2', '--cores', '1']);
  assert.equal(cli.code, 1);
  // The CLI's warnings and notes (the replay of the damaged run may land far from it) are not problems.
  const problemLines = cli.err.split('\n').filter((line) => line && !/^causal-lens whatif: (warning|note): /.test(line));
  assert.deepEqual(problemLines, result.problems.map((problem) => `causal-lens whatif: ${problem}`));
});

test("the side panel's CSV export carries each rank's finish and the CPU the replay gave its computations and its calls", async () => {
  const result = await whatIfForPanel([WORK, path.dirname(COMM_TABLE)], { trace: traces.get('pipeline')!, scenarios: [{ nodes: 1 }, { nodes: 2 }], coresPerNode: 1, tracedNetwork: COMM_TABLE, progressId: 'csv' }, () => undefined, () => false);
  assert.ok(result.ok, result.ok ? '' : result.message);
  // RFC 4180 cells: a network's name has commas, so it is quoted.
  const cells = (line: string) => {
    const out = [''];
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted && c === '"' && line[i + 1] === '"') out[out.length - 1] += line[++i];
      else if (c === '"') quoted = !quoted;
      else if (c === ',' && !quoted) out.push('');
      else out[out.length - 1] += c;
    }
    return out;
  };
  const rows = scenariosCsv(result).trim().split('\n').map(cells);
  assert.deepEqual(rows[0], ['placement', 'network', 'rank', 'predicted_s', 'measured_s', 'compute_s', 'comm_s', 'wait_s', 'cpu_compute_s', 'cpu_calls_s', 'spread_low_s', 'spread_high_s']);
  assert.equal(rows.length, 1 + result.scenarios.length * 5, 'a row per scenario and one per rank of it');
  for (const s of result.scenarios) {
    const ofScenario = rows.filter((row) => row[0] === s.placement);
    // The sample table was measured once: no spread.
    assert.deepEqual(ofScenario[0].slice(2), ['all', String(s.predictedSeconds), String(result.measuredSeconds), String(s.criticalPath.computeSeconds), String(s.criticalPath.commSeconds), String(s.criticalPath.waitSeconds), '', '', '', '']);
    for (const r of s.perRank) {
      const row = ofScenario.find((cells) => cells[2] === String(r.rank))!;
      assert.deepEqual([row[3], row[8], row[9]].map(Number), [r.finishSeconds, r.computeCpuSeconds, r.callCpuSeconds]);
      // The pipeline's stages copy 512 KiB blocks in their receives: every rank but the first spends CPU in calls.
      if (r.rank > 0) assert.ok(r.callCpuSeconds > 0, `${s.placement} rank ${r.rank}`);
    }
  }
});

test("with the tables' spread, each scenario is also predicted with every point at its fastest and slowest measurement", async () => {
  // Measured three times on this machine: each point's median, with its extremes.
  const repeated = path.join(__dirname, '../../../test/fixtures/network/comm-table-repeat3.json');
  const trace = traces.get('latency')!;
  const scenarios = [{ nodes: 1 }, { nodes: 2 }, { nodes: 2, network: 'gbe' }];
  const options = { tracedNetwork: loadCommTable(repeated), coresPerNode: 1 };
  const plain = await predictScenarios(trace, scenarios, options);
  const spread = await predictScenarios(trace, scenarios, { ...options, tableSpread: true });
  assert.ok(plain.scenarios.every((s) => s.tableSpread === undefined), 'asked for none');
  // The same as predicting with each bound as the table the trace was recorded on, separately.
  const low = await predictScenarios(trace, scenarios, { ...options, tracedNetwork: tableAtBound(options.tracedNetwork, 'low') });
  const high = await predictScenarios(trace, scenarios, { ...options, tracedNetwork: tableAtBound(options.tracedNetwork, 'high') });
  spread.scenarios.forEach((s, i) => {
    assert.equal(s.predictedSeconds, plain.scenarios[i].predictedSeconds, 'the median table predicts as without the spread');
    const range = s.tableSpread!;
    const three = [plain, low, high].map((p) => p.scenarios[i].predictedSeconds);
    assert.deepEqual([range.lowSeconds, range.highSeconds], [Math.min(...three), Math.max(...three)], `${s.placement}, ${s.network}`);
    // A latency-bound program on a machine whose speed moved while it calibrated: its predictions move too
    // (with gbe between nodes, its ranks' turns and copies inside a node keep the traced table's spread).
    assert.ok(range.highSeconds > range.lowSeconds, `${s.placement}, ${s.network}: ${JSON.stringify(range)}`);
  });
  // A table measured once has no spread to predict with.
  const once = await predictScenarios(trace, [{ nodes: 2 }], { tracedNetwork: loadCommTable(COMM_TABLE), coresPerNode: 1, tableSpread: true });
  assert.equal(once.scenarios[0].tableSpread, undefined);
  assert.equal(once.notes.at(-1), NO_SPREAD_NOTE, 'and says so, after how the trace was replayed');
  assert.ok(!spread.notes.includes(NO_SPREAD_NOTE) && !plain.notes.includes(NO_SPREAD_NOTE));
  // The CLI, asked for the spread, says when there is none.
  const onceCli = await whatif([trace, '--traced-network', COMM_TABLE, '--placement', '4/2', '--cores', '1', '--spread']);
  assert.ok(onceCli.err.includes(`causal-lens whatif: note: ${NO_SPREAD_NOTE}`), onceCli.err);
  // The CLI (--spread) and the panel give the same ranges.
  const cli = await whatif(['--json', trace, '--traced-network', repeated, '--placement', '4/1', '--placement', '4/2', '--cores', '1', '--spread']);
  const cliScenarios = (JSON.parse(cli.out) as { scenarios: { tableSpread: unknown }[] }).scenarios;
  assert.deepEqual(cliScenarios.map((s) => s.tableSpread), spread.scenarios.slice(0, 2).map((s) => s.tableSpread));
  const text = (await whatif([trace, '--traced-network', repeated, '--placement', '4/1', '--cores', '1', '--spread'])).out;
  const range = spread.scenarios[0].tableSpread!;
  assert.ok(text.includes(`${range.lowSeconds.toFixed(4)}–${range.highSeconds.toFixed(4)} s over the tables' spread`), text);
  const panel = await whatIfForPanel([WORK, path.dirname(repeated)], { trace, scenarios: [{ nodes: 1 }], coresPerNode: 1, tracedNetwork: repeated, tableSpread: true, progressId: 'spread' }, () => undefined, () => false);
  assert.ok(panel.ok, panel.ok ? '' : panel.message);
  assert.deepEqual(panel.scenarios[0].tableSpread, range);
  // Its CSV export carries the range on the scenario's row.
  const [header, all] = scenariosCsv(panel).trim().split('\n').map((line) => line.split(','));
  assert.deepEqual(header.slice(-2), ['spread_low_s', 'spread_high_s']);
  assert.deepEqual(all.slice(-2).map(Number), [range.lowSeconds, range.highSeconds]);
});

test('several scenarios read the trace once, side by side: each predicts what it predicts alone', async () => {
  const scenarios = (np: number) => [{ nodes: 1 }, { nodes: 2 }, { nodes: 2, cyclic: true }, { nodes: np, network: 'gbe' }];
  for (const [program, np] of PROGRAMS) {
    const trace = traces.get(program)!;
    // With another run's computations and timed speeds too: their streams are read once as well.
    const options = { tracedNetwork: loadCommTable(COMM_TABLE), coresPerNode: 1, computeFrom: trace, timedCompute: { source: [1, 1, 1, 1], target: [1.1, 0.9, 1, 1.2] } };
    const together = await predictScenarios(trace, scenarios(np), options);
    for (const [i, scenario] of scenarios(np).entries()) {
      const alone = await predictScenarios(trace, [scenario], options);
      assert.deepEqual(together.scenarios[i], alone.scenarios[0], `${program}, ${JSON.stringify(scenario)}`);
      assert.equal(together.measuredSeconds, alone.measuredSeconds);
    }
  }
});

test("the validation's trace probes read the recorder's records (each printed nothing or NaN when the reader's record ids moved out of its exports)", () => {
  const probe = (script: string, program: string) => {
    const result = spawnSync(process.execPath, [path.join(__dirname, '../../../validation/pem', script), traces.get(program)!], { encoding: 'utf8', env: { ...process.env, NODES: '2' } });
    assert.equal(result.status, 0, `${script}: ${result.stderr}`);
    assert.doesNotMatch(result.stdout, /NaN/, `${script} on ${program}`);
    return result.stdout;
  };
  assert.match(probe('core-cpu.mjs', 'halo'), /node 1: CPU \d+\.\d ms \(\d+%\), in calls \d+\.\d ms: MPI_/);
  assert.match(probe('wait-cpu.mjs', 'halo'), /per rank: (\d+\.\d% ){3}\d+\.\d%; all ranks: \d/);
  assert.match(probe('slices.mjs', 'master_worker'), /^CPU 0–0\.25 ms: [1-9]\d* computations/m);
  assert.match(probe('turns.mjs', 'latency'), /^\| CPU [^|]+ \| the same core \| 0 \| [1-9]\d* \| \d+ µs \|$/m);
  assert.match(probe('barriers.mjs', 'latency'), /: [1-9]\d* barriers; ranks arrive/);
});

test('causal-lens whatif shows its progress on a terminal, erased before its results, and none in a pipe', () => {
  const argv = [path.join(__dirname, '../../../bin/causal-lens.js'), 'whatif', traces.get('halo')!, '--placement', '4/2'];
  // util-linux's script gives the command a terminal; its output is the terminal's.
  const terminal = spawnSync('script', ['-qec', [process.execPath, ...argv].map((a) => `'${a}'`).join(' '), '/dev/null'], { encoding: 'utf8' });
  assert.equal(terminal.status, 0, terminal.stderr);
  assert.match(terminal.stdout, /^(\rcausal-lens whatif: \d+%)+\r\x1b\[Kmeasured \d/);
  const piped = spawnSync(process.execPath, argv, { encoding: 'utf8' });
  assert.equal(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, /^measured \d/);
  assert.doesNotMatch(piped.stderr, /\r|%/);
});

