// PEM validation on this machine: placements (Ps-PEM). Re-runnable:
//   npx tsc -p . && scripts/build-mpi.sh && node validation/pem/validate.mjs [--reps 5] [--programs a,b] [--configs 2/1,2/2,...] [--results FILE]
//   [--keep DIR] [--kept DIR] (keep the traces and times; predict from kept ones again without running)
//   [--spread] (also predict each traced target with the table's points at their fastest and slowest
//   calibration, and count the cases whose measured time lies within that range)
//   [--calibrations K] (calibrations per repetition, spread among its programs; default 2)
// For every program and every configuration N/M (N ranks on M emulated nodes: each node is one
// core, ranks pinned in blocks by pin-rank.sh under taskset), the program runs REPS times under
// the recorder, the configurations interleaved so that slow phases of this VM hit all of them.
// Each trace of configuration X predicts every configuration Y with the same N.
// The VM's CPU speed changes under it (placement.md: raw times of one run spread 14–130%), so
// the judged comparison gives PEM the target run's own per-rank computations (`computeFrom`,
// placement.md §7's recommendation): X's trace supplies the calls, messages and placement, each
// traced run r of Y its computations, and error of X→Y = median over r of (predicted Y with r's
// computations ÷ r's measured time) − 1: only scheduling and communication are judged.
// Measured = the trace's run time with the recorder's suspensions removed.
// Also, speed-normalised: a run's time divided by its own total compute CPU time (the trace's
// CPU_TIME metric); error = (predicted Y / CPU of X's run) ÷ median over Y's runs of
// (measured Y / CPU of that run) − 1. And untraced: each configuration also runs without the
// recorder right after its traced twin (the program's own elapsed time), predicted with the
// tracing cost per call removed (`eventCostSeconds: 'auto'`), from the twin's computations scaled
// per rank to the speed the untraced run timed its own compute sections at (`timedCompute`:
// samples/mpi/counts.h), and raw: from X's own computations. Prints a Markdown table and writes
// results.json beside it (with --kept DIR, in DIR).
// Networks (N-PEM): networks.mjs beside this script (it needs ../shared/tools/netns-mpi).

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredOn, readKept, workDir, writeKept } from './kept.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const { recordTrace } = require(path.join(root, 'out/server/src/mpi/recordTrace.js'));
const { predictScenarios } = require(path.join(root, 'out/server/src/pem/index.js'));
const { COMM_TABLE_SCHEMA } = require(path.join(root, 'out/server/src/network/commTable.js'));
const { parsePingPong, measureSharedCore, measureRecorderCosts, measureSchedulerSlice, measureSchedulerTick, medianPoints, medianSeconds } = require(path.join(root, 'out/server/src/mpi/calibration.js'));
const { mpirunArgv, runMpi } = require(path.join(root, 'out/server/src/mpi/launch.js'));
const { openOtf2Archive, communicatorRanks } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { Otf2RankStream, cpuTimeMetrics } = require(path.join(root, 'out/server/src/pem/otf2Ops.js'));

/**
 * Each program's binary in build/mpi and its arguments. halo_fine, run only when named in
 * --programs, is the halo computing about 10 µs between its calls instead of about 0.5 ms
 * (docs/pem.md, Accuracy, "a fine-grained halo").
 */
const PROGRAMS = {
  master_worker: { binary: 'master_worker', args: ['300'] },
  halo: { binary: 'halo', args: ['400000', '60'] },
  pipeline: { binary: 'pipeline', args: ['200', '65536'] },
  alltoall_sort: { binary: 'alltoall_sort', args: ['400000', '3'] },
  latency: { binary: 'latency', args: ['10000'] },
  halo_fine: { binary: 'halo', args: ['8000', '5000'] },
};
const DEFAULT_PROGRAMS = ['master_worker', 'halo', 'pipeline', 'alltoall_sort', 'latency'];

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const reps = Number(option('reps', '5'));
const calibrationsPerRep = Number(option('calibrations', '2'));
if (!(Number.isInteger(calibrationsPerRep) && calibrationsPerRep >= 1)) {
  process.stderr.write(`validate.mjs: --calibrations needs a whole number of 1 or more, got ${option('calibrations')}\n`);
  process.exit(2);
}
const programs = option('programs', DEFAULT_PROGRAMS.join(',')).split(',');
const unknown = programs.filter((name) => !PROGRAMS[name]);
if (unknown.length > 0) {
  process.stderr.write(`validate.mjs: unknown program ${unknown.join(', ')}; known: ${Object.keys(PROGRAMS).join(', ')}\n`);
  process.exit(2);
}
const configs = option('configs', '2/1,2/2,4/1,4/2,8/1,8/2').split(',');
const build = process.env.CAUSAL_LENS_MPI_BUILD || path.join(root, 'build/mpi');
process.env.CAUSAL_LENS_MPI_BUILD = build;

