// PEM engine throughput and memory: `node out/bench/pem.js [--ops N]... [--ranks R] [--workers R]... [--trace FILE] [--record EVENTS]...`.
// 1. The engine fed directly with generated operation streams (a halo exchange per rank: two
//    Irecv, two Isend, a Waitall, every 10th iteration an Allreduce; seeded random computation),
//    generated lazily so the trace never exists in memory: operations/s and peak RSS per size.
//    One operation stands for the OTF2 events of one MPI call (Metric, Enter, the MPI record,
//    Metric, Leave: 5 events; the recorder writes about that many, see part 2).
// 2. With --trace, the whole pipeline on a real OTF2 archive: reader + conversion + engine,
//    OTF2 events/s (every record otf2-print would show).
// 3. With --record EVENTS (repeatable, e.g. 1e6 1e7 1e8), the same on a trace of about that many
//    events recorded for the bench: samples/mpi/halo on 8 ranks (scripts/build-mpi.sh), as many
//    iterations as it takes; the trace is deleted afterwards. Peak RSS per size shows whether
//    memory stays flat as the trace grows.
// 4. With --workers R (repeatable), the engine on a generated master–worker of R ranks: each
//    worker computes (unevenly), sends its result to rank 0 and waits for its next task; rank 0
//    receives with MPI_ANY_SOURCE and replies to whoever reported (--ops operations in all,
//    10⁶ by default). How matching scales with the ranks one receiver hears from.
// 5. With --synth RANKS (repeatable), the whole pipeline on a halo of that many ranks with about
//    --synth-events OTF2 events (10⁷ by default), its spool generated (bench/synthSpool.ts) and
//    converted to OTF2 by the recorder's converter: how reading scales with the ranks.
// 6. With --synth-workers RANKS (repeatable), the same on a master–worker of that many ranks
//    (rank 0 takes results by MPI_ANY_SOURCE): the whole pipeline with its dealing, in which a
//    task goes to the worker that asks first (pem/dealing.ts).
// 7. With --placements N1,N2,... (node counts), each trace of 2, 3, 5 or 6 is also predicted for
//    those placements together (side by side, reading the trace once on up to 32 ranks:
//    pem/sharedReads.ts) and one by one, alternating which goes first, --pairs times (3), with
//    the longest stretch the predictions together left the event loop without a turn.
// 8. With --repeat K, each trace of 2, 3, 5 or 6 is predicted K times in a row in this process
//    (`run` 1..K): the first with V8 still compiling the pipeline (one-shot), the others as the
//    language server makes a user's later predictions.
// Prints one JSON line per measurement, between two lines of the machine's state when the bench
// began and when it ended (`bench: 'machine'`: its description and the latency of a load missing
// the caches, over 1 MiB and 8 MiB: bench/memoryLatency.ts).

import { parseFlags } from '../server/src/cli/flags';
import { mulberry32 } from '../server/src/causal/random';
import { PemEngine } from '../server/src/pem/engine';
import { predictScenarios } from '../server/src/pem';
import { OpKind, PemOp, RankStream, op } from '../server/src/pem/ops';
import { openOtf2Archive, openRankEvents } from '../server/src/trace/otf2Archive';
import { describeMachine } from './machine';
import { OTF2_CONVERTER, builtFile } from '../server/src/mpi/artifacts';
import { SYNTH_EVENTS_PER_RANK_ITERATION, SYNTH_EVENTS_PER_TASK, writeHaloSpool, writeMasterWorkerSpool } from './synthSpool';
import { withRecordedTrace } from './recordedTrace';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

