// PEM validation of networks (N-PEM), re-runnable as root with the netns kit
// (../shared/tools/netns-mpi, see its README and reference/netns-mpi.md):
//   cp -r ../shared/tools/netns-mpi KIT && cd KIT && gcc -O2 -o nfqdelay nfqdelay.c -lnetfilter_queue -lnfnetlink && ./setup.sh
//   npx tsc -p . && scripts/build-mpi.sh && node validation/pem/networks.mjs --kit KIT [--reps 5] [--results FILE]
//   (then KIT/teardown.sh); --keep DIR keeps every trace and table, --kept DIR predicts from them again
// Two emulated nodes: namespaces ns0 and ns1 joined by a veth link shaped by nfqdelay (one FIFO
// per direction: delay + size/rate, netem's rule), each node one core (pin-rank.sh: ranks 0-1 in
// ns0 on core 0, ranks 2-3 in ns1 on core 1), halo with 4 ranks, Open MPI over TCP. The link
// emulator runs as one process per receiving node, pinned to its core (shape-per-node.sh), and its
// CPU per message and per byte during the ping-pongs becomes the table's stackCpu, and the median first
// round trip of its five runs less a later one its connectSeconds (TCP connections open at the first message), and the
// relaying turn of 2 and 4 ranks on node 0's core over TCP its relayTurn (a rank that waited takes its shared core back;
// 6.6 µs over TCP against 0.8 µs through shared memory), with the recorder's cost per call, and the
// scheduler's tick (calibration.ts, measureSchedulerTick: a node's waiting rank gets its core back
// from the computing one at a tick). For each
// network: calibrate (ping-pong pinned inside a node and across the link), then REPS traced and
// REPS untraced runs, each under the kit's clean-run guard (guarded.sh: wait for a quiet
// machine, retry runs that other processes disturbed). Every network's first trace predicts
// every network (its own calibration as the traced network, the other's as the scenario):
// - judged: with each target run's own computations (`computeFrom`, as validate.mjs: this VM's
//   speed changes under it), error = median over the target's traced runs of predicted ÷
//   measured − 1 (measured: the trace's span, suspensions removed);
// - raw: the tracing cost removed (`auto`) against the median of the untraced runs' own elapsed
//   times.
// Prints a Markdown table and writes networks.json beside this script (with --kept DIR, in DIR; or --results FILE).

import './closed-pipe.mjs';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredOn, readKept, workDir, writeKept } from './kept.mjs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const { predictScenarios } = require(path.join(root, 'out/server/src/pem/index.js'));
const { COMM_TABLE_SCHEMA } = require(path.join(root, 'out/server/src/network/commTable.js'));
const { measureSchedulerTick, medianSeconds, parseFirstOneWay, parsePingPong, parseRelayTurn, recorderCallCost, relayCommand } = require(path.join(root, 'out/server/src/mpi/calibration.js'));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// --kept DIR predicts again from what --keep DIR kept, without measuring.
const kept = option('kept');
const kit = option('kit');
/** Stops with a message naming what is missing, without a stack. */
function stop(message) {
  process.stderr.write(`networks.mjs: ${message}\n`);
  process.exit(2);
}
if (!kit && !kept) stop('--kit DIR: a prepared copy of ../shared/tools/netns-mpi (see the header of this script)');

