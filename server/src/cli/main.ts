// The causal-lens command line: the same analysis as the language server, for terminals.

import { runFit } from './fit';
import { UsageError } from './flags';
import { runRecord } from './record';
import { runReport } from './report';
import { runTrace } from './trace';
import { runCalibrate } from './calibrate';
import { endQuietlyOnClosedPipe } from './closedPipe';
import { progressLine } from './progressLine';
import { runWhatif } from './whatif';

const USAGE = `usage: causal-lens <command> [options]

commands:
  report [--json] [--min-points N] [--root DIR[,DIR]] FILE...   rank lines of COZ/BCOZ profiles; perf/bperf time per line
  fit [--json] [--predict X]... CSV           scaling model of runs (x, y[, component]) and predictions at X
  record [--out DIR] -- CMD ARGS...           record CMD with perf: on- and off-CPU time per line
  trace [--np N] [--out DIR] [--pin] -- PROGRAM ARGS...   record an OTF2 trace of an MPI program (mpirun + recorder; --pin: a core per rank, in blocks)
  calibrate [--np 2] [--out FILE] [--repeat N] [--shared-core K,K...|none] [--preset NAME]   communication-time table of this machine (or a preset)
  whatif [--json] TRACE [--placement N/M[:cyclic]]... [--map FILE]... [--network FILE|ethernet-10m|gbe|10gbe|ib-100g]... [--cores C] [--traced-network FILE|PRESET] [--event-cost-ns NS|auto] [--compute-from TRACE [--compute-from-network FILE|PRESET]] [--spread]   PEM: predicted run time of other placements and networks (--spread: also with each calibration point at its fastest and slowest measurement)
`;

/** `progress`, on a terminal only, for commands whose work can run for long without output. */
type Command = (args: string[], out: (t: string) => void, err: (t: string) => void, progress?: (fraction: number) => void) => Promise<number>;

const COMMANDS: Record<string, Command> = { report: runReport, fit: runFit, record: runRecord, trace: runTrace, calibrate: runCalibrate, whatif: runWhatif };

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe('causal-lens');
  const out = (text: string) => process.stdout.write(text);
  const err = (text: string) => process.stderr.write(text);
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`causal-lens: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  const line = process.stderr.isTTY ? progressLine(`causal-lens ${name}`, err) : undefined;
  // Whatever the command writes starts on a line of its own.
  const erasingFirst = (write: (text: string) => void) => (line ? (text: string) => (line.done(), write(text)) : write);
  const toOut = erasingFirst(out);
  const toErr = erasingFirst(err);
  try {
    return await command(args, toOut, toErr, line?.update);
  } catch (error) {
    if (error instanceof UsageError) {
      toErr(`causal-lens ${name}: ${error.message}\n${USAGE}`);
      return 2;
    }
    // Never a stack trace to a user: one line naming what failed.
    toErr(`causal-lens ${name}: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  } finally {
    line?.done();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