/** pin-rank.sh's arguments for one program on `nodes` emulated nodes. */
const pinnedArgs = (program, nodes) => [String(nodes), path.join(build, PROGRAMS[program].binary), ...PROGRAMS[program].args];

// --keep DIR keeps the traces and measured times (DIR/measured.json); --kept DIR predicts from them again.
const spread = process.argv.includes('--spread');
const keep = option('keep');
const kept = option('kept');
const work = workDir(keep, 'causal-lens-pem-validation-');

/** Ping-pong between two ranks pinned like ranks of `nodes` emulated nodes (1: both on core 0). */
async function pingPong(nodes) {
  const argv = mpirunArgv({ np: 2, program: path.join(here, 'pin-rank.sh'), args: [String(nodes), path.join(build, 'causal-lens-pingpong'), '0.02'] });
  const result = await runMpi(argv, () => undefined);
  if (result.code !== 0) throw new Error(`ping-pong on ${nodes} emulated node(s) failed`);
  return parsePingPong(result.stdout, `ping-pong on ${nodes} emulated node(s)`);
}

// The network of the emulated nodes: inside a node both ranks share one core (a message costs
// a switch between them), between nodes they are on two cores; with more ranks on a core a
// message also waits for its receiver's turn (sharedCore). Open MPI's vader eager limit.
/** Total compute CPU seconds of a trace (every rank's computation between MPI calls). */
function computeSeconds(archivePath) {
  const archive = openOtf2Archive(archivePath);
  const comms = communicatorRanks(archive.defs);
  let total = 0;
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    for (let op = stream.next(); op; op = stream.next()) total += op.compute;
  }
  return total;
}

/** Each rank's CPU seconds in its compute sections, as the program timed them (samples/mpi/counts.h). */
function timedCompute(stdout) {
  const seconds = [];
  for (const m of stdout.matchAll(/^compute rank=(\d+) seconds=([\d.]+)$/gm)) seconds[Number(m[1])] = Number(m[2]);
  return seconds;
}

/** Whether a run's untraced twin timed its compute sections (runs kept before 2026-11-27 10:00 did not). */
const timedUntraced = (run) => run.untracedTimedCompute?.length > 0;

/** An untraced run: its time, the slowest rank's own "elapsed" line (MPI_Init to the end of its work), and its timed compute. */
async function untracedRun(program, np, nodes) {
  const argv = mpirunArgv({ np, program: path.join(here, 'pin-rank.sh'), args: pinnedArgs(program, nodes) });
  const result = await runMpi(argv, () => undefined);
  if (result.code !== 0) throw new Error(`${program} ${np}/${nodes} untraced failed`);
  return { seconds: Math.max(...[...result.stdout.matchAll(/elapsed rank=\d+ seconds=([\d.]+)/g)].map((m) => Number(m[1]))), timedCompute: timedCompute(result.stdout) };
}

/**
 * One calibration of the emulated nodes: the ping-pong on one core and on two, with k ranks on a
 * core (polling and relaying), the recorder's cost per call, and the scheduler's tick.
 */
async function calibrate() {
  const { relayTurn, recorderCallSeconds, recorderTurn, clockReadSeconds } = await measureRecorderCosts([2, 4, 8]);
  const schedulerTickSeconds = await measureSchedulerTick();
  const schedulerSliceSeconds = await measureSchedulerSlice(schedulerTickSeconds);
  return { intraNode: await pingPong(1), interNode: await pingPong(2), sharedCore: await measureSharedCore([2, 3, 4, 6, 8], 0.02), relayTurn, recorderCallSeconds, recorderTurn, clockReadSeconds, schedulerTickSeconds, schedulerSliceSeconds };
}

/** The table's lists of points, each point the median of the calibrations' with their extremes; a list some calibration lacks is left out. */
function pointLists(calibrations) {
  const lists = {};
  for (const key of ['intraNode', 'interNode', 'sharedCore', 'relayTurn', 'recorderTurn']) {
    if (calibrations.every((c) => c[key])) lists[key] = medianPoints(calibrations.map((c) => c[key]));
  }
  return lists;
}

/**
 * Calibrates the emulated nodes K times per repetition, spread among its programs, and traces and
 * times every configuration REPS times, interleaved.
 */
