// Records an OTF2 trace of an MPI program: mpirun with the recorder preloaded into every rank
// (recorder/README.md). The recorder writes the archive itself at MPI_Finalize; when the run
// ends without it (a rank aborted, was killed, or the disk filled), the converter builds the
// archive from what the ranks had flushed, marked truncated.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { OTF2_CONVERTER, RECORDER_LIBRARY, builtFile } from './artifacts';
import { mpirunArgv, runMpi } from './launch';
import { readErrorReason } from '../readError';
import { rankList } from '../pem/rankList';

const execFileAsync = promisify(execFile);

export type FlushMode = 'equalized' | 'independent';

export interface TraceOptions {
  np: number;
  outDir: string;
  program: string;
  args: readonly string[];
  /** S: buffered bytes per rank above which the ranks flush at the next check. */
  flushThresholdBytes?: number;
  memoryBudgetBytes?: number;
  flushMode?: FlushMode;
  /** Each rank pins itself to one core of those it may use, in blocks (CAUSAL_LENS_PIN, recorder/README.md). */
  pin?: boolean;
  onOutput?: (text: string) => void;
}

export interface RankSummary {
  rank: number;
  host: string;
  cpuSet: string;
  finished: boolean;
  records: number;
  suspensions: number;
  /** Every pair of ranks exchanged a message before the trace (recorder.c, preconnect). */
  preconnected: boolean;
  truncated?: string;
}

export interface TraceSummary {
  archive: string;
  ranks: RankSummary[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why the archive is incomplete; undefined when it is complete. */
  truncated?: string;
  /** The ranks' standard output. */
  stdout: string;
}

export function recorderEnv(options: TraceOptions): Record<string, string> {
  const env: Record<string, string> = {
    LD_PRELOAD: builtFile(RECORDER_LIBRARY),
    CAUSAL_LENS_TRACE_DIR: path.resolve(options.outDir),
  };
  if (options.flushThresholdBytes !== undefined) env.CAUSAL_LENS_FLUSH_THRESHOLD = String(options.flushThresholdBytes);
  if (options.memoryBudgetBytes !== undefined) env.CAUSAL_LENS_MEMORY_BUDGET = String(options.memoryBudgetBytes);
  if (options.flushMode) env.CAUSAL_LENS_FLUSH_MODE = options.flushMode;
  if (options.pin) env.CAUSAL_LENS_PIN = '1';
  return env;
}

/** sizeof(cl_record) in recorder/rawlog.h */
const SPOOL_RECORD_BYTES = 48;

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The per-rank metadata the recorder leaves in <dir>/spool/rank-<r>.meta. */
export function readRankSummaries(dir: string): RankSummary[] {
  const spool = path.join(dir, 'spool');
  const names = fs.existsSync(spool) ? fs.readdirSync(spool) : [];
  const ranks: RankSummary[] = [];
  for (const name of names) {
    const match = /^rank-(\d+)\.meta$/.exec(name);
    if (!match) continue;
    const fields = new Map<string, string>();
    for (const line of fs.readFileSync(path.join(spool, name), 'utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) fields.set(line.slice(0, space), line.slice(space + 1));
    }
    ranks.push({
      rank: Number(match[1]),
      host: fields.get('host') ?? 'unknown',
      cpuSet: fields.get('cpu_set') ?? 'unknown',
      finished: fields.get('finished') === '1',
      // The spool's whole records: also right for a rank that died before writing its totals.
      records: Math.floor(fileSize(path.join(spool, `rank-${match[1]}.evt`)) / SPOOL_RECORD_BYTES),
      suspensions: Number(fields.get('suspensions') ?? 0),
      preconnected: fields.get('preconnected') === '1',
      truncated: fields.get('truncated'),
    });
  }
  return ranks.sort((a, b) => a.rank - b.rank);
}

function launcherReason(summary: Pick<TraceSummary, 'exitCode' | 'signal'>): string | undefined {
  if (summary.signal) return `mpirun was killed by ${summary.signal}`;
  return summary.exitCode !== 0 ? `mpirun exited with status ${summary.exitCode}` : undefined;
}

function archiveIncompleteReason(summary: Pick<TraceSummary, 'exitCode' | 'signal'>, ranks: RankSummary[], np: number): string | undefined {
  const reasons: string[] = [];
  const unfinished = ranks.filter((r) => !r.finished).map((r) => r.rank);
  if (unfinished.length > 0 || ranks.length < np) {
    // A program that fails after MPI_Finalize still left a complete trace.
    const launcher = launcherReason(summary);
    if (launcher) reasons.push(launcher);
  }
  if (unfinished.length > 0) reasons.push(`rank(s) ${rankList(unfinished)} did not reach MPI_Finalize`);
  if (ranks.length < np) reasons.push(`${np - ranks.length} rank(s) left no trace`);
  for (const r of ranks) if (r.truncated) reasons.push(r.truncated);
  return reasons.length ? reasons.join('; ') : undefined;
}

/** What a recording leaves in its directory: the OTF2 archive and the recorder's spool. */
const TRACE_DIR_ENTRIES = ['traces.otf2', 'traces.def', 'traces', 'spool'];

/**
 * A trace's directory is new, empty or a previous trace's, whose files the new one replaces; any
 * other directory is refused rather than have its `traces` or `spool` deleted (`--out ~`).
 */
export function traceDirProblem(outDir: string): string | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${outDir}: cannot be a trace's directory (${readErrorReason(error)})`;
  }
  const others = entries.filter((entry) => !TRACE_DIR_ENTRIES.includes(entry));
  if (others.length === 0) return undefined;
  return `${outDir} holds other files (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}): a trace needs a directory of its own, new or a previous trace's`;
}

