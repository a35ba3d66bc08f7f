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

import { execFileSync, spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseFlags, repeated } from '../server/src/cli/flags';
import { withRecordedTrace } from './recordedTrace';

type Stage = 'open' | 'read' | 'pipeline';
const STAGES: Stage[] = ['open', 'read', 'pipeline'];

/** In a child under valgrind: one stage over the trace with the build's modules; prints the events read. */
async function runStage(stage: Stage, trace: string, build: string): Promise<void> {
  const load = (module: string) => require(path.resolve(build, 'out/server/src', module));
  const { openOtf2Archive, openRankEvents } = load('trace/otf2Archive.js');
  // Every stage loads the same modules, so the first's count holds their loading for the others.
  const { predictScenarios } = load('pem/index.js');
  const archive = openOtf2Archive(trace);
  if (archive.fatal) throw new Error(archive.fatal);
  let events = 0;
  if (stage === 'read') {
    for (const rank of archive.ranks) {
      const reader = openRankEvents(archive, rank);
      while (reader.next()) events++;
    }
  } else if (stage === 'pipeline') {
    await predictScenarios(trace, [{}]);
  }
  process.stdout.write(`${events}\n`);
}

/** Instructions a stage executes, counted by cachegrind; with the events it read. */
function countStage(stage: Stage, trace: string, build: string): Promise<{ instructions: number; events: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', process.execPath, '--predictable', __filename, '--stage', stage, '--trace', trace, '--build', build]);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      const counted = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (code !== 0 || !counted) reject(new Error(`valgrind ${stage} of ${build} failed (${code}): ${stderr.slice(-2000)}`));
      else resolve({ instructions: Number(counted[1].replace(/,/g, '')), events: Number(stdout.trim()) });
    });
  });
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

async function main(): Promise<void> {
  const parsed = parseFlags(process.argv.slice(2), { trace: 'string', record: 'string', build: 'strings', stage: 'string' });
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
  if ((trace === undefined) === (record === undefined) || (record !== undefined && !(record >= 1))) throw new Error('usage: pemInstructions --trace FILE | --record EVENTS [--build DIR]...');
  try {
    execFileSync('valgrind', ['--version']);
  } catch {
    throw new Error('valgrind is not installed (scripts/setup-tools.sh installs it)');
  }
  const all = builds.length > 0 ? builds : [thisBuild];
  if (trace) await countBuilds(trace, all);
  else await withRecordedTrace(record!, (archive) => countBuilds(archive, all));
}

main().catch((error: unknown) => {
  process.stderr.write(`pemInstructions: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
