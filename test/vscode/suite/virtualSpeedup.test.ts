/**
 * Runs inside a real VS Code extension host: a virtual speedup of one line with the real COZ.
 * A small threaded program (test/fixtures/virtual/virtual.c) is built into the workspace; the
 * command runs the schedule as tasks; the profile then holds experiments on that line at every
 * scheduled speedup, 0 included, and the line's lens shows the measured curve.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CausalLensApi } from '../../../client/src/extension';
import { readProfileFile } from '../../../server/src/import';

const REPO = path.join(__dirname, '../../../..');
const SPEEDUPS = [0, 50, 100];

suite('virtual speedup with the real COZ', () => {
  let folder: string;
  let source: string;
  let slowLine: number;

  suiteSetup(async function () {
    this.timeout(60_000);
    const api = await vscode.extensions.getExtension<CausalLensApi>('causal-lens.causal-lens')!.activate();
    await api.ready;
    folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const dir = path.join(folder, 'quick');
    fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
    source = path.join(dir, 'virtual.c');
    fs.copyFileSync(path.join(REPO, 'test/fixtures/virtual/virtual.c'), source);
    execFileSync('gcc', ['-g', '-gdwarf-4', '-gno-variable-location-views', '-O1', '-pthread', '-o', path.join(dir, 'build/virtual'), source, '-ldl']);
    slowLine = fs.readFileSync(source, 'utf8').split('\n').findIndex((l) => l.includes('/* slow loop */'));
    assert.ok(slowLine > 0);
    const config = vscode.workspace.getConfiguration('causalLens');
    await config.update('run', { command: '${workspaceFolder}/quick/build/virtual', args: ['60'], cwd: '${workspaceFolder}/quick' }, vscode.ConfigurationTarget.Workspace);
    await config.update('virtualSpeedup.speedups', SPEEDUPS, vscode.ConfigurationTarget.Workspace);
    await config.update('virtualSpeedup.experimentsPerSpeedup', 1, vscode.ConfigurationTarget.Workspace);
    await config.update('minPoints', SPEEDUPS.length, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    const config = vscode.workspace.getConfiguration('causalLens');
    for (const key of ['run', 'virtualSpeedup.speedups', 'virtualSpeedup.experimentsPerSpeedup', 'minPoints']) {
      await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('the schedule runs as tasks and leaves experiments at every speedup, 0 included; the lens shows the curve', async function () {
    this.timeout(120_000);
    const document = await vscode.workspace.openTextDocument(source);
    await vscode.window.showTextDocument(document);
    const started: string[] = [];
    const listener = vscode.tasks.onDidStartTask((event) => started.push(event.execution.task.name));
    try {
      await vscode.commands.executeCommand('causalLens.runVirtualSpeedup', document.uri.toString(), slowLine);
    } finally {
      listener.dispose();
    }
    assert.ok(started.length >= SPEEDUPS.length, `one task per run: ${JSON.stringify(started)}`);
    assert.ok(started.every((name) => /^virtual speedup .*virtual\.c:\d+ at \d+%$/.test(name)), JSON.stringify(started));

    const profilePath = path.join(folder, 'quick/causal-lens-virtual', `virtual.c-${slowLine + 1}.coz`);
    const profile = await readProfileFile(profilePath);
    const onLine = profile.experiments.filter((e) => e.target.kind === 'line' && e.target.line === slowLine + 1);
    for (const speedup of SPEEDUPS) {
      assert.ok(onLine.some((e) => Math.round(e.speedup * 100) === speedup && e.points.length > 0), `an experiment at ${speedup}%`);
    }

    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
    const summary = lenses.find((l) => l.range.start.line === slowLine && l.command?.title.startsWith('Causal: '));
    assert.ok(summary, `a Causal lens on line ${slowLine + 1}: ${JSON.stringify(lenses.map((l) => [l.range.start.line, l.command?.title]))}`);
    assert.match(summary.command!.title, /· 3 speedups$/);
    assert.ok(lenses.some((l) => l.range.start.line === slowLine && l.command?.command === 'causalLens.runVirtualSpeedup'));
  });

  test('a program launched through mpirun is refused before anything runs', async () => {
    const config = vscode.workspace.getConfiguration('causalLens');
    const saved = config.get('run');
    await config.update('run', { command: 'mpirun', args: ['-np', '2', '${workspaceFolder}/quick/build/virtual'], cwd: '${workspaceFolder}/quick' }, vscode.ConfigurationTarget.Workspace);
    const started: string[] = [];
    const listener = vscode.tasks.onDidStartTask((event) => started.push(event.execution.task.name));
    try {
      await vscode.commands.executeCommand('causalLens.runVirtualSpeedup', vscode.Uri.file(source).toString(), slowLine);
    } finally {
      listener.dispose();
      await config.update('run', saved, vscode.ConfigurationTarget.Workspace);
    }
    assert.deepEqual(started, []);
  });
});