export async function recordTrace(options: TraceOptions): Promise<TraceSummary> {
  const outDir = path.resolve(options.outDir);
  const refused = traceDirProblem(outDir);
  if (refused) throw new Error(refused);
  fs.mkdirSync(outDir, { recursive: true });
  // A previous trace in the same directory must not pass for this one.
  for (const stale of TRACE_DIR_ENTRIES) fs.rmSync(path.join(outDir, stale), { recursive: true, force: true });
  const argv = mpirunArgv({ np: options.np, program: options.program, args: options.args, env: recorderEnv(options) });
  const result = await runMpi(argv, options.onOutput ?? (() => undefined));
  const ranks = readRankSummaries(outDir);
  const archive = path.join(outDir, 'traces.otf2');
  const truncated = archiveIncompleteReason({ exitCode: result.code, signal: result.signal }, ranks, options.np);
  if (!fs.existsSync(archive) || (truncated && ranks.some((r) => !r.finished))) {
    // The converter adds what the spool shows (unfinished ranks, damage); the launcher's view is ours to give.
    const launcher = launcherReason({ exitCode: result.code, signal: result.signal });
    const problems = await convertSpool(outDir, launcher ?? 'the recorder did not write the archive');
    options.onOutput?.(problems);
  }
  // A full disk can leave the archive's files empty; the spool still holds what was flushed.
  const unwritten = fileSize(archive) === 0 ? `the archive could not be written in ${outDir} (full disk?); the spool there can be converted later with ${OTF2_CONVERTER}` : undefined;
  const reason = [truncated, unwritten].filter(Boolean).join('; ') || undefined;
  return { archive, ranks, exitCode: result.code, signal: result.signal, truncated: reason, stdout: result.stdout };
}

/** Builds the archive from the spool with the converter; returns its problems, one line each naming the file. */
export async function convertSpool(dir: string, reason: string): Promise<string> {
  try {
    const { stderr } = await execFileAsync(builtFile(OTF2_CONVERTER), ['--reason', reason, dir]);
    return stderr;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`could not build an archive from ${dir}/spool: ${(failed.stderr || failed.message).trim()}`);
  }
}