async function measure() {
  // A 20 ms ping-pong moves with this VM's speed as much as the runs do (one run: 1.64 and
  // 2.63 µs for the same 2 ranks on a core), so the table is the median of several. Messages on
  // a shared core come in a fast and a slow phase (slow in about 40% of calibrations and of the
  // latency program's runs alike): the median of five fell in the slow one in two runs of five,
  // and ten halve the chance (docs/pem.md, Accuracy, 2026-11-27 07:30).
  const calibrations = [];
  const runs = {};
  for (let rep = 0; rep < reps; rep++) {
    for (const [index, program] of programs.entries()) {
      // Apart in time, the calibrations sample the machine's phases apart.
      for (let c = 0; c < calibrationsPerRep; c++) if (Math.floor((c * programs.length) / calibrationsPerRep) === index) calibrations.push(await calibrate());
      for (const config of configs) {
        const [np, nodes] = config.split('/').map(Number);
        const outDir = path.join(work, `${program}-${np}-${nodes}-${rep}`);
        const summary = await recordTrace({
          np,
          outDir,
          program: path.join(here, 'pin-rank.sh'),
          args: pinnedArgs(program, nodes),
        });
        if (summary.truncated) throw new Error(`${program} ${config}: ${summary.truncated}`);
        // The measured time is the trace's; the network does not change it.
        const { measuredSeconds } = await predictScenarios(summary.archive, []);
        const cpu = computeSeconds(summary.archive);
        const { seconds: untraced, timedCompute: untracedTimedCompute } = await untracedRun(program, np, nodes);
        (runs[`${program} ${config}`] ??= []).push({ archive: summary.archive, measuredSeconds, cpu, np, nodes, untraced, timedCompute: timedCompute(summary.stdout), untracedTimedCompute });
        process.stderr.write(`${program} ${config} rep ${rep + 1}: traced ${measuredSeconds.toFixed(3)} s, compute ${cpu.toFixed(3)} s, untraced ${untraced.toFixed(3)} s\n`);
      }
    }
  }
  const traced = {
    schema: COMM_TABLE_SCHEMA,
    name: `emulated nodes on this machine (pinned ping-pong, median of ${calibrations.length} calibrations, ${calibrationsPerRep} per repetition)`,
    source: 'measured',
    createdAt: new Date().toISOString(),
    eagerLimitBytes: 4096,
    // The emulated nodes are cores of one machine: a message between them is the receiver's copy.
    interNodeSharedMemory: true,
    ...pointLists(calibrations),
    recorderCallSeconds: medianSeconds(calibrations.map((c) => c.recorderCallSeconds)),
    schedulerTickSeconds: medianSeconds(calibrations.map((c) => c.schedulerTickSeconds)),
    schedulerSliceSeconds: medianSeconds(calibrations.map((c) => c.schedulerSliceSeconds)),
  };
  // A calibration whose traces timed too few reads of the CPU clock has none; with none at all, neither has the table.
  const reads = calibrations.flatMap((c) => (c.clockReadSeconds === undefined ? [] : [c.clockReadSeconds]));
  if (reads.length) traced.clockReadSeconds = medianSeconds(reads);
  const microseconds = (points, pick) => points.map((p) => (pick(p) * 1e6).toFixed(2)).join(' ');
  process.stderr.write(`one-way 8 B, per calibration: same core ${microseconds(calibrations, (c) => c.intraNode.find((p) => p.bytes === 8).seconds)} µs, two cores ${microseconds(calibrations, (c) => c.interNode.find((p) => p.bytes === 8).seconds)} µs\n`);
  process.stderr.write(`0 B with k ranks on one core, medians: ${traced.sharedCore.map((p) => `${p.ranksPerCore}: ${(p.seconds * 1e6).toFixed(2)} µs`).join(', ')}\n`);
  process.stderr.write(`relaying turn with k ranks on one core, medians: ${traced.relayTurn.map((p) => `${p.ranksPerCore}: ${(p.seconds * 1e6).toFixed(2)} µs`).join(', ')}; recorder per call ${(traced.recorderCallSeconds * 1e6).toFixed(3)} µs, per turn ${traced.recorderTurn.map((p) => `${p.ranksPerCore}: ${(p.seconds * 1e6).toFixed(3)} µs`).join(', ')}; CPU-clock read ${traced.clockReadSeconds === undefined ? 'not timed' : `${(traced.clockReadSeconds * 1e9).toFixed(0)} ns`} (per calibration ${calibrations.map((c) => (c.clockReadSeconds === undefined ? '-' : (c.clockReadSeconds * 1e9).toFixed(0))).join(' ')}); scheduler's tick ${(traced.schedulerTickSeconds * 1e3).toFixed(2)} ms, slice ${(traced.schedulerSliceSeconds * 1e3).toFixed(2)} ms\n`);
  return { traced, runs, calibrations };
}

