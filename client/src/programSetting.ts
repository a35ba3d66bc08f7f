// The programs Causal Lens runs (under COZ for a virtual speedup, under mpirun for a trace):
// a launch-configuration-like setting, asked for on first use and saved in the workspace
// settings, with an optional build task first. Nothing runs in an untrusted workspace.

import * as vscode from 'vscode';

export interface RunSetting {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  preLaunchTask?: string;
}

export function expand(value: string, folder: vscode.WorkspaceFolder): string {
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

/** How to ask for a program the first time: its setting key (below `causalLens`) and the words. */
export interface ProgramPrompt {
  key: string;
  openLabel: string;
  /** e.g. "under COZ"; the dialog says "the program to run under COZ". */
  purpose: string;
  /** Asked before each run, e.g. "before each virtual speedup". */
  when: string;
}

/** The run configuration, asked for on first use and saved in the workspace settings. */
export async function programSetting<T extends RunSetting>(folder: vscode.WorkspaceFolder, prompt: ProgramPrompt): Promise<T | undefined> {
  const config = vscode.workspace.getConfiguration('causalLens', folder.uri);
  const saved = config.get<T>(prompt.key);
  const problem = saved && settingProblem(saved);
  if (problem) {
    void vscode.window.showErrorMessage(`Causal Lens: causalLens.${prompt.key} in the settings of ${folder.name}: ${problem}`);
    return undefined;
  }
  if (saved?.command) return saved;
  const picked = await vscode.window.showOpenDialog({
    defaultUri: folder.uri,
    openLabel: prompt.openLabel,
    title: `Causal Lens: the program to run ${prompt.purpose} (saved as causalLens.${prompt.key})`,
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
      { title: `Causal Lens: build ${prompt.when}?` },
    );
    if (choice && choice.label !== 'No build task') preLaunchTask = choice.label;
  }
  const setting = { command: picked[0].fsPath, args: splitArguments(typed), cwd: '${workspaceFolder}', preLaunchTask } as T;
  await config.update(prompt.key, setting, vscode.ConfigurationTarget.WorkspaceFolder);
  return setting;
}

export async function runPreLaunchTask(name: string): Promise<boolean> {
  const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === name);
  if (!task) {
    void vscode.window.showErrorMessage(`Causal Lens: the preLaunchTask "${name}" was not found.`);
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

/** True in a trusted workspace; otherwise says why nothing runs and offers to manage trust. */
export async function workspaceTrusted(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const manage = 'Manage Workspace Trust';
  if ((await vscode.window.showWarningMessage('Causal Lens: running a program needs a trusted workspace.', manage)) === manage) {
    await vscode.commands.executeCommand('workbench.trust.manage');
  }
  return false;
}
