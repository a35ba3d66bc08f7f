/**
 * Runs inside a real VS Code extension host: "Record MPI Trace" runs the configured MPI program
 * (samples/mpi's ring, built by scripts/build-mpi.sh) under `causal-lens trace` as a task; the
 * OTF2 archive lands in the workspace, its ranks pinned to cores by default, and the open panel's
 * What-if tab lists it with its ranks.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CausalLensApi } from '../../../client/src/extension';
import { openOtf2Archive } from '../../../server/src/trace/otf2Archive';
import { waitForOption } from './panelOptions';

const REPO = path.join(__dirname, '../../../..');
const RING = path.join(process.env.CAUSAL_LENS_MPI_BUILD || path.join(REPO, 'build', 'mpi'), 'ring');

suite('Record MPI Trace', () => {
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('causalLens').update('mpiRun', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test('traces the configured program as a task and offers the trace to the What-if tab', async function () {
    this.timeout(120_000);
    assert.ok(fs.existsSync(RING), `${RING} is built (scripts/build-mpi.sh)`);
    const api = await vscode.extensions.getExtension<CausalLensApi>('causal-lens.causal-lens')!.activate();
    await api.ready;
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const anchor = path.join(folder, 'causal-lens-traces', 'ring-np2', 'traces.otf2');
    fs.rmSync(path.dirname(anchor), { recursive: true, force: true });
    await vscode.workspace.getConfiguration('causalLens').update('mpiRun', { command: RING, args: ['40'], np: 2 }, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('causalLens.openPanel', 'whatif');
    // The command ends by asking whether to open the What-if tab: watch its effects instead.
    // The panel is refreshed only after the task exited 0 with the archive written.
    void vscode.commands.executeCommand('causalLens.recordTrace');
    const listed = await waitForOption(api, (options) => options.traces.find((t) => t.path === anchor), 90_000, () => `the panel never listed ${anchor}; exists: ${fs.existsSync(anchor)}`);
    assert.equal(listed.ranks, 2, 'the panel knows the trace has two ranks');
    // Pinned by default (causalLens.mpiRun.pin): each rank on one core of its own here, in blocks.
    const cores = os.cpus().length;
    assert.deepEqual(
      openOtf2Archive(anchor).ranks.map((r) => r.cpuSet),
      [0, 1].map((rank) => String(Math.floor((rank * cores) / 2))),
    );
  });
});
