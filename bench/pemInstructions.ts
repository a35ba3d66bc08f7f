// PEM's cost in instructions, which do not move with a VM's phase as seconds do:
// `node out/bench/pemInstructions.js --trace FILE | --record EVENTS [--build DIR]...` (--record:
// a trace of about that many events recorded for it, as bench/pem.ts --record does, then deleted).
// On the AMD EPYC VM the same build read one trace in 0.42 s and, a quarter of an hour later, in
// 0.61–0.75 s (docs/pem.md, Performance, 2026-11-28), more than most changes are worth. Valgrind's
// cachegrind (without its cache simulation) counts the instructions a run executes, and node runs
// with V8's --predictable (no compilation or collection in other threads): two runs of one build
// then count the same to a few instructions in 10⁸, where without it they differed by 2%. For each
// build (a checkout's directory with its out/ compiled; this one by default) three runs under it:
// opening the trace only (node's start, the modules, the definitions), reading every event, and
// the whole prediction of the traced configuration (reader, first pass, conversion, engine); the
// first is subtracted from the others. Prints one JSON line per build: instructions per OTF2
// event for the reading and for the whole pipeline, and their totals. Two builds of the same
// trace compare two commits: `git worktree add /tmp/old COMMIT`, `npx tsc -p .` there, and
// `--build /tmp/old --build .`. Instructions are not seconds (a cache miss costs more than an
// add), but a change that saves none saves little time.
// With --misses, the opening and the whole prediction run under callgrind's cache simulation
// instead, its last level set to this machine's L2 (on the AMD EPYC VM a load beyond it costs,
// at times, what memory costs: bench/memoryLatency.ts), and each build's line gives the L1 and L2 data
// misses per event and the functions with the most L2 misses, JavaScript included (named from
// node's --perf-basic-prof map: bench/callgrindCosts.ts). What a replay of many ranks waits for.
// With --compile, the whole prediction runs RUNS times (--runs, 3 by default) in a fresh node as
// a user's first prediction does (no valgrind, no --predictable), with V8's --trace-opt and
// --trace-deopt-verbose, and each build's line gives the medians of its TurboFan compilations,
// their milliseconds on V8's threads and how many of them compiled a function again, its
// deoptimizations, and the deoptimizations by reason and place (bench/v8Trace.ts). What a cold
// prediction spends compiling.

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseFlags, repeated } from '../server/src/cli/flags';
import * as thisBuildArchives from '../server/src/trace/otf2Archive';
import { callgrindCosts, parsePerfMap } from './callgrindCosts';
import { median } from './stats';
import { parseOptimizationTrace, recompileMs } from './v8Trace';
import { withRecordedTrace } from './recordedTrace';

type Stage = 'open' | 'read' | 'pipeline';
const STAGES: Stage[] = ['open', 'read', 'pipeline'];

/** A build's trace/otf2Archive module: this checkout's, or another's loaded from its out/. */
type ArchiveModule = Pick<typeof thisBuildArchives, 'openOtf2Archive' | 'openRankEvents'>;

/** Opens `trace` with `archives` and, with `read`, reads every rank's events; how many it read. */
function openTrace(trace: string, archives: ArchiveModule, read: boolean): number {
  const archive = archives.openOtf2Archive(trace);
  if (archive.fatal) throw new Error(archive.fatal);
  let events = 0;
  if (!read) return events;
  for (const rank of archive.ranks) {
    const reader = archives.openRankEvents(archive, rank);
    while (reader.next()) events++;
  }
  return events;
}

/** In a child under valgrind: one stage over the trace with the build's modules; prints the events read. */
async function runStage(stage: Stage, trace: string, build: string): Promise<void> {
  const load = (module: string) => require(path.resolve(build, 'out/server/src', module));
  const archives: ArchiveModule = load('trace/otf2Archive.js');
  // Every stage loads the same modules, so the first's count holds their loading for the others.
  const { predictScenarios } = load('pem/index.js');
  const events = openTrace(trace, archives, stage === 'read');
  if (stage === 'pipeline') await predictScenarios(trace, [{}]);
  process.stdout.write(`${events}\n`);
}

/** Runs `command` with `args`: its standard output and error, and its pid; fails with `what` and the end of its error output. */
function runChild(command: string, args: string[], what: string): Promise<{ stdout: string; stderr: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout, stderr, pid: child.pid! }) : reject(new Error(`${what} failed (${code}): ${stderr.slice(-2000)}`))));
  });
}

/** A stage run in a child under valgrind `tool` (its options first, node's after the node binary): valgrind's report, the events read, the child's pid. */
async function underValgrind(tool: string[], node: string[], stage: Stage, trace: string, build: string): Promise<{ report: string; events: number; pid: number }> {
  const { stdout, stderr, pid } = await runChild('valgrind', [...tool, process.execPath, '--predictable', ...node, __filename, '--stage', stage, '--trace', trace, '--build', build], `valgrind ${stage} of ${build}`);
  return { report: stderr, events: Number(stdout.trim()), pid };
}

