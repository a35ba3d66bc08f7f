// `causal-lens trace [--np N] [--out DIR] [--flush-threshold BYTES] [--flush-mode equalized|independent]
//  [--pin] -- PROGRAM ARGS...`: runs PROGRAM under mpirun with the recorder (with --pin each rank
// on one core, in blocks, as PEM needs ranks that outnumber their cores) and prints where the OTF2
// archive is and what it holds. Progress and the program's own output go to stderr, so stdout
// is only the summary.

import * as path from 'node:path';
import { FlushMode, TraceSummary, recordTrace, traceDirProblem } from '../mpi/recordTrace';
import { MAX_LOCAL_RANKS } from '../mpi/launch';
import { UsageError, parseFlags } from './flags';

const FLUSH_MODES: readonly FlushMode[] = ['equalized', 'independent'];

export function traceSummaryText(summary: TraceSummary): string {
  const records = summary.ranks.reduce((sum, r) => sum + r.records, 0);
  const suspensions = summary.ranks.length ? Math.max(...summary.ranks.map((r) => r.suspensions)) : 0;
  const hosts = [...new Set(summary.ranks.map((r) => r.host))];
  const preconnected = summary.ranks.filter((r) => r.preconnected).length;
  return [
    `archive: ${summary.archive}`,
    `ranks: ${summary.ranks.length} on ${hosts.join(', ') || 'no host'}`,
    `records: ${records}`,
    `suspensions: ${suspensions}`,
    `preconnected: ${preconnected === 0 ? 'no' : preconnected === summary.ranks.length ? 'yes' : `${preconnected} of ${summary.ranks.length} ranks`}`,
    `truncated: ${summary.truncated ? `yes (${summary.truncated})` : 'no'}`,
    '',
  ].join('\n');
}

export async function runTrace(args: string[], out: (t: string) => void, err: (t: string) => void): Promise<number> {
  const { flags, positional } = parseFlags(args, { np: 'integer', out: 'string', 'flush-threshold': 'integer', 'flush-mode': 'string', pin: 'boolean' });
  if (positional.length === 0) throw new UsageError('trace needs a program: causal-lens trace [--np N] [--out DIR] -- PROGRAM ARGS...');
  const np = (flags.np as number | undefined) ?? 2;
  if (np < 1 || np > MAX_LOCAL_RANKS) throw new UsageError(`--np needs 1 to ${MAX_LOCAL_RANKS} ranks (all started on this machine), got ${np}`);
  if (flags['flush-threshold'] === 0) throw new UsageError('--flush-threshold needs at least 1 byte');
  const mode = flags['flush-mode'] as string | undefined;
  if (mode !== undefined && !FLUSH_MODES.includes(mode as FlushMode)) {
    throw new UsageError(`--flush-mode is one of ${FLUSH_MODES.join(', ')}, got "${mode}"`);
  }
  const outDir = path.resolve((flags.out as string | undefined) ?? 'causal-lens-trace');
  const refused = traceDirProblem(outDir);
  if (refused) throw new UsageError(refused);
  const [program, ...programArgs] = positional;
  err(`causal-lens trace: ${np} rank(s) of ${program}, trace in ${outDir}\n`);
  const summary = await recordTrace({
    np,
    outDir,
    program,
    args: programArgs,
    flushThresholdBytes: flags['flush-threshold'] as number | undefined,
    flushMode: mode as FlushMode | undefined,
    pin: flags.pin === true,
    onOutput: err,
  });
  out(traceSummaryText(summary));
  return summary.exitCode === 0 && !summary.truncated ? 0 : 1;
}
