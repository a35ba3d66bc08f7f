// "Calibrate This Machine's Network": runs `causal-lens calibrate` (ping-pongs between ranks on
// this machine, ranks sharing a core, the recorder's costs, the scheduler's tick and slice:
// server/src/mpi/calibration.ts) as a task. The table lands in the workspace, where the What-if
// tab offers it as the network a trace was recorded with ("Recorded with") and as one to predict.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OUTPUT_FOLDER, offerWhatIf, runCliTask, trustedFolder } from './cliTask';
import { PanelHost } from './panel';

/** Where this host's table goes, inside the folder: named by the host, which `whatIf.networkGlobs` finds. */
export function calibrationFile(folder: string, host: string): string {
  return path.join(folder, OUTPUT_FOLDER, `comm-table-${host.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

export async function calibrateNetwork(cliPath: string, panel: PanelHost): Promise<void> {
  const folder = await trustedFolder('a workspace folder to keep the calibration in');
  if (!folder) return;
  const host = os.hostname();
  const out = calibrationFile(folder.uri.fsPath, host);
  const done = await runCliTask(folder, cliPath, {
    name: `calibrate the network of ${host}`,
    args: ['calibrate', '--out', out],
    cwd: folder.uri.fsPath,
    cancelledMessage: `the calibration of ${host} was cancelled; nothing was written.`,
  });
  if (done) await offerWhatIf(panel, `${host}'s table written to ${vscode.workspace.asRelativePath(out)}: pick it under "Recorded with" for the traces recorded here.`);
}
