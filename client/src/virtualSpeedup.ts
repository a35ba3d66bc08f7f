// "Run virtual speedup" on a line: the server plans the COZ runs and reads their results; this
// module asks for the program once, runs each planned argv as a task, and shows progress with
// cancel. Nothing runs in an untrusted workspace.

import * as vscode from 'vscode';
import * as ext from '../../server/src/protocol/lspExt';
import { runAsTask } from './processTask';
import { ServerConnection } from './serverConnection';
import { StatusItem } from './statusBar';

interface RunSetting {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  preLaunchTask?: string;
}

function expand(value: string, folder: vscode.WorkspaceFolder): string {
  return value.split('${workspaceFolder}').join(folder.uri.fsPath);
}

/** Splits typed arguments on spaces, honouring "double" and 'single' quotes; no shell involved. */
export function splitArguments(text: string): string[] {
  const args: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) args.push(match[1] ?? match[2] ?? match[3]);
  return args;
}

/** What is wrong with a hand-edited causalLens.run, or undefined. */
function settingProblem(setting: RunSetting): string | undefined {
  if (setting.command !== undefined && typeof setting.command !== 'string') return '"command" must be a string (the program\'s path).';
  if (setting.args !== undefined && !(Array.isArray(setting.args) && setting.args.every((a) => typeof a === 'string'))) {
    return '"args" must be a list of strings, one per argument.';
  }
  if (setting.cwd !== undefined && typeof setting.cwd !== 'string') return '"cwd" must be a string.';
  if (setting.env !== undefined && (setting.env === null || typeof setting.env !== 'object' || Object.values(setting.env).some((v) => typeof v !== 'string'))) {
    return '"env" must map names to string values.';
  }
  return undefined;
}

/** The run configuration, asked for on first use and saved in the workspace settings. */
async function runSetting(folder: vscode.WorkspaceFolder): Promise<RunSetting | undefined> {
  const config = vscode.workspace.getConfiguration('causalLens', folder.uri);
  const saved = config.get<RunSetting>('run');
  const problem = saved && settingProblem(saved);
  if (problem) {
    void vscode.window.showErrorMessage(`Causal Lens: causalLens.run in the settings of ${folder.name}: ${problem}`);
    return undefined;
  }
  if (saved?.command) return saved;
  const picked = await vscode.window.showOpenDialog({
    defaultUri: folder.uri,
    openLabel: 'Profile This Program',
    title: 'Causal Lens: the program to run under COZ (saved as causalLens.run)',
  });
  if (!picked?.[0]) return undefined;
  const typed = await vscode.window.showInputBox({
    title: 'Causal Lens: arguments for the program',
    prompt: 'Separated by spaces; quote an argument that contains spaces. No shell is involved.',
    placeHolder: 'e.g. 1000 input.dat',
  });
  if (typed === undefined) return undefined;
  const buildTasks = (await vscode.tasks.fetchTasks()).filter((t) => t.group?.id === vscode.TaskGroup.Build.id);
  let preLaunchTask: string | undefined;
  if (buildTasks.length > 0) {
    const choice = await vscode.window.showQuickPick(
      [...buildTasks.map((t) => ({ label: t.name, description: 'run this build task first' })), { label: 'No build task', description: '' }],
      { title: 'Causal Lens: build before each virtual speedup?' },
    );
    if (choice && choice.label !== 'No build task') preLaunchTask = choice.label;
  }
  const setting: RunSetting = { command: picked[0].fsPath, args: splitArguments(typed), cwd: '${workspaceFolder}', preLaunchTask };
  await config.update('run', setting, vscode.ConfigurationTarget.WorkspaceFolder);
  return setting;
}

async function runPreLaunchTask(name: string): Promise<boolean> {
  const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === name);
  if (!task) {
    void vscode.window.showErrorMessage(`Causal Lens: the preLaunchTask "${name}" of causalLens.run was not found.`);
    return false;
  }
  const execution = await vscode.tasks.executeTask(task);
  const exitCode = await new Promise<number | undefined>((resolve) => {
    const listener = vscode.tasks.onDidEndTaskProcess((event) => {
      if (event.execution === execution) {
        listener.dispose();
        resolve(event.exitCode);
      }
    });
  });
  if (exitCode !== 0) void vscode.window.showErrorMessage(`Causal Lens: the build task "${name}" failed (exit code ${exitCode}); nothing was run.`);
  return exitCode === 0;
}

function showFailure(message: string, fix: string): void {
  void vscode.window.showErrorMessage(`Causal Lens: ${message}${fix ? ` ${fix}` : ''}`);
}

export async function runVirtualSpeedup(server: ServerConnection, status: StatusItem, uri: string | vscode.Uri, line: number): Promise<void> {
  const documentUri = typeof uri === 'string' ? vscode.Uri.parse(uri) : uri;
  if (!vscode.workspace.isTrusted) {
    const manage = 'Manage Workspace Trust';
    if ((await vscode.window.showWarningMessage('Causal Lens: running a program needs a trusted workspace.', manage)) === manage) {
      await vscode.commands.executeCommand('workbench.trust.manage');
    }
    return;
  }
  const folder = vscode.workspace.getWorkspaceFolder(documentUri) ?? vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage('Causal Lens: open the program\'s folder as a workspace to run a virtual speedup.');
    return;
  }
  const setting = await runSetting(folder);
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