/** What a measuring run needs that the machine or the kit lacks (the kit's README lists it). */
function kitProblems(dir) {
  const onPath = (command) => (process.env.PATH ?? '').split(':').some((d) => d && fs.existsSync(path.join(d, command)));
  const problems = [];
  if (process.getuid?.() !== 0) problems.push('it runs as root (network namespaces, iptables)');
  if (!onPath('iptables-legacy')) problems.push('iptables-legacy is not on PATH (apt-get install iptables)');
  if (!fs.existsSync(path.join(dir, 'nfqdelay'))) problems.push(`${dir}/nfqdelay is not built (apt-get install libnetfilter-queue-dev, then in ${dir}: gcc -O2 -o nfqdelay nfqdelay.c -lnetfilter_queue -lnfnetlink)`);
  if (!['ns0', 'ns1'].every((ns) => fs.existsSync(path.join('/run/netns', ns)))) problems.push(`the namespaces ns0 and ns1 do not exist (run ${dir}/setup.sh)`);
  return problems;
}
if (!kept) {
  const problems = kitProblems(kit);
  if (problems.length) stop(`cannot measure: ${problems.join('; ')}`);
}
const reps = Number(option('reps', '5'));
const build = process.env.CAUSAL_LENS_MPI_BUILD || path.join(root, 'build/mpi');
const pinned = (nodes, argv) => [path.join(here, 'pin-rank.sh'), String(nodes), ...argv];
const PROGRAM = pinned(2, [path.join(build, 'halo'), '400000', '100']);
const SMALL_RUNS = 4;
const NETWORKS = [
  { name: 'unshaped', shape: ['none', '0'] },
  { name: '100 Mbit/s + 100 µs', shape: ['100', '100'] },
  { name: '10 Mbit/s + 1 ms', shape: ['10', '1000'] },
];
// --keep DIR keeps the traces, tables and measured times (DIR/measured.json) to predict again from.
const keep = option('keep');
const work = workDir(keep, 'causal-lens-pem-networks-');
const sameNode = path.join(work, 'hosts-one-node');
fs.writeFileSync(sameNode, 'node0 slots=2\n');

/** Runs mpirun in the namespaces under the clean-run guard; returns the program's standard output. */
async function mpirun(np, hostfile, env, argv) {
  const args = ['-np', String(np), '--hostfile', hostfile, '--mca', 'btl', 'tcp,self', '--mca', 'mpi_yield_when_idle', '1', '--bind-to', 'none'];
  for (const [k, v] of Object.entries(env)) args.push('-x', `${k}=${v}`);
  const out = path.join(work, 'guarded.out');
  try {
    await run(path.join(kit, 'guarded.sh'), [out, 'timeout', '600', path.join(kit, 'mpirun-ns.sh'), ...args, ...argv], { maxBuffer: 1 << 26 });
  } catch (error) {
    if (!fs.existsSync(out)) throw error;
    process.stderr.write(`every try of ${argv.map((a) => path.basename(a)).join(' ')} was disturbed by other processes; kept the last\n`);
  }
  return fs.readFileSync(out, 'utf8');
}

/** CPU seconds the link emulators have used so far (0 when the link is not shaped). */
function emulatorCpuSeconds() {
  const pids = path.join(kit, 'nfqdelay.pid');
  if (!fs.existsSync(pids)) return 0;
  let ns = 0;
  for (const pid of fs.readFileSync(pids, 'utf8').trim().split(/\s+/)) ns += Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  return ns * 1e-9;
}

/** Messages and bytes of one ping-pong run: each size's round trips and 3 warm-ups, both ways. */
function pingPongTraffic(points) {
  let messages = 0;
  let bytes = 0;
  for (const p of points) {
    messages += 2 * (p.samples + 3);
    bytes += 2 * (p.samples + 3) * p.bytes;
  }
  return { messages, bytes };
}

