// Runs a `causal-lens` CLI command (the bundled dist/cli.js) as a task, with a cancellable
// progress notification, and says what went wrong when it fails.

import * as vscode from 'vscode';
import { PanelHost } from './panel';
import { runAsTask } from './processTask';
import { workspaceTrusted } from './programSetting';

/** The workspace folder the commands write traces and tables into (the What-if tab's globs find them there). */
export const OUTPUT_FOLDER = 'causal-lens-traces';

/** The workspace's first folder, when the workspace is trusted to run programs; else the user is told and undefined. */
export async function trustedFolder(purpose: string): Promise<vscode.WorkspaceFolder | undefined> {
  if (!(await workspaceTrusted())) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) void vscode.window.showErrorMessage(`Causal Lens: open ${purpose}.`);
  return folder;
}

export interface CliTask {
  /** The task's name, also the notification's title after "Causal Lens: ". */
  name: string;
  /** The CLI's arguments after the script. */
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /** What the user is told when they cancel. */
  cancelledMessage: string;
}

/** True when the command exited 0; otherwise the user has been told why it did not. */
export async function runCliTask(folder: vscode.WorkspaceFolder, cliPath: string, task: CliTask): Promise<boolean> {
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Causal Lens: ${task.name}`, cancellable: true },
    (_progress, token) =>
      // The extension host may be Electron: run its Node for the CLI.
      runAsTask(folder, task.name, { argv: [process.execPath, cliPath, ...task.args], cwd: task.cwd, env: { ...task.env, ELECTRON_RUN_AS_NODE: '1' } }, token),
  );
  if (outcome.cancelled) {
    void vscode.window.showInformationMessage(`Causal Lens: ${task.cancelledMessage}`);
    return false;
  }
  if (outcome.exitCode !== 0) {
    const last = outcome.stderr.trim().split('\n').pop() ?? '';
    void vscode.window.showErrorMessage(`Causal Lens: ${task.name} failed (${outcome.signal ?? `exit code ${outcome.exitCode}`}): ${last}`);
    return false;
  }
  return true;
}

/** After a command wrote something the What-if tab lists: refreshes its lists and offers to open it. */
export async function offerWhatIf(panel: PanelHost, message: string): Promise<void> {
  panel.refreshOptions();
  const open = 'Open What-if';
  if ((await vscode.window.showInformationMessage(`Causal Lens: ${message}`, open)) === open) panel.show('whatif');
}
