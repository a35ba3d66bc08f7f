// "Record MPI Trace": runs the configured MPI program under `causal-lens trace` (mpirun with
// the PMPI recorder, see recorder/) as a task, then offers the trace to the What-if panel.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { PanelHost } from './panel';
import { runAsTask } from './processTask';
import { RunSetting, expand, programSetting, runPreLaunchTask, workspaceTrusted } from './programSetting';

interface MpiRunSetting extends RunSetting {
  /** Ranks to start (mpirun -np). */
  np?: number;
}

/** Where a trace of `command` with `np` ranks goes, inside the folder: never outside it. */
export function traceDirectory(folder: string, command: string, np: number): string {
  return path.join(folder, 'causal-lens-traces', `${path.basename(command)}-np${np}`);
}

export async function recordTrace(cliPath: string, panel: PanelHost): Promise<void> {
  if (!(await workspaceTrusted())) return;
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage('Causal Lens: open the MPI program\'s folder as a workspace to record a trace.');
    return;
  }
  const setting = await programSetting<MpiRunSetting>(folder, { key: 'mpiRun', openLabel: 'Trace This Program', purpose: 'under mpirun with the trace recorder', when: 'before each trace' });
  if (!setting?.command) return;
  if (setting.preLaunchTask && !(await runPreLaunchTask(setting.preLaunchTask))) return;
  const np = Number.isInteger(setting.np) && (setting.np as number) > 0 ? (setting.np as number) : 4;
  const command = expand(setting.command, folder);
  const out = traceDirectory(folder.uri.fsPath, command, np);
  const argv = [process.execPath, cliPath, 'trace', '--np', String(np), '--out', out, '--', command, ...(setting.args ?? []).map((a) => expand(a, folder))];
  const name = `trace ${path.basename(command)} on ${np} ranks`;
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Causal Lens: ${name}`, cancellable: true },
    (_progress, token) =>
      // The extension host may be Electron: run its Node for the CLI.
      runAsTask(folder, name, { argv, cwd: expand(setting.cwd ?? '${workspaceFolder}', folder), env: { ...setting.env, ELECTRON_RUN_AS_NODE: '1' } }, token),
  );
  if (outcome.cancelled) {
    void vscode.window.showInformationMessage(`Causal Lens: ${name} was cancelled; the trace up to the last flush is in ${vscode.workspace.asRelativePath(out)}.`);
    return;
  }
  if (outcome.exitCode !== 0) {
    const last = outcome.stderr.trim().split('\n').pop() ?? '';
    void vscode.window.showErrorMessage(`Causal Lens: ${name} failed (${outcome.signal ?? `exit code ${outcome.exitCode}`}): ${last}`);
    return;
  }
  panel.refreshOptions();
  const open = 'Open What-if';
  const choice = await vscode.window.showInformationMessage(`Causal Lens: trace written to ${vscode.workspace.asRelativePath(out)}.`, open);
  if (choice === open) panel.show('whatif');
}
