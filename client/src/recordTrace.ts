// "Record MPI Trace": runs the configured MPI program under `causal-lens trace` (mpirun with
// the PMPI recorder, see recorder/) as a task, then offers the trace to the What-if panel.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { PanelHost } from './panel';
import { OUTPUT_FOLDER, offerWhatIf, runCliTask, trustedFolder } from './cliTask';
import { RunSetting, expand, programSetting, runPreLaunchTask } from './programSetting';

interface MpiRunSetting extends RunSetting {
  /** Ranks to start (mpirun -np). */
  np?: number;
  /** Each rank on one core, in blocks (`causal-lens trace --pin`); on unless set to false. */
  pin?: boolean;
}

/** Where a trace of `command` with `np` ranks goes, inside the folder: never outside it. */
export function traceDirectory(folder: string, command: string, np: number): string {
  return path.join(folder, OUTPUT_FOLDER, `${path.basename(command)}-np${np}`);
}

export async function recordTrace(cliPath: string, panel: PanelHost): Promise<void> {
  const folder = await trustedFolder("the MPI program's folder as a workspace to record a trace");
  if (!folder) return;
  const setting = await programSetting<MpiRunSetting>(folder, { key: 'mpiRun', openLabel: 'Trace This Program', purpose: 'under mpirun with the trace recorder', when: 'before each trace' });
  if (!setting?.command) return;
  if (setting.preLaunchTask && !(await runPreLaunchTask(setting.preLaunchTask))) return;
  const np = Number.isInteger(setting.np) && (setting.np as number) > 0 ? (setting.np as number) : 4;
  const command = expand(setting.command, folder);
  const out = traceDirectory(folder.uri.fsPath, command, np);
  const name = `trace ${path.basename(command)} on ${np} ranks`;
  const done = await runCliTask(folder, cliPath, {
    name,
    args: ['trace', '--np', String(np), '--out', out, ...(setting.pin === false ? [] : ['--pin']), '--', command, ...(setting.args ?? []).map((a) => expand(a, folder))],
    cwd: expand(setting.cwd ?? '${workspaceFolder}', folder),
    env: setting.env,
    cancelledMessage: `${name} was cancelled; the trace up to the last flush is in ${vscode.workspace.asRelativePath(out)}.`,
  });
  if (done) await offerWhatIf(panel, `trace written to ${vscode.workspace.asRelativePath(out)}.`);
}
