/**
 * Runs inside a real VS Code extension host: "Calibrate This Machine's Network" runs the real
 * `causal-lens calibrate` (ping-pongs under mpirun, built by scripts/build-mpi.sh) as a task; the
 * table lands in the workspace named by the host, and the open panel's What-if tab offers it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { calibrationFile } from '../../../client/src/calibrateNetwork';
import type { CausalLensApi } from '../../../client/src/extension';
import { loadCommTable } from '../../../server/src/network/commTable';
import { waitForOption } from './panelOptions';

suite("Calibrate This Machine's Network", () => {
  test("writes this host's table into the workspace and offers it to the What-if tab", async function () {
    this.timeout(240_000);
    const api = await vscode.extensions.getExtension<CausalLensApi>('causal-lens.causal-lens')!.activate();
    await api.ready;
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const table = calibrationFile(folder, os.hostname());
    fs.rmSync(table, { force: true });
    await vscode.commands.executeCommand('causalLens.openPanel', 'whatif');
    // The command ends by asking whether to open the What-if tab: watch its effects instead.
    void vscode.commands.executeCommand('causalLens.calibrateNetwork');
    await waitForOption(api, (options) => options.networks.find((n) => n.id === table), 200_000, () => `the panel never listed ${table}; exists: ${fs.existsSync(table)}`);
    // A measured table of this machine: ping-pong points and the scheduler's slice, which turns on turns.
    const measured = loadCommTable(table);
    assert.equal(measured.source, 'measured');
    assert.ok(measured.intraNode && measured.intraNode.length > 10, 'ping-pong sizes');
    assert.ok(measured.schedulerSliceSeconds !== undefined && measured.schedulerSliceSeconds > 0, 'the scheduler slice');
  });
});