/** A stage run in a fresh node with `node` options: its standard output (V8's traces print there). */
async function inNode(node: string[], stage: Stage, trace: string, build: string): Promise<string> {
  return (await runChild(process.execPath, [...node, __filename, '--stage', stage, '--trace', trace, '--build', build], `${stage} of ${build}`)).stdout;
}

/** Instructions a stage executes, counted by cachegrind; with the events it read. */
async function countStage(stage: Stage, trace: string, build: string): Promise<{ instructions: number; events: number }> {
  const { report, events } = await underValgrind(['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'], [], stage, trace, build);
  const counted = /I\s+refs:\s+([\d,]+)/.exec(report);
  if (!counted) throw new Error(`cachegrind gave no count for ${stage} of ${build}: ${report.slice(-2000)}`);
  return { instructions: Number(counted[1].replace(/,/g, '')), events };
}

/** This machine's L2 in bytes (sysfs), or 2 MiB. */
function l2Bytes(): number {
  try {
    const size = fs.readFileSync('/sys/devices/system/cpu/cpu0/cache/index2/size', 'utf8').trim();
    const match = /^(\d+)([KM]?)$/.exec(size);
    if (match) return Number(match[1]) * (match[2] === 'M' ? 2 ** 20 : match[2] === 'K' ? 2 ** 10 : 1);
  } catch {
    // No sysfs cache description (a container without it): the AMD EPYC VM's.
  }
  return 2 * 2 ** 20;
}

/** Cache misses of a stage under callgrind's simulation (L1 data 32 KiB; last level the L2), per function. */
async function missStage(stage: Stage, trace: string, build: string) {
  const out = path.join(os.tmpdir(), `causal-lens-misses-${process.pid}-${stage}.callgrind`);
  // --perf-basic-prof also starts V8's log, in the working directory unless told where.
  const log = path.join(os.tmpdir(), `causal-lens-misses-${process.pid}-${stage}.v8.log`);
  try {
    const cache = ['--cache-sim=yes', '--D1=32768,8,64', `--LL=${l2Bytes()},16,64`];
    const { pid } = await underValgrind(['--tool=callgrind', ...cache, '--dump-instr=yes', `--callgrind-out-file=${out}`], ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${log}`], stage, trace, build);
    const map = `/tmp/perf-${pid}.map`;
    try {
      return callgrindCosts(fs.readFileSync(out, 'utf8'), parsePerfMap(fs.readFileSync(map, 'utf8')));
    } finally {
      fs.rmSync(map, { force: true });
    }
  } finally {
    fs.rmSync(out, { force: true });
    fs.rmSync(log, { force: true });
  }
}

/** `work` over `items`, at most `slots` at a time; the results in the items' order. */
async function inParallel<T, R>(items: readonly T[], slots: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(slots, items.length)) }, worker));
  return results;
}

/** One line per build: its instructions per event for reading `trace` and for the whole pipeline. */
async function countBuilds(trace: string, builds: readonly string[]): Promise<void> {
  for (const build of builds) {
    // One stage per core at most, the longest first.
    const [pipeline, read, open] = await inParallel(['pipeline', 'read', 'open'] as Stage[], os.availableParallelism(), (s) => countStage(s, trace, build));
    const events = read.events;
    if (!(events > 0)) throw new Error(`${trace}: no events read`);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'pem-instructions',
        build: path.resolve(build),
        trace,
        events,
        readInstructionsPerEvent: Math.round((read.instructions - open.instructions) / events),
        pipelineInstructionsPerEvent: Math.round((pipeline.instructions - open.instructions) / events),
        readGiga: +((read.instructions - open.instructions) / 1e9).toFixed(2),
        pipelineGiga: +((pipeline.instructions - open.instructions) / 1e9).toFixed(2),
      })}\n`,
    );
  }
}

/** Functions listed per build with --misses. */
const MISSES_LISTED = 15;

