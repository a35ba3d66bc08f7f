// Runs one program as a VS Code task whose terminal shows its output, and hands back its
// exit code and stderr (a ProcessExecution task would show the output but keep stderr from
// us, and the server needs it to explain failures). Programs run as argv, never via a shell.

import { spawn } from 'node:child_process';
import * as vscode from 'vscode';

export interface ProcessRun {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  cancelled: boolean;
}

/** Keeps the tail of stderr: COZ's errors come last, and a chatty program must not fill memory. */
const STDERR_LIMIT = 64 * 1024;

/** Terminals want \r\n; programs write \n. */
function toTerminal(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

export async function runAsTask(
  folder: vscode.WorkspaceFolder,
  name: string,
  run: ProcessRun,
  token: vscode.CancellationToken,
): Promise<ProcessResult> {
  let settle: (result: ProcessResult) => void = () => undefined;
  const finished = new Promise<ProcessResult>((resolve) => (settle = resolve));
  const execution = new vscode.CustomExecution(async () => {
    const write = new vscode.EventEmitter<string>();
    const close = new vscode.EventEmitter<number>();
    let stop: () => void = () => undefined;
    // The program starts when the terminal opens, so none of its output is lost.
    const start = () => {
      write.fire(toTerminal(`$ ${run.argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n`));
      let stderr = '';
      let cancelled = false;
      let done = false;
      const child = spawn(run.argv[0], run.argv.slice(1), {
        cwd: run.cwd,
        env: { ...process.env, ...run.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: `coz run` starts the program as a child, and both must stop.
        detached: true,
      });
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
      };
      stop = () => {
        if (done) return;
        cancelled = true;
        signalGroup('SIGINT'); // experiments already written stay: COZ writes its profile unbuffered
        setTimeout(() => signalGroup('SIGKILL'), 3000).unref();
      };
      const cancellation = token.onCancellationRequested(stop);
      const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
        if (done) return;
        done = true;
        cancellation.dispose();
        const how = cancelled ? 'cancelled' : signal ? `killed by ${signal}` : `exit code ${exitCode}`;
        write.fire(toTerminal(`\n[${name}: ${how}]\n`));
        close.fire(exitCode ?? 1);
        settle({ exitCode, signal, stderr, cancelled });
      };
      child.stdout.on('data', (chunk: Buffer) => write.fire(toTerminal(chunk.toString())));
      child.stderr.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        stderr = (stderr + text).slice(-STDERR_LIMIT);
        write.fire(toTerminal(text));
      });
      child.on('error', (error) => {
        stderr += `\n${error.message}`;
        write.fire(toTerminal(`\n${error.message}\n`));
        if (child.pid === undefined) finish(null, null); // never started: no 'close' will come
      });
      child.on('close', finish);
    };
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      onDidClose: close.event,
      open: start,
      close: () => stop(),
    };
    return pty;
  });
  const task = new vscode.Task({ type: 'causalLens', name }, folder, name, 'Causal Lens', execution);
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated, clear: false };
  await vscode.tasks.executeTask(task);
  return finished;
}
