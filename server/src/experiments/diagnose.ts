// Why a virtual-speedup run failed or measured nothing, and what to do about it.
//
// Two moments: checkBeforeRun refuses commands COZ cannot profile at all (MPI launchers,
// wrappers and scripts, programs that fork, static binaries); diagnoseRun reads a finished run's
// exit code, stderr and profile. The stderr texts matched are COZ 0.2.2's own (libcoz prints
// them in ANSI colours, prefixed with `[source.cpp:line]`), all seen on this machine:
//   terminate called after throwing an instance of 'dwarf::format_error'
//     what():  unknown compilation unit version 5                    (exit 250 = SIGABRT)
//   Ignoring DWARF format error when reading line table: DW_FORM_sec_offset not expected
//     for attribute (DW_AT)0x2137                                      (location views)
//   Fixed line "virtual.c:1" was not found.                            (exit 250)
//   Failed to open perf event. Consider tweaking /proc/sys/kernel/perf_event_paranoid to 2 or
//     less (current value is 2), or run coz as a privileged user (with CAP_SYS_ADMIN).  (exit 2)
// The line table of the program comes from binutils' `readelf --debug-dump=decodedline`.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Profile } from '../model/profile';
import { INSTALL_HINT, findOnPath } from './cozInstall';
import { RunConfig, VirtualSpeedupPlan, isOnTarget } from './runPlan';

export type DiagnosisKind =
  | 'coz-missing'
  | 'program-not-found'
  | 'multi-process'
  | 'not-a-program'
  | 'static-binary'
  | 'dwarf5'
  | 'dwarf-locviews'
  | 'line-not-found'
  | 'perf-permission'
  | 'no-progress-point'
  | 'no-profile'
  | 'program-failed';

export interface Diagnosis {
  kind: DiagnosisKind;
  /** What happened, naming the source line (and the program) involved. */
  message: string;
  /** What to do about it. */
  fix: string;
  /** The line of COZ's output that gave it away, without colours. */
  evidence?: string;
  /** For `line-not-found`: the closest lines of the file that have code. */
  nearestLines?: { above?: number; below?: number };
}

/** How a run ended, as the client's task runner reports it. */
export interface RunOutcome {
  exitCode: number | null;
  signal?: string | null;
  stderr: string;
  /** The launcher could not be started at all (spawn's error, e.g. ENOENT). */
  spawnError?: { code?: string; message: string };
  cancelled?: boolean;
}

/** Launchers that start the program in other processes (plasma-umass/coz issues #43, #60). */
const MPI_LAUNCHERS = new Set([
  'mpirun', 'mpiexec', 'mpiexec.hydra', 'mpirun.openmpi', 'mpiexec.openmpi', 'mpirun.mpich', 'mpiexec.mpich',
  'orterun', 'prterun', 'srun', 'aprun', 'jsrun', 'ibrun', 'charmrun', 'flux',
]);
/** Commands that run the program as a child or exec it: COZ would profile them instead. */
const WRAPPERS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'env', 'time', 'nohup', 'timeout', 'nice', 'taskset', 'numactl',
  'stdbuf', 'xargs', 'make', 'sudo', 'valgrind', 'perf', 'gdb', 'python', 'python3', 'perl', 'node',
]);
/** Imported functions that start child processes. */
const SPAWNING_IMPORTS = new Set(['fork', 'vfork', 'posix_spawn', 'posix_spawnp']);

const BUILD_FLAGS = '-g -gdwarf-4 -gno-variable-location-views';