function haloStream(rank: number, ranks: number, operations: number, seed: number): RankStream {
  const random = mulberry32(seed + rank);
  let emitted = 0;
  let step = 0;
  const left = (rank + ranks - 1) % ranks;
  const right = (rank + 1) % ranks;
  return {
    next(): PemOp | undefined {
      if (emitted >= operations) return undefined;
      emitted++;
      const iteration = Math.floor(step / 6);
      const phase = step++ % 6;
      const o = new PemOp(OpKind.KeepAlive);
      switch (phase) {
        case 0:
          o.kind = OpKind.Irecv;
          o.compute = 1e-4 * (0.5 + random());
          o.peer = left;
          o.request = 1;
          o.bytes = 8192;
          o.tag = iteration & 0xffff;
          return o;
        case 1:
          o.kind = OpKind.Irecv;
          o.peer = right;
          o.request = 2;
          o.bytes = 8192;
          o.tag = (iteration & 0xffff) + 65536;
          return o;
        case 2:
          o.kind = OpKind.Isend;
          o.peer = right;
          o.request = 3;
          o.bytes = 8192;
          o.tag = iteration & 0xffff;
          return o;
        case 3:
          o.kind = OpKind.Isend;
          o.peer = left;
          o.request = 4;
          o.bytes = 8192;
          o.tag = (iteration & 0xffff) + 65536;
          return o;
        case 4:
          o.kind = OpKind.Wait;
          o.requests = [1, 2, 3, 4];
          return o;
        default:
          if (iteration % 10 === 9) {
            o.kind = OpKind.Collective;
            o.collective = 11;
            o.sizeSent = 8;
            o.sizeReceived = 8;
          }
          o.compute = 1e-5 * random();
          return o;
      }
    },
  };
}

/** A master–worker of `ranks` ranks, `tasks` results per worker: rank 0's stream first. */
function masterWorkerStreams(ranks: number, tasks: number): RankStream[] {
  const results = tasks * (ranks - 1);
  let served = 0;
  const master: RankStream = {
    next(): PemOp | undefined {
      const step = served++;
      if (step > 2 * results) return undefined;
      if (step === 2 * results) return new PemOp(OpKind.End);
      // A result from whichever worker reports first, then its next task.
      return step % 2 === 0 ? op(OpKind.Recv, { peer: 1, tag: 1, bytes: 8, anySource: true, compute: 1e-6 }) : op(OpKind.Send, { peer: 1, tag: 2, bytes: 8, toWildcardSource: true });
    },
  };
  const worker = (rank: number): RankStream => {
    const random = mulberry32(rank);
    let step = 0;
    return {
      next(): PemOp | undefined {
        const at = step++;
        if (at > 2 * tasks) return undefined;
        if (at === 2 * tasks) return new PemOp(OpKind.End);
        return at % 2 === 0 ? op(OpKind.Send, { peer: 0, tag: 1, bytes: 8, compute: 1e-4 * (0.5 + random()) }) : op(OpKind.Recv, { peer: 0, tag: 2, bytes: 8 });
      },
    };
  };
  return [master, ...Array.from({ length: ranks - 1 }, (_, i) => worker(i + 1))];
}

let peakRss = 0;
function sampleRss(): void {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}

function benchEngine(totalOps: number, ranks: number, workload: 'halo' | 'master-worker'): void {
  // Whole iterations per rank so every message has its partner.
  const perRank = Math.max(6, Math.floor(totalOps / ranks / 6) * 6);
  const streams = workload === 'halo' ? Array.from({ length: ranks }, (_, r) => haloStream(r, ranks, perRank, 42)) : masterWorkerStreams(ranks, Math.max(1, Math.round(totalOps / 4 / (ranks - 1))));
  const nodes = Math.max(1, Math.floor(ranks / 4));
  const engine = new PemEngine({
    streams,
    nodeOf: Array.from({ length: ranks }, (_, r) => Math.floor((r * nodes) / ranks)),
    coresPerNode: new Array(nodes).fill(2),
    network: { eagerLimitBytes: 65536, oneWay: (bytes, same) => (same ? 1e-6 + bytes / 5e9 : 5e-5 + bytes / 1.25e8) },
    communicators: new Map([[0, Array.from({ length: ranks }, (_, r) => r)]]),
  });
  peakRss = 0;
  const start = process.hrtime.bigint();
  while (!engine.run(1_000_000)) sampleRss();
  sampleRss();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const result = engine.result();
  if (!result.complete) throw new Error(`generated workload did not complete: ${result.problems.join('; ')}`);
  const ops = engine.operationsDone;
  process.stdout.write(
    `${JSON.stringify({ bench: 'engine', workload, ranks, operations: ops, seconds: +seconds.toFixed(3), operationsPerSecond: Math.round(ops / seconds), otf2EventsPerSecondEquivalent: Math.round((5 * ops) / seconds), peakRssMiB: +(peakRss / 2 ** 20).toFixed(1), predictedSeconds: +result.predictedSeconds.toFixed(3) })}\n`,
  );
}

