// How an MPI program is started: Open MPI's mpirun as argv (never a shell string).
// On this kind of machine two things matter (docs: /work/shared/reference/placement.md):
// as root, Open MPI refuses to run without --allow-run-as-root; and with more ranks than cores,
// its default busy polling makes ranks fight for the CPU, so ranks yield when idle.

import { spawn } from 'node:child_process';

export interface MpiLaunch {
  np: number;
  program: string;
  args: readonly string[];
  /** Exported to every rank with -x. */
  env?: Record<string, string>;
}

/**
 * The most ranks a local launch takes: mpirun starts them all on this machine (oversubscribed), so
 * a mistyped count (a billion) would fork until the machine gives out.
 */
export const MAX_LOCAL_RANKS = 4096;

export function mpirunArgv(launch: MpiLaunch, isRoot = process.getuid?.() === 0): string[] {
  const argv = ['mpirun', '-np', String(launch.np), '--oversubscribe', '--mca', 'mpi_yield_when_idle', '1'];
  if (isRoot) argv.push('--allow-run-as-root');
  for (const [name, value] of Object.entries(launch.env ?? {})) argv.push('-x', `${name}=${value}`);
  argv.push(launch.program, ...launch.args);
  return argv;
}

export interface MpiResult {
  /** Exit code of mpirun, or null when it was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/**
 * Runs argv; the ranks' stdout is collected and also passed to `onOutput` as it comes, their
 * stderr goes to `onOutput` too (mpirun merges the ranks' streams).
 */
export function runMpi(argv: readonly string[], onOutput: (text: string) => void, cwd?: string): Promise<MpiResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      stdout += text;
      onOutput(text);
    });
    child.stderr.on('data', (text: string) => onOutput(text));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'ENOENT' ? `${argv[0]} not found: install openmpi-bin` : error.message)),
    );
    child.on('close', (code, signal) => resolve({ code, signal, stdout }));
  });
}