/** COZ's stderr lines without ANSI colours and without libcoz's `[file.cpp:123] ` prefix. */
export function cozMessages(stderr: string): string[] {
  const plain = stderr.replace(/\x1b\[[0-9;]*m/g, '');
  return plain
    .split(/\r?\n/)
    .map((line) => line.replace(/^\[[\w.+-]+\.(?:cpp|h|cc):\d+\]\s*/, '').trim())
    .filter((line) => line !== '');
}

/** The first message matching `pattern`: the whole line (for evidence) and the match. */
function find(messages: readonly string[], pattern: RegExp): { line: string; match: RegExpExecArray } | undefined {
  for (const line of messages) {
    const match = pattern.exec(line);
    if (match) return { line, match };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The program's line table

/** Lines with code per source file, as named in the line table (absolute, or relative to the build folder). */
export type LineTable = Map<string, Set<number>>;

const ROW = /^(.*?)\s+(\d+|-)\s+(0x[0-9a-f]+)(?:\s+\d+)?(?:\s+x)?\s*$/;

/** Runs `readelf -W --debug-dump=decodedline` on `binary`; undefined when binutils is missing. */
export async function readLineTable(binary: string, env: NodeJS.ProcessEnv = process.env): Promise<LineTable | undefined> {
  const readelf = findOnPath('readelf', env.PATH) ?? findOnPath('readelf', '/usr/bin:/bin');
  if (!readelf) return undefined;
  const table: LineTable = new Map();
  const child = spawn(readelf, ['-W', '--debug-dump=decodedline', binary], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<boolean>((resolve) => {
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
  let current: Set<number> | undefined;
  for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    // A file heading: `CU: /src/prog.c:` for a unit's main file, `/usr/include/stdio.h:` after.
    const heading = /^(?:CU: )?(\S.*):$/.exec(line);
    if (heading && !line.startsWith('Contents of')) {
      const file = heading[1];
      current = table.get(file) ?? new Set();
      table.set(file, current);
      continue;
    }
    const row = ROW.exec(line);
    if (row && current && row[2] !== '-') current.add(Number(row[2]));
  }
  return (await exited) ? table : undefined;
}

/** How many trailing path components two paths share. */
function sharedTail(a: string, b: string): number {
  const x = a.split('/').filter(Boolean);
  const y = b.split('/').filter(Boolean);
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return n;
}

/** Lines with code of `file` (ascending): from the table entries sharing the longest path tail with it. */
export function linesOf(table: LineTable, file: string): number[] | undefined {
  let best = 0;
  let lines = new Set<number>();
  for (const [name, rows] of table) {
    const shared = sharedTail(name, file);
    if (shared === 0 || shared < best) continue;
    if (shared > best) lines = new Set();
    best = shared;
    for (const row of rows) lines.add(row);
  }
  return best === 0 ? undefined : [...lines].sort((a, b) => a - b);
}

/** The closest lines with code above and below `line` (`line` itself is not among them). */
export function nearestLines(lines: readonly number[], line: number): { above?: number; below?: number } {
  let above: number | undefined;
  let below: number | undefined;
  for (const candidate of lines) {
    if (candidate < line) above = candidate;
    else if (candidate > line && below === undefined) below = candidate;
  }
  return { above, below };
}

// ---------------------------------------------------------------------------------------------
// Before a run

/** The program a run configuration starts, as the OS would find it. */
export function resolveProgram(run: RunConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath(run.command, run.env?.PATH ?? env.PATH, run.cwd);
}

function query(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? output : undefined));
  });
}

/** The first bytes of a file, one character per byte; empty when unreadable. */
function fileStart(file: string): string {
  const bytes = new Uint8Array(128);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const length = fs.readSync(fd, bytes, 0, bytes.length, 0);
      return String.fromCharCode(...bytes.subarray(0, length));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

function multiProcess(what: string, label: string): Diagnosis {
  return {
    kind: 'multi-process',
    message:
      `${label}: ${what}. COZ profiles only the one process it starts; it does not follow MPI ranks, ` +
      `forked children or exec'd programs (plasma-umass/coz issues #43 and #60), so the experiments ` +
      `would not measure this line.`,
    fix:
      'Run a single process of the program directly (the program itself as the command, no launcher), ' +
      'with the work done in that process (threads are fine).',
  };
}

/**
 * Refuses, before anything runs, commands COZ cannot profile. `label` names the target line in
 * messages. Returns undefined when the command looks profilable.
 */
export async function checkBeforeRun(label: string, run: RunConfig, env: NodeJS.ProcessEnv = process.env): Promise<Diagnosis | undefined> {
  const words = [run.command, ...run.args].filter((word) => !word.startsWith('-'));
  const launcher = words.find((word) => MPI_LAUNCHERS.has(path.basename(word)));
  if (launcher) return multiProcess(`the command runs the program through ${path.basename(launcher)}`, label);
  const name = path.basename(run.command);
  if (WRAPPERS.has(name)) {
    return {
      kind: 'not-a-program',
      message:
        `${label}: the command is ${name}, which starts the program as another process; COZ would profile ` +
        `${name} itself, which has no code from this line.`,
      fix: 'Make the program binary the command and its arguments the args; put environment variables in the run configuration\'s env.',
    };
  }

  const program = resolveProgram(run, env);
  if (!program) {
    return {
      kind: 'program-not-found',
      message: `${label}: the program ${run.command} was not found (from ${run.cwd}${run.command.includes('/') ? '' : ' and the PATH'}).`,
      fix: 'Build the program first, or correct the command in the run configuration.',
    };
  }
  const head = fileStart(program);
  if (head.startsWith('#!')) {
    const interpreter = head.slice(2).split('\n')[0].trim();
    return {
      kind: 'not-a-program',
      message: `${label}: ${program} is a script (#!${interpreter}); COZ would profile its interpreter, not the compiled program it starts.`,
      fix: 'Make the compiled program the command (with the script\'s arguments and environment in the run configuration).',
    };
  }
  if (!head.startsWith('\x7fELF')) return undefined;

  const readelf = findOnPath('readelf', env.PATH) ?? findOnPath('readelf', '/usr/bin:/bin');
  const elf = readelf ? await query(readelf, ['-W', '--program-headers', '--dyn-syms', program]) : undefined;
  if (elf === undefined) return undefined; // no binutils: COZ will tell
  if (!/^\s*INTERP\s/m.test(elf)) {
    return {
      kind: 'static-binary',
      message: `${label}: ${program} is statically linked; COZ loads itself with LD_PRELOAD, which a static program ignores, so nothing would be measured.`,
      fix: 'Link the program dynamically (drop -static).',
    };
  }
  const imports = new Set<string>();
  for (const match of elf.matchAll(/\sUND\s+([A-Za-z_]\w*)(?:@\S+)?/g)) imports.add(match[1]);
  const spawning = [...imports].filter((symbol) => SPAWNING_IMPORTS.has(symbol));
  if (spawning.length > 0) return multiProcess(`${program} calls ${spawning.join(', ')} to start child processes`, label);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// After a run

export interface RunContext {
  plan: VirtualSpeedupPlan;
  run: RunConfig;
  /** The profile after the run; undefined when there is none. */
  profile?: Profile;
  /** Runs the profile held before this run: later ones are this run's. Default: only the last run is. */
  runsBefore?: number;
  env?: NodeJS.ProcessEnv;
}

function cozMissing(outcome: RunOutcome, messages: readonly string[], label: string): Diagnosis | undefined {
  const spawnFailed = find(messages, /^spawn \S*coz\S* ENOENT/) ?? (outcome.spawnError?.code === 'ENOENT' ? { line: outcome.spawnError.message } : undefined);
  const noLibrary = find(messages, /unable to locate coz runtime library/);
  const noPython = find(messages, /env: .?python3?.?: No such file/);
  if (!spawnFailed && !noLibrary && !noPython) return undefined;
  const what = noLibrary ? 'COZ\'s runtime library libcoz.so is missing' : noPython ? 'python3, which runs the `coz` script, is missing' : '`coz` is not installed (not on the PATH)';
  return {
    kind: 'coz-missing',
    message: `${label}: cannot run a virtual speedup: ${what}.`,
    fix: noPython ? '`sudo apt-get install python3`' : INSTALL_HINT,
    evidence: (noLibrary ?? noPython ?? spawnFailed)?.line,
  };
}

async function lineNotFound(context: RunContext, evidence: string): Promise<Diagnosis> {
  const { plan } = context;
  const where = plan.label;
  const program = resolveProgram(context.run, context.env);
  const table = program ? await readLineTable(program, context.env) : undefined;
  const base: Diagnosis = {
    kind: 'line-not-found',
    message: `${where}: COZ found no code for this line in ${program ?? context.run.command}.`,
    fix: 'Choose a line with a statement that runs (not a comment, blank line or declaration), and rebuild if the source changed.',
    evidence,
  };
  if (!table) return base;
  if (table.size === 0) {
    return {
      ...base,
      message: `${where}: ${program} has no line table (no debug information), so COZ cannot find any line.`,
      fix: `Rebuild the program with ${BUILD_FLAGS}.`,
    };
  }
  const lines = linesOf(table, plan.target.file);
  if (!lines) {
    return {
      ...base,
      message: `${where}: ${program} has no code from ${path.basename(plan.target.file)} (it is not in its line table).`,
      fix: `Check that the run configuration starts the program built from ${plan.target.file}, built with ${BUILD_FLAGS}.`,
    };
  }
  const nearest = nearestLines(lines, plan.target.line);
  const listed = [
    nearest.above !== undefined ? `${nearest.above} (above)` : undefined,
    nearest.below !== undefined ? `${nearest.below} (below)` : undefined,
  ].filter((text): text is string => text !== undefined);
  const inTable = lines.includes(plan.target.line);
  const fixedFile = plan.fixedLine.slice(0, plan.fixedLine.lastIndexOf(':'));
  return {
    ...base,
    message: inTable
      ? `${where}: ${program} has code for this line, but COZ matched no source path ending in ${fixedFile}: the program was built from another folder.`
      : `${where} is not in the line table of ${program}: the compiler emitted no code for it. ` +
        `Nearest lines that have code: ${listed.join(', ') || 'none'}.`,
    fix: inTable
      ? 'Rebuild the program from these sources, or plan the run with the program\'s source files (readLineTable) so the file is named by its shortest unique suffix.'
      : 'Put the lens on one of those lines. Optimization merges lines away; -O0 keeps the most.',
    nearestLines: nearest,
  };
}

function perfPermission(messages: readonly string[], label: string): Diagnosis | undefined {
  const failed = find(messages, /Failed to open perf event/);
  if (failed) {
    const value = /current value is (-?\d+)/.exec(failed.line)?.[1];
    const current = value === undefined ? undefined : Number(value);
    const sysctlTooHigh = current === undefined || current > 2;
    return {
      kind: 'perf-permission',
      message: sysctlTooHigh
        ? `${label}: COZ could not open its perf event: kernel.perf_event_paranoid is ${current ?? 'too high'}; COZ needs 2 or less.`
        : `${label}: COZ could not open its perf event although kernel.perf_event_paranoid is ${current} (2 or less is enough): something else blocks perf_event_open, typically a container's seccomp profile.`,
      fix: sysctlTooHigh
        ? '`sudo sysctl kernel.perf_event_paranoid=2` (to keep it: `echo kernel.perf_event_paranoid=2 | sudo tee /etc/sysctl.d/90-coz.conf`), or run with CAP_PERFMON / CAP_SYS_ADMIN.'
        : 'In Docker, run the container with `--cap-add PERFMON` (or `--security-opt seccomp=unconfined`); check that the kernel has perf events (CONFIG_PERF_EVENTS).',
      evidence: failed.line,
    };
  }
  const mapping = find(messages, /Mapping perf_event ring buffer failed/);
  if (!mapping) return undefined;
  return {
    kind: 'perf-permission',
    message: `${label}: COZ could not map its perf ring buffer (locked-memory limit).`,
    fix: '`sudo sysctl kernel.perf_event_mlock_kb=2048`, or raise `ulimit -l`.',
    evidence: mapping.line,
  };
}

/** The binary contains coz.h's lookup of `_coz_get_counter` when it has any progress point. */
function hasProgressPoints(program: string | undefined): boolean | undefined {
  if (!program) return undefined;
  try {
    return fs.readFileSync(program, 'latin1').includes('_coz_get_counter');
  } catch {
    return undefined;
  }
}

/** Whether this run left an experiment on the line with a progress-point record. */
function measuredOnTarget(context: RunContext): boolean {
  const { plan, profile } = context;
  if (!profile) return false;
  const first = context.runsBefore ?? profile.runs.length - 1;
  return profile.experiments.some((experiment) => experiment.run >= first && isOnTarget(plan, experiment) && experiment.points.length > 0);
}

function noProgressPoint(context: RunContext, label: string): Diagnosis | undefined {
  const { profile } = context;
  if (!profile || profile.runs.length === 0 || measuredOnTarget(context)) return undefined;
  const program = resolveProgram(context.run, context.env);
  const hasPoints = hasProgressPoints(program);
  const runtimeNs = profile.runs[profile.runs.length - 1].runtimeNs;
  const ran = runtimeNs === undefined ? '' : ` The run lasted ${(runtimeNs / 1e9).toFixed(1)} s.`;
  const fix =
    'Add `#include <coz.h>` and `COZ_PROGRESS;` where one unit of work completes (or `COZ_BEGIN("name")` / ' +
    '`COZ_END("name")` around a request), rebuild, and run again; or profile whole runs with `coz run --end-to-end` ' +
    '(one experiment per run, so many runs).';
  if (hasPoints === false) {
    return {
      kind: 'no-progress-point',
      message: `${label}: no experiment was measured: ${program} has no COZ progress point, and COZ starts experiments only once one is reached.${ran}`,
      fix,
    };
  }
  return {
    kind: 'no-progress-point',
    message:
      `${label}: no experiment with a progress-point visit was measured: the program did not reach a progress point ` +
      `while COZ ran, or ran for less than one experiment (0.5 s).${ran}`,
    fix: `Make sure the progress point is on a path the run takes, and give the program work for at least a few seconds. ${fix}`,
  };
}

/** The last lines of stderr that are not COZ's progress chatter or a stack dump. */
function stderrTail(messages: readonly string[]): string {
  const useful = messages.filter(
    (line) =>
      !/ is not in scope$|^Included source file |^Including (MAIN|lines from)|^bootstrapping coz|^Starting profiler thread/.test(line) &&
      !/^\d+: \S+\(/.test(line),
  );
  return useful.slice(-3).join(' | ');
}

/**
 * Explains a finished run that failed or measured nothing on the plan's line; undefined when it
 * went well (or was cancelled).
 */
export async function diagnoseRun(context: RunContext, outcome: RunOutcome): Promise<Diagnosis | undefined> {
  if (outcome.cancelled) return undefined;
  const { plan } = context;
  const label = plan.label;
  const messages = cozMessages(outcome.stderr);
  const program = resolveProgram(context.run, context.env) ?? context.run.command;

  // spawn reports a missing working directory as ENOENT of the command, too.
  if ((outcome.spawnError || outcome.exitCode === null) && !fs.existsSync(context.run.cwd)) {
    return {
      kind: 'program-not-found',
      message: `${label}: the run's working directory ${context.run.cwd} does not exist.`,
      fix: 'Correct cwd in the run configuration.',
    };
  }
  const missing = cozMissing(outcome, messages, label);
  if (missing) return missing;

  const dwarf = find(messages, /unknown compilation unit version (\d+)/);
  if (dwarf) {
    return {
      kind: 'dwarf5',
      message: `${label}: COZ 0.2.2 cannot read the DWARF ${dwarf.match[1]} debug information of ${program} (GCC 11 and later write DWARF 5 by default) and aborted before the program ran.`,
      fix: `Rebuild with ${BUILD_FLAGS} (for example in CFLAGS/CXXFLAGS/FFLAGS).`,
      evidence: dwarf.line,
    };
  }

  const failed = outcome.exitCode !== 0;
  const locviews = find(messages, /Ignoring DWARF format error when reading line table: (.*)/);
  const notFound = find(messages, /Fixed line "(.*)" was not found\./);
  if (locviews && (failed || notFound || !measuredOnTarget(context))) {
    return {
      kind: 'dwarf-locviews',
      message:
        `${label}: COZ 0.2.2 could not read the line table of ${program} ("${locviews.match[1]}", ` +
        `usually GCC's DWARF location views), so it knows none of the lines of that compilation unit.`,
      fix: `Rebuild with ${BUILD_FLAGS}.`,
      evidence: locviews.line,
    };
  }
  if (notFound) return lineNotFound(context, notFound.line);

  const perf = perfPermission(messages, label);
  if (perf) return perf;

  if (failed) {
    const how = outcome.signal ? `was killed by ${outcome.signal}` : outcome.exitCode === 250 ? 'aborted (exit code 250: SIGABRT)' : `exited with code ${outcome.exitCode}`;
    const tail = stderrTail(messages);
    return {
      kind: 'program-failed',
      message: `${label}: ${program} ${how} under COZ${tail ? `: ${tail}` : '.'}`,
      fix: 'Check that the program runs without COZ with the same arguments and working directory.',
      evidence: tail || undefined,
    };
  }

  if (!context.profile || context.profile.runs.length === 0) {
    return {
      kind: 'no-profile',
      message: `${label}: the run ended normally but COZ wrote nothing to ${plan.profilePath}: COZ never started inside ${program}.`,
      fix: 'Make the program binary itself the command (not a script or wrapper), linked dynamically.',
    };
  }
  return noProgressPoint(context, label);
}