/** Predictions of each trace in a row in this process (--repeat). */
const repeatTrace = { runs: 1 };

/** Placements (node counts) predicted together and one by one (--placements), and how many pairs (--pairs). */
const together = { placements: [] as number[], pairs: 3 };

async function benchTrace(trace: string): Promise<void> {
  const archive = openOtf2Archive(trace);
  if (archive.fatal) throw new Error(archive.fatal);
  let events = 0;
  const readStart = process.hrtime.bigint();
  for (const rank of archive.ranks) {
    const reader = openRankEvents(archive, rank);
    while (reader.next()) events++;
  }
  const readSeconds = Number(process.hrtime.bigint() - readStart) / 1e9;
  // Run 1 is the process's first prediction of this trace, with V8 still compiling the pipeline;
  // the runs after it are what the language server gives a user's later predictions.
  for (let run = 1; run <= repeatTrace.runs; run++) {
    peakRss = 0;
    const timer = setInterval(sampleRss, 50);
    const start = process.hrtime.bigint();
    const prediction = await predictScenarios(trace, [{}]);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    clearInterval(timer);
    sampleRss();
    process.stdout.write(
      `${JSON.stringify({ bench: 'trace', trace, ranks: archive.ranks.length, events, run, readOnlyEventsPerSecond: Math.round(events / readSeconds), seconds: +seconds.toFixed(3), eventsPerSecond: Math.round(events / seconds), peakRssMiB: +(peakRss / 2 ** 20).toFixed(1), predictedSeconds: prediction.scenarios[0].predictedSeconds, measuredSeconds: prediction.measuredSeconds })}\n`,
    );
  }
  if (together.placements.length > 0) await benchTogether(trace, archive.ranks.length);
}

/**
 * The trace's placements predicted together and one by one, in alternating order: seconds of each,
 * their ratio, and the longest stretch the predictions together left the event loop without a
 * turn (what the language server's other requests and a cancellation wait for, at most).
 */
async function benchTogether(trace: string, ranks: number): Promise<void> {
  const { placements, pairs } = together;
  const scenarios = placements.map((nodes) => ({ nodes }));
  let longestStall = 0;
  const timed = async (run: () => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    await run();
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  const allAtOnce = async () => {
    let last = performance.now();
    longestStall = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    }, 1);
    try {
      return await timed(() => predictScenarios(trace, scenarios, { coresPerNode: 1 }));
    } finally {
      clearInterval(timer);
    }
  };
  const oneByOne = () => timed(async () => {
    for (const scenario of scenarios) await predictScenarios(trace, [scenario], { coresPerNode: 1 });
  });
  for (let pair = 0; pair < pairs; pair++) {
    const [first, second] = pair % 2 === 0 ? [await allAtOnce(), await oneByOne()] : [await oneByOne(), await allAtOnce()];
    const [togetherSeconds, oneByOneSeconds] = pair % 2 === 0 ? [first, second] : [second, first];
    process.stdout.write(
      `${JSON.stringify({ bench: 'placements', trace, ranks, placements, togetherSeconds: +togetherSeconds.toFixed(3), oneByOneSeconds: +oneByOneSeconds.toFixed(3), ratio: +(togetherSeconds / oneByOneSeconds).toFixed(3), longestStallMs: Math.round(longestStall) })}\n`,
    );
  }
}

