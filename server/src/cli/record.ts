// `causal-lens record [--out DIR] -- CMD ARGS...`: records CMD with the stock perf so that
// `causal-lens report` can show on- and off-CPU time per line with bperf's classes,
// without bperf's patched kernel. task-clock samples give on-CPU time; sched_switch
// (with prev_state, at switch-out) and PERF_RECORD_SWITCH IN give each blocked interval;
// sched_waking splits off the wait for a CPU when one of the program's threads did the
// waking. Stacks are DWARF-unwound: frame-pointer walks stop inside glibc, which keeps
// no frame pointers, and would lose the user's line for every futex or syscall wait.

import { spawn, execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { UsageError, parseFlags } from './flags';

const run = promisify(execFile);

/** 1 ms task-clock period: the unit of bperf's weights. */
export const PERIOD_NS = 1_000_000;
const STACK_BYTES = 8192;

export function perfRecordArgs(output: string, command: string[]): string[] {
  return [
    'record', '-o', output, '--call-graph', `dwarf,${STACK_BYTES}`,
    '-e', 'task-clock', '-c', String(PERIOD_NS),
    '-e', 'sched:sched_switch', '-e', 'sched:sched_waking', '--switch-events',
    '--', ...command,
  ];
}

/** Why recording cannot work here, with what to change; undefined when it can. */
export function paranoidProblem(level: number, isRoot: boolean): string | undefined {
  // Scheduler tracepoints with raw data need level -1 (or CAP_PERFMON/root); Debian's
  // kernels add level 3, which forbids perf for unprivileged users altogether.
  if (isRoot || level <= -1) return undefined;
  return (
    `kernel.perf_event_paranoid is ${level}: recording scheduler switches needs -1 (or root). ` +
    'Run: sudo sysctl -w kernel.perf_event_paranoid=-1 (until reboot), or run causal-lens record as root'
  );
}

function readParanoid(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim());
  } catch {
    return undefined;
  }
}

export async function runRecord(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const dash = args.indexOf('--');
  if (dash < 0 || dash === args.length - 1) throw new UsageError('record needs the program after --, e.g. causal-lens record -- ./prog arg');
  const { flags, positional } = parseFlags(args.slice(0, dash), { out: 'string' });
  if (positional.length > 0) throw new UsageError(`unexpected ${positional[0]} before --`);
  const command = args.slice(dash + 1);
  const dir = path.resolve((flags.out as string | undefined) ?? 'causal-lens-record');
  const output = path.join(dir, 'perf.data');

  try {
    await run('perf', ['--version']);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    err(missing ? 'causal-lens record: perf is not installed (Debian: apt-get install linux-perf)\n' : `causal-lens record: cannot run perf: ${(error as Error).message}\n`);
    return 1;
  }
  const paranoid = readParanoid();
  const problem = paranoid === undefined ? undefined : paranoidProblem(paranoid, process.getuid?.() === 0);
  if (problem) {
    err(`causal-lens record: ${problem}\n`);
    return 1;
  }
  fs.mkdirSync(dir, { recursive: true });
  err(`causal-lens record: recording ${command.join(' ')} (task-clock every ${PERIOD_NS / 1e6} ms, scheduler switches, DWARF stacks) into ${output}\n`);
  const child = spawn('perf', perfRecordArgs(output, command), { stdio: ['inherit', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => out(text));
  child.stderr.setEncoding('utf8');
  const perfLines: string[] = [];
  child.stderr.on('data', (text: string) => {
    perfLines.push(text);
    err(text);
  });
  const code = await new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('close', (status, signal) => resolve(status ?? (signal ? 128 : 1)));
  });
  const perfText = perfLines.join('');
  // perf says "Captured and wrote" only when it wrote a usable file (a failing program is still recorded).
  if (!/Captured and wrote/.test(perfText)) {
    const tracepoints = /sched:|tracepoint|tracefs/i.test(perfText) && !/No such file/.test(perfText) ? ' (the scheduler tracepoints need tracefs: mount -t tracefs nodev /sys/kernel/tracing)' : '';
    err(`causal-lens record: perf record did not record ${command[0]}${tracepoints}\n`);
    return code === 0 ? 1 : code;
  }
  err(`causal-lens record: done; see it with: causal-lens report ${path.relative(process.cwd(), output) || output}\n`);
  return code;
}