const { traced, runs, calibrations } = kept ? readKept(kept) : await measure();
if (kept) {
  // Runs kept by an earlier version are judged as fresh ones: their table says what the emulated
  // nodes are, and their times and computations are read again with this reader (a run's time
  // ends where its last rank enters MPI_Finalize).
  traced.interNodeSharedMemory = true;
  // Tables kept before their points carried the calibrations' extremes get them (the medians are the same).
  if (calibrations?.length > 1) Object.assign(traced, pointLists(calibrations));
  for (const run of Object.values(runs).flat()) {
    run.measuredSeconds = (await predictScenarios(run.archive, [])).measuredSeconds;
    run.cpu = computeSeconds(run.archive);
  }
}
const machine = measuredOn(kept);
// Each calibration is kept beside the table made of them (runs kept before 2026-11-27 02:00 have none).
if (keep) writeKept(work, { traced, runs, calibrations }, machine);
const repetitions = Object.values(runs)[0].length;

const rows = [];
for (const program of programs) {
  for (const from of configs) {
    const source = runs[`${program} ${from}`][0];
    const targets = configs.filter((c) => Number(c.split('/')[0]) === source.np);
    const scenarios = targets.map((c) => ({ nodes: Number(c.split('/')[1]) }));
    const prediction = await predictScenarios(source.archive, scenarios, { tracedNetwork: traced, coresPerNode: 1 });
    const untracedPrediction = await predictScenarios(source.archive, scenarios, { tracedNetwork: traced, coresPerNode: 1, eventCostSeconds: 'auto' });
    const targetRatios = [];
    const untracedTargetRatios = [];
    const spreadRatios = [];
    for (const to of targets) {
      const ratios = [];
      const untracedRatios = [];
      const lowHigh = [];
      for (const run of runs[`${program} ${to}`]) {
        const withTargetCompute = await predictScenarios(source.archive, [{ nodes: run.nodes }], { tracedNetwork: traced, coresPerNode: 1, computeFrom: run.archive, tableSpread: spread });
        ratios.push(withTargetCompute.scenarios[0].predictedSeconds / run.measuredSeconds);
        const range = withTargetCompute.scenarios[0].tableSpread;
        if (range) lowHigh.push([range.lowSeconds / run.measuredSeconds, range.highSeconds / run.measuredSeconds]);
        // Its twin's computations at the speed the untraced run timed its own.
        const timed = timedUntraced(run) ? { timedCompute: { source: run.timedCompute, target: run.untracedTimedCompute } } : {};
        const untracedWithTargetCompute = await predictScenarios(source.archive, [{ nodes: run.nodes }], { tracedNetwork: traced, coresPerNode: 1, computeFrom: run.archive, eventCostSeconds: 'auto', ...timed });
        untracedRatios.push(untracedWithTargetCompute.scenarios[0].predictedSeconds / run.untraced);
      }
      targetRatios.push(ratios);
      untracedTargetRatios.push(untracedRatios);
      spreadRatios.push(lowHigh);
    }
    targets.forEach((to, i) => {
      const measured = runs[`${program} ${to}`];
      const measuredNorm = medianSeconds(measured.map((r) => r.measuredSeconds / r.cpu));
      const predictedNorm = prediction.scenarios[i].predictedSeconds / source.cpu;
      rows.push({
        program,
        from,
        to,
        targetComputeErrorPercent: (medianSeconds(targetRatios[i]) - 1) * 100,
        targetComputeRangePercent: [(Math.min(...targetRatios[i]) - 1) * 100, (Math.max(...targetRatios[i]) - 1) * 100],
        // --spread: the median over the target runs of the predictions with the table's fastest and slowest points.
        ...(spreadRatios[i].length > 0 ? { targetComputeSpreadPercent: [(medianSeconds(spreadRatios[i].map((r) => r[0])) - 1) * 100, (medianSeconds(spreadRatios[i].map((r) => r[1])) - 1) * 100] } : {}),
        untracedTargetErrorPercent: (medianSeconds(untracedTargetRatios[i]) - 1) * 100,
        untracedTargetRangePercent: [(Math.min(...untracedTargetRatios[i]) - 1) * 100, (Math.max(...untracedTargetRatios[i]) - 1) * 100],
        // Of those untraced runs, how many were predicted at the speed they timed their compute at.
        untracedTimedComputeRuns: measured.filter(timedUntraced).length,
        measuredMedianSeconds: medianSeconds(measured.map((r) => r.measuredSeconds)),
        predictedSeconds: prediction.scenarios[i].predictedSeconds,
        measuredNormalised: measuredNorm,
        predictedNormalised: predictedNorm,
        errorPercent: (predictedNorm / measuredNorm - 1) * 100,
        untracedMedianSeconds: medianSeconds(measured.map((r) => r.untraced)),
        predictedUntracedSeconds: untracedPrediction.scenarios[i].predictedSeconds,
        rawErrorPercent: (untracedPrediction.scenarios[i].predictedSeconds / medianSeconds(measured.map((r) => r.untraced)) - 1) * 100,
        spreadPercent: (Math.max(...measured.map((r) => r.measuredSeconds / r.cpu)) / Math.min(...measured.map((r) => r.measuredSeconds / r.cpu)) - 1) * 100,
      });
    });
  }
}