/** Ping-pong across the link; with the emulator's CPU during it. */
async function pingPongAcross(network, maxBytes) {
  const before = emulatorCpuSeconds();
  const output = await mpirun(2, path.join(kit, 'hosts2'), {}, pinned(2, [path.join(build, 'causal-lens-pingpong'), '0.05', String(maxBytes)]));
  const points = parsePingPong(output, `${network.name}: ping-pong across the link`);
  // The guard may have run it more than once; every try cost the emulator as much.
  const tries = Number(/# guarded: try (\d+)/.exec(output)?.[1] ?? 1);
  return { points, first: parseFirstOneWay(output), cpu: (emulatorCpuSeconds() - before) / tries, ...pingPongTraffic(points) };
}

/**
 * The relaying turn over TCP with k ranks on node 0's core (calibration.ts, measureRelayTurns): a
 * rank that waited takes its node's shared core back in it. With `traceDir`, traced by the recorder.
 */
async function relayTurnInNode(k, traceDir) {
  const hosts = path.join(work, `hosts-one-node-${k}`);
  fs.writeFileSync(hosts, `node0 slots=${k}\n`);
  const { program, args } = relayCommand(0);
  const env = traceDir ? { LD_PRELOAD: path.join(build, 'libcausal-lens-recorder.so'), CAUSAL_LENS_TRACE_DIR: traceDir } : {};
  return parseRelayTurn(await mpirun(k, hosts, env, [program, ...args]), `relaying ping-pong over TCP with ${k} ranks on a core${traceDir ? ', traced' : ''}`);
}

const elapsed = (stdout) => Math.max(...[...stdout.matchAll(/elapsed rank=\d+ seconds=([\d.]+)/g)].map((m) => Number(m[1])));

/** Calibrates, traces and times every network. */
async function measureNetworks() {
  const measured = [];
  try {
    for (const network of NETWORKS) {
      await run(path.join(here, 'shape-per-node.sh'), [kit, ...network.shape]);
      const pingpong = [path.join(build, 'causal-lens-pingpong'), '0.05'];
      // Small messages give the emulator's cost per message, the full calibration its cost per byte;
      // every run's first round trip opens a connection (one sample each, so several small runs).
      const smalls = [];
      for (let i = 0; i < SMALL_RUNS; i++) smalls.push(await pingPongAcross(network, 1024));
      const across = await pingPongAcross(network, 16 << 20);
      const perMessageSeconds = smalls.reduce((sum, run) => sum + run.cpu, 0) / smalls.reduce((sum, run) => sum + run.messages, 0);
      const perByteSeconds = Math.max(0, (across.cpu - perMessageSeconds * across.messages) / across.bytes);
      // The emulated nodes' two ranks share a core: a rank that waited takes it back (the relaying
      // turn, over TCP here: Open MPI's progress polls its sockets), and the recorder's cost per call.
      const relayTurn = [];
      for (const k of [2, 4]) relayTurn.push({ ranksPerCore: k, seconds: await relayTurnInNode(k) });
      const recorderCallSeconds = recorderCallCost(await relayTurnInNode(2, path.join(work, `relay-${network.shape.join('-')}`)), relayTurn[0].seconds);
      const table = {
        schema: COMM_TABLE_SCHEMA,
        name: network.name,
        source: 'measured',
        createdAt: new Date().toISOString(),
        eagerLimitBytes: 65536,
        intraNode: parsePingPong(await mpirun(2, sameNode, {}, pinned(1, pingpong)), `${network.name}: ping-pong inside a node`),
        interNode: across.points,
        ...(perMessageSeconds > 0 ? { stackCpu: { perMessageSeconds, perByteSeconds } } : {}),
        connectSeconds: Math.max(0, medianSeconds([...smalls, across].map((run) => run.first ?? 0)) - across.points[0].seconds),
        relayTurn,
        recorderCallSeconds,
        // The nodes' operating system's, the same for every network: measured outside the namespaces.
        schedulerTickSeconds: await measureSchedulerTick(),
      };
      const traced = [];
      const untraced = [];
      for (let rep = 0; rep < reps; rep++) {
        const traceDir = path.join(work, `${network.shape.join('-')}-${rep}`);
        await mpirun(4, path.join(kit, 'hosts4'), { LD_PRELOAD: path.join(build, 'libcausal-lens-recorder.so'), CAUSAL_LENS_TRACE_DIR: traceDir }, PROGRAM);
        const archive = path.join(traceDir, 'traces.otf2');
        const { measuredSeconds } = await predictScenarios(archive, [], { tracedNetwork: table });
        traced.push({ archive, measuredSeconds });
        untraced.push(elapsed(await mpirun(4, path.join(kit, 'hosts4'), {}, PROGRAM)));
      }
      measured.push({ network, table, traced, untraced });
      process.stderr.write(
        `${network.name}: one-way 8 B across ${(table.interNode.find((p) => p.bytes === 8).seconds * 1e6).toFixed(0)} µs; emulator CPU ${(perMessageSeconds * 1e6).toFixed(1)} µs per message + ${(perByteSeconds * 1e9).toFixed(2)} ns per byte; connection ${(table.connectSeconds * 1e3).toFixed(2)} ms; relaying turn ${(relayTurn[0].seconds * 1e6).toFixed(1)} µs, recorder ${(recorderCallSeconds * 1e6).toFixed(2)} µs per call; traced ${traced.map((t) => t.measuredSeconds.toFixed(3)).join(', ')} s; untraced ${untraced.map((t) => t.toFixed(3)).join(', ')} s\n`,
      );
    }
  } finally {
    await run(path.join(here, 'shape-per-node.sh'), [kit, 'none', '0']);
  }
  return measured;
}

const measured = kept ? readKept(kept) : await measureNetworks();
// Kept runs are read again with this reader, so that they are judged by its definition of a run's
// time (it ends where the last rank enters MPI_Finalize), as fresh ones are.
if (kept) for (const run of measured.flatMap((network) => network.traced)) run.measuredSeconds = (await predictScenarios(run.archive, [])).measuredSeconds;
const machine = measuredOn(kept);
const repetitions = measured[0].traced.length;

const rows = [];
for (const from of measured) {
  for (const to of measured) {
    const file = path.join(work, `table-${to.network.shape.join('-')}.json`);
    fs.writeFileSync(file, JSON.stringify(to.table));
    // The scenario's network is the target's calibration, its intra-node part too (TCP inside a namespace).
    const scenario = [{ network: file }];
    const source = from.traced[0].archive;
    const ratios = [];
    for (const target of to.traced) {
      // The target run was traced on the target network: its calls are read with that network's table.
      const [result] = (await predictScenarios(source, scenario, { tracedNetwork: from.table, computeFrom: target.archive, computeFromNetwork: to.table })).scenarios;
      ratios.push(result.predictedSeconds / target.measuredSeconds);
    }
    const [raw] = (await predictScenarios(source, scenario, { tracedNetwork: from.table, eventCostSeconds: 'auto' })).scenarios;
    const untracedMedian = medianSeconds(to.untraced);
    rows.push({
      from: from.network.name,
      to: to.network.name,
      errorPercent: (medianSeconds(ratios) - 1) * 100,
      errorRangePercent: [(Math.min(...ratios) - 1) * 100, (Math.max(...ratios) - 1) * 100],
      tracedMedianSeconds: medianSeconds(to.traced.map((t) => t.measuredSeconds)),
      untracedMedianSeconds: untracedMedian,
      untracedSpreadPercent: (Math.max(...to.untraced) / Math.min(...to.untraced) - 1) * 100,
      predictedUntracedSeconds: raw.predictedSeconds,
      rawErrorPercent: (raw.predictedSeconds / untracedMedian - 1) * 100,
    });
  }
}
// Runs judged again (--kept) write beside them, not over the committed results of the last fresh run.
fs.writeFileSync(option('results', path.join(kept ?? here, 'networks.json')), `${JSON.stringify({ date: new Date().toISOString(), machine, reps: repetitions, rows }, null, 1)}\n`);
const pct = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
process.stdout.write("| traced on | predicted for | error with the target runs' computations (median; range) | traced runs, median | untraced runs, median (spread) | predicted, tracing cost removed | raw error |\n|---|---|---|---|---|---|---|\n");
for (const r of rows) {
  process.stdout.write(
    `| ${r.from} | ${r.to} | ${pct(r.errorPercent)} (${pct(r.errorRangePercent[0])} … ${pct(r.errorRangePercent[1])}) | ${r.tracedMedianSeconds.toFixed(3)} s | ${r.untracedMedianSeconds.toFixed(3)} s (${r.untracedSpreadPercent.toFixed(0)}%) | ${r.predictedUntracedSeconds.toFixed(3)} s | ${pct(r.rawErrorPercent)} |\n`,
  );
}
process.stdout.write(`\nmeasured on: ${machine}\n${rows.filter((r) => Math.abs(r.errorPercent) <= 5).length} of ${rows.length} within 5% with the target runs' computations, ${rows.filter((r) => Math.abs(r.rawErrorPercent) <= 5).length} raw (reps ${repetitions})\n`);
if (keep) writeKept(work, measured, machine);
else fs.rmSync(work, { recursive: true, force: true });