/** One line per build: its L1 and L2 data misses per event for the whole pipeline, and the functions that miss most. */
async function missBuilds(trace: string, builds: readonly string[]): Promise<void> {
  for (const build of builds) {
    const [pipeline, open] = await inParallel(['pipeline', 'open'] as Stage[], os.availableParallelism(), (s) => missStage(s, trace, build));
    const events = openTrace(trace, thisBuildArchives, true);
    if (!(events > 0)) throw new Error(`${trace}: no events read`);
    const sum = (costs: readonly number[], names: string[]) => names.reduce((total, name) => total + (costs[pipeline.eventNames.indexOf(name)] ?? 0), 0);
    const l1 = (costs: readonly number[]) => sum(costs, ['D1mr', 'D1mw']);
    const l2 = (costs: readonly number[]) => sum(costs, ['DLmr', 'DLmw']);
    const l2Pipeline = l2(pipeline.totals) - l2(open.totals);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'pem-misses',
        build: path.resolve(build),
        trace,
        events,
        l2Bytes: l2Bytes(),
        l1MissesPerEvent: +((l1(pipeline.totals) - l1(open.totals)) / events).toFixed(2),
        l2MissesPerEvent: +(l2Pipeline / events).toFixed(2),
        l2Misses: l2Pipeline,
        // The whole process's, the opening's included (a few per cent of a large trace's).
        mostL2Misses: [...pipeline.functions]
          .sort((a, b) => l2(b.costs) - l2(a.costs))
          .slice(0, MISSES_LISTED)
          .map((f) => ({ function: f.name.slice(0, 120), l2Misses: l2(f.costs), share: +(l2(f.costs) / l2(pipeline.totals)).toFixed(3) })),
      })}\n`,
    );
  }
}

/** Deoptimizations listed per build with --compile. */
const DEOPTIMIZATIONS_LISTED = 30;

/** One line per build: what `runs` cold predictions of `trace` compiled, compiled again and deoptimized (medians), and their deoptimizations by reason and place. */
async function compileBuilds(trace: string, builds: readonly string[], runs: number): Promise<void> {
  for (const build of builds) {
    const traces = [];
    // One at a time: V8's compiler threads take the other core.
    for (let run = 0; run < runs; run++) traces.push(parseOptimizationTrace(await inNode(['--trace-opt', '--trace-deopt-verbose'], 'pipeline', trace, build)));
    if (traces.some((t) => t.compilations.length === 0)) throw new Error(`${build}: node printed no TurboFan compilation (V8's --trace-opt format changed?)`);
    const places = new Map<string, { reason: string; function: string; at: string; runs: number }>();
    for (const t of traces) {
      for (const d of t.deoptimizations) {
        const at = d.at?.replace(path.resolve(build) + '/out/', '') ?? `(${d.kind})`;
        const key = `${d.reason}|${d.name}|${at}`;
        const place = places.get(key) ?? { reason: d.reason, function: d.name, at, runs: 0 };
        place.runs++;
        places.set(key, place);
      }
    }
    const ms = (values: number[]) => +median(values).toFixed(1);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'pem-compile',
        build: path.resolve(build),
        trace,
        runs,
        compilations: median(traces.map((t) => t.compilations.length)),
        compileMs: ms(traces.map((t) => t.compilations.reduce((sum, c) => sum + c.ms, 0))),
        recompileMs: ms(traces.map((t) => recompileMs(t.compilations))),
        deoptimizations: median(traces.map((t) => t.deoptimizations.length)),
        byPlace: [...places.values()].sort((a, b) => b.runs - a.runs).slice(0, DEOPTIMIZATIONS_LISTED),
      })}\n`,
    );
  }
}

async function main(): Promise<void> {
  const parsed = parseFlags(process.argv.slice(2), { trace: 'string', record: 'string', build: 'strings', stage: 'string', misses: 'boolean', compile: 'boolean', runs: 'integer' });
  const trace = parsed.flags.trace as string | undefined;
  const record = parsed.flags.record === undefined ? undefined : Number(parsed.flags.record);
  const builds = repeated(parsed, 'build');
  const thisBuild = path.resolve(__dirname, '../..');
  const stage = parsed.flags.stage as Stage | undefined;
  if (stage) {
    if (!STAGES.includes(stage) || !trace) throw new Error(`--stage ${stage}: one of ${STAGES.join(', ')}, with --trace`);
    await runStage(stage, trace, builds[0] ?? thisBuild);
    return;
  }
  if ((trace === undefined) === (record === undefined) || (record !== undefined && !(record >= 1))) throw new Error('usage: pemInstructions --trace FILE | --record EVENTS [--build DIR]... [--misses | --compile [--runs N]]');
  const all = builds.length > 0 ? builds : [thisBuild];
  if (parsed.flags.compile) {
    const runs = (parsed.flags.runs as number | undefined) ?? 3;
    if (!(runs >= 1)) throw new Error(`--runs ${runs}: at least 1`);
    if (trace) await compileBuilds(trace, all, runs);
    else await withRecordedTrace(record!, (archive) => compileBuilds(archive, all, runs));
    return;
  }
  try {
    execFileSync('valgrind', ['--version']);
  } catch {
    throw new Error('valgrind is not installed (scripts/setup-tools.sh installs it)');
  }
  const measure = parsed.flags.misses ? missBuilds : countBuilds;
  if (trace) await measure(trace, all);
  else await withRecordedTrace(record!, (archive) => measure(archive, all));
}

main().catch((error: unknown) => {
  process.stderr.write(`pemInstructions: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