// Runs judged again (--kept) write beside them, not over the committed results of the last fresh run.
fs.writeFileSync(option('results', path.join(kept ?? here, 'results.json')), `${JSON.stringify({ date: new Date().toISOString(), machine, reps: repetitions, calibration: traced, rows }, null, 1)}\n`);
const pct = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
process.stdout.write('| program | traced | predicted | untraced target, tracer removed, target computations (median; range) | traced target, target computations (median; range) | measured time / compute (median) | predicted / compute | speed-normalised error | spread of the measured runs | untraced runs, median s | predicted, tracing cost removed, s | raw error |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n');
for (const r of rows) {
  process.stdout.write(`| ${r.program} | ${r.from} | ${r.to} | ${pct(r.untracedTargetErrorPercent)} (${pct(r.untracedTargetRangePercent[0])} … ${pct(r.untracedTargetRangePercent[1])}) | ${pct(r.targetComputeErrorPercent)} (${pct(r.targetComputeRangePercent[0])} … ${pct(r.targetComputeRangePercent[1])}) | ${r.measuredNormalised.toFixed(3)} | ${r.predictedNormalised.toFixed(3)} | ${r.errorPercent >= 0 ? '+' : ''}${r.errorPercent.toFixed(1)}% | ${r.spreadPercent.toFixed(0)}% | ${r.untracedMedianSeconds.toFixed(4)} | ${r.predictedUntracedSeconds.toFixed(4)} | ${r.rawErrorPercent >= 0 ? '+' : ''}${r.rawErrorPercent.toFixed(1)}% |\n`);
}
const within = (key) => rows.filter((r) => Math.abs(r[key]) <= 5).length;
process.stdout.write(`\nmeasured on: ${machine}\nwithin 5% of ${rows.length} (reps ${repetitions}): ${within('untracedTargetErrorPercent')} untraced targets with their traces' computations, ${within('targetComputeErrorPercent')} traced targets with their computations, ${within('errorPercent')} speed-normalised, ${within('rawErrorPercent')} raw\n`);
for (const program of programs) {
  const own = rows.filter((r) => r.program === program);
  for (const [key, what] of [['untracedTargetErrorPercent', 'untraced targets'], ['targetComputeErrorPercent', 'traced targets']]) {
    const errors = own.map((r) => r[key]);
    process.stdout.write(`${program}, ${what}: ${own.filter((r) => Math.abs(r[key]) <= 5).length} of ${own.length} within 5%, ${pct(Math.min(...errors))} … ${pct(Math.max(...errors))}\n`);
  }
}
const spreadRows = rows.filter((r) => r.targetComputeSpreadPercent);
if (spreadRows.length > 0) {
  const holds = (r) => r.targetComputeSpreadPercent[0] <= 0 && r.targetComputeSpreadPercent[1] >= 0;
  const missed = spreadRows.filter((r) => Math.abs(r.targetComputeErrorPercent) > 5);
  process.stdout.write(`the table's spread (its points' fastest and slowest calibration): the range holds the measured time in ${spreadRows.filter(holds).length} of ${spreadRows.length} traced targets, ${missed.filter(holds).length} of the ${missed.length} beyond 5%\n`);
  for (const program of programs) {
    const own = spreadRows.filter((r) => r.program === program);
    const widths = own.map((r) => r.targetComputeSpreadPercent[1] - r.targetComputeSpreadPercent[0]).sort((a, b) => a - b);
    if (own.length) process.stdout.write(`${program}: range holds ${own.filter(holds).length} of ${own.length}, width ${widths[0].toFixed(1)} … ${widths[widths.length - 1].toFixed(1)} points (median ${medianSeconds(widths).toFixed(1)})\n`);
  }
}
if (!keep) fs.rmSync(work, { recursive: true, force: true });
