// "Run virtual speedup" on a line: the server plans the COZ runs and reads their results; this
// module asks for the program once, runs each planned argv as a task, and shows progress with
// cancel. Nothing runs in an untrusted workspace.

import * as vscode from 'vscode';
import * as ext from '../../server/src/protocol/lspExt';
import { runAsTask } from './processTask';
import { expand, programSetting, runPreLaunchTask, workspaceTrusted } from './programSetting';
import { ServerConnection } from './serverConnection';
import { StatusItem } from './statusBar';

function showFailure(message: string, fix: string): void {
  void vscode.window.showErrorMessage(`Causal Lens: ${message}${fix ? ` ${fix}` : ''}`);
}

export async function runVirtualSpeedup(server: ServerConnection, status: StatusItem, uri: string | vscode.Uri, line: number): Promise<void> {
  const documentUri = typeof uri === 'string' ? vscode.Uri.parse(uri) : uri;
  if (!(await workspaceTrusted())) return;
  const folder = vscode.workspace.getWorkspaceFolder(documentUri) ?? vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage('Causal Lens: open the program\'s folder as a workspace to run a virtual speedup.');
    return;
  }
  const setting = await programSetting(folder, { key: 'run', openLabel: 'Profile This Program', purpose: 'under COZ', when: 'before each virtual speedup' });
  if (!setting?.command) return;
  if (setting.preLaunchTask && !(await runPreLaunchTask(setting.preLaunchTask))) return;

  const options = vscode.workspace.getConfiguration('causalLens.virtualSpeedup', folder.uri);
  const start = await server.request(ext.virtualSpeedupStart, {
    uri: documentUri.toString(),
    line,
    run: {
      command: expand(setting.command, folder),
      args: (setting.args ?? []).map((a) => expand(a, folder)),
      cwd: expand(setting.cwd ?? '${workspaceFolder}', folder),
      env: setting.env,
    },
    speedupsPercent: options.get<number[]>('speedups'),
    experimentsPerSpeedup: options.get<number>('experimentsPerSpeedup'),
    timeBudgetSeconds: options.get<number>('timeBudgetSeconds'),
  });
  if (!start.ok) {
    showFailure(start.message, start.fix);
    return;
  }

  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Causal Lens: virtual speedup of ${start.label}`, cancellable: true },
    async (progress, token) => {
      const began = Date.now();
      let step = start.step;
      let runs = 0;
      try {
        while (step.kind === 'run') {
          // The title names the line already.
          progress.report({ message: step.message.replace(`${start.label}: `, '') });
          status.showRunning(`${start.label} at ${step.run.speedupPercent}%`);
          const outcome = await runAsTask(folder, `virtual speedup ${start.label} at ${step.run.speedupPercent}%`, step.run, token);
          runs++;
          step = await server.request(ext.virtualSpeedupNext, {
            session: start.session,
            elapsedMs: Date.now() - began,
            runsCompleted: runs,
            outcome,
          });
        }
      } finally {
        status.showRunning(undefined);
      }
      if (step.kind === 'failed') showFailure(step.message, step.fix);
      else void vscode.window.showInformationMessage(`Causal Lens: ${step.message}`);
    },
  );
}