async function benchSynthetic(ranks: number, events: number, workload: 'halo' | 'master-worker'): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-bench-pem-'));
  try {
    if (workload === 'halo') writeHaloSpool(dir, ranks, Math.max(1, Math.round(events / ranks / SYNTH_EVENTS_PER_RANK_ITERATION)));
    else writeMasterWorkerSpool(dir, ranks, Math.max(1, Math.round(events / SYNTH_EVENTS_PER_TASK)));
    execFileSync(builtFile(OTF2_CONVERTER), [dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    fs.rmSync(path.join(dir, 'spool'), { recursive: true, force: true });
    execFileSync('sync');
    await benchTrace(path.join(dir, 'traces.otf2'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const repeated = (name: string) => args.flatMap((a, i) => (a === name ? [Number(args[i + 1])] : []));
  const sizes = repeated('--ops');
  const recorded = repeated('--record');
  const workers = repeated('--workers');
  const synthetic = repeated('--synth');
  const syntheticWorkers = repeated('--synth-workers');
  const listFlags = ['--ops', '--record', '--workers', '--synth', '--synth-workers'];
  const { flags } = parseFlags(args.filter((a, i) => !listFlags.includes(a) && !listFlags.includes(args[i - 1])), { ranks: 'integer', trace: 'string', 'synth-events': 'integer', placements: 'string', pairs: 'integer', repeat: 'integer' });
  if (flags.placements !== undefined) {
    together.placements = (flags.placements as string).split(',').map(Number);
    if (!together.placements.every((nodes) => Number.isInteger(nodes) && nodes >= 1)) throw new Error(`--placements ${flags.placements}: needs node counts, as 1,2,4`);
  }
  together.pairs = (flags.pairs as number | undefined) ?? together.pairs;
  repeatTrace.runs = (flags.repeat as number | undefined) ?? repeatTrace.runs;
  if (repeatTrace.runs < 1) throw new Error(`--repeat ${repeatTrace.runs}: needs at least 1 prediction per trace`);
  for (const [flag, list] of [['--workers', workers], ['--synth', synthetic], ['--synth-workers', syntheticWorkers]] as const) {
    for (const ranks of list) if (!(Number.isInteger(ranks) && ranks >= 2)) throw new Error(`${flag} ${ranks}: needs a whole number of ranks, at least 2`);
  }
  printMachine('began');
  for (const ranks of workers) {
    benchEngine(sizes[0] ?? 1e6, ranks, 'master-worker');
  }
  const onlyOthers = workers.length > 0 || synthetic.length > 0 || syntheticWorkers.length > 0;
  if (!onlyOthers && (sizes.length > 0 || (recorded.length === 0 && !flags.trace))) {
    for (const ops of sizes.length > 0 ? sizes : [1e6, 1e7, 1e8]) benchEngine(ops, (flags.ranks as number | undefined) ?? 16, 'halo');
  }
  if (flags.trace) await benchTrace(flags.trace as string);
  for (const events of recorded) await withRecordedTrace(events, benchTrace);
  const syntheticEvents = (flags['synth-events'] as number | undefined) ?? 1e7;
  for (const ranks of synthetic) await benchSynthetic(ranks, syntheticEvents, 'halo');
  for (const ranks of syntheticWorkers) await benchSynthetic(ranks, syntheticEvents, 'master-worker');
  printMachine('ended');
}

/** The machine, and how long a load that misses the caches takes on it now (bench/memoryLatency.ts, in a process of its own): this VM's speed moves from hour to hour. */
function printMachine(when: 'began' | 'ended'): void {
  const latency = JSON.parse(execFileSync(process.execPath, [path.join(__dirname, 'memoryLatency.js')], { encoding: 'utf8' }));
  process.stdout.write(`${JSON.stringify({ bench: 'machine', when, at: new Date().toISOString(), machine: describeMachine(), ...latency })}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench/pem: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
