/**
 * Runs inside a real VS Code extension host: a virtual speedup of one line with the real COZ.
 * A small threaded program (test/fixtures/virtual/virtual.c) is built into the workspace and
 * profiled once with plain `coz run`, which gives its hot lines their lenses. The lens's command
 * runs the schedule as tasks; the profile then holds experiments on that line at every
 * scheduled speedup, 0 included, and the line shows the measured curve.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CausalLensApi } from '../../../client/src/extension';
import { readProfileFile } from '../../../server/src/import';

const REPO = path.join(__dirname, '../../../..');

/** Waits until the document has a lens on `line` whose title passes `matches`, and returns it. */
async function waitForLens(uri: vscode.Uri, line: number, matches: (title: string) => boolean): Promise<vscode.CodeLens> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const lens = lenses.find((l) => l.range.start.line === line && l.command && matches(l.command.title));
    if (lens) return lens;
    if (Date.now() > deadline) {
      throw new Error(`no matching lens on line ${line + 1}: ${JSON.stringify(lenses.map((l) => [l.range.start.line, l.command?.title]))}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
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
    // A plain COZ run: samples on the hot lines, which is where the run lenses appear.
    execFileSync('coz', ['run', '-o', path.join(dir, 'profile.coz'), '---', path.join(dir, 'build/virtual'), '60'], { cwd: dir, stdio: 'ignore' });
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
    // The lens on slow_work's header runs on its hottest line (where COZ put the loop's samples).
    const header = slowLine - document.getText().split('\n').slice(0, slowLine).reverse().findIndex((l) => l.includes('slow_work(')) - 1;
    const runLens = await waitForLens(document.uri, header, (title) => title.includes("slow_work's hottest line"));
    const target = runLens.command!.arguments![1] as number;
    assert.ok(target > header && target <= slowLine + 1, `the hottest line ${target + 1} is in slow_work`);
    const started: string[] = [];
    const listener = vscode.tasks.onDidStartTask((event) => started.push(event.execution.task.name));
    try {
      await vscode.commands.executeCommand(runLens.command!.command, ...runLens.command!.arguments!);
    } finally {
      listener.dispose();
    }
    assert.ok(started.length >= SPEEDUPS.length, `one task per run: ${JSON.stringify(started)}`);
    assert.ok(started.every((name) => /^virtual speedup .*virtual\.c:\d+ at \d+%$/.test(name)), JSON.stringify(started));

    const profilePath = path.join(folder, 'quick/causal-lens-virtual', `virtual.c-${target + 1}.coz`);
    const profile = await readProfileFile(profilePath);
    const onLine = profile.experiments.filter((e) => e.target.kind === 'line' && e.target.line === target + 1);
    for (const speedup of SPEEDUPS) {
      assert.ok(onLine.some((e) => Math.round(e.speedup * 100) === speedup && e.points.length > 0), `an experiment at ${speedup}%`);
    }

    await waitForLens(document.uri, target, (title) => title.startsWith('Causal: ') && !title.startsWith('Causal: collecting'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', document.uri, new vscode.Position(target, 4));
    const hover = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    // The curve measured by the runs: one table row per scheduled speedup.
    const section = hover.split('\n---\n').find((part) => part.includes('| line speedup |'));
    assert.ok(section, `the hover shows a curve: ${hover}`);
    assert.deepEqual(
      section.split('\n').filter((row) => /^\| \d+% \|/.test(row)).map((row) => Number(/^\| (\d+)%/.exec(row)![1])),
      SPEEDUPS,
    );
  });

  for (const [what, run] of [
    ['a program launched through mpirun', { command: 'mpirun', args: ['-np', '2', '${workspaceFolder}/quick/build/virtual'], cwd: '${workspaceFolder}/quick' }],
    ['a hand-edited run setting whose args are not a list', { command: '${workspaceFolder}/quick/build/virtual', args: '60 2', cwd: '${workspaceFolder}/quick' }],
  ] as const) {
    test(`${what} is refused before anything runs`, async () => {
      const config = vscode.workspace.getConfiguration('causalLens');
      const saved = config.get('run');
      await config.update('run', run, vscode.ConfigurationTarget.Workspace);
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
  }
});
