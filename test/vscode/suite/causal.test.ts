/**
 * Runs inside a real VS Code extension host on the samples workspace: the lenses, hovers,
 * highlights and commands a user sees, checked against the server modules run directly on
 * the same profiles (an independent path: no LSP, no editor).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CausalLensApi } from '../../../client/src/extension';
import { computeCurves } from '../../../server/src/causal/curves';
import { readProfileFile } from '../../../server/src/import';

const EXTENSION_ID = 'causal-lens.causal-lens';

async function api(): Promise<CausalLensApi> {
  const extension = vscode.extensions.getExtension<CausalLensApi>(EXTENSION_ID)!;
  const exports = await extension.activate();
  await exports.ready;
  return exports;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Per sample source file (beside its profile), the 0-based lines that have a full causal curve. */
async function expectedCurveLines(): Promise<Map<string, number[]>> {
  const expected = new Map<string, number[]>();
  for (const uri of await vscode.workspace.findFiles('**/profile.coz')) {
    const profile = await readProfileFile(uri.fsPath);
    for (const curve of computeCurves(profile)) {
      if (curve.status.kind !== 'curve' || curve.target.kind !== 'line') continue;
      // samples/mpi has files of the same names: the source is the one beside its profile.
      const base = path.join(path.dirname(uri.fsPath), path.basename(curve.target.path));
      const lines = expected.get(base) ?? [];
      if (!lines.includes(curve.target.line - 1)) lines.push(curve.target.line - 1);
      expected.set(base, lines.sort((a, b) => a - b));
    }
  }
  return expected;
}

async function openSample(file: string): Promise<vscode.TextEditor> {
  return vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
}

suite('causal profiles in the editor', () => {
  let expected: Map<string, number[]>;

  suiteSetup(async () => {
    await api();
    expected = await expectedCurveLines();
    assert.ok(expected.size >= 2, `the samples have curves in at least two files: ${[...expected.keys()]}`);
  });

  test('activation is quick and reports its time', async () => {
    const exports = await api();
    console.log(`    activation: ${exports.activationMs.toFixed(1)} ms`);
    assert.ok(exports.activationMs > 0);
  });

  test('every line with a curve, and only those, has a Causal code lens', async () => {
    for (const [file, lines] of expected) {
      const editor = await openSample(file);
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
        'vscode.executeCodeLensProvider',
        editor.document.uri,
      );
      const causal = lenses.filter((l) => l.command?.title.startsWith('Causal: ') && !l.command.title.startsWith('Causal: collecting'));
      assert.deepEqual([...new Set(causal.map((l) => l.range.start.line))].sort((a, b) => a - b), lines, file);
      for (const lens of causal) assert.match(lens.command!.title, /impact \d\.\d{3} \[/);
    }
  });

  test('hovering a curve line shows its table', async () => {
    const [file, lines] = [...expected][0];
    const editor = await openSample(file);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      editor.document.uri,
      new vscode.Position(lines[0], 2),
    );
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /\*\*Causal Lens\*\* · line \d+/);
    assert.match(text, /\| line speedup \| program speedup \| 95% interval \| experiments \| visits \|/);
  });

  test('hot lines are shaded, with the claim after every curve line', async () => {
    const exports = await api();
    for (const [file, lines] of expected) {
      const editor = await openSample(file);
      const heat = await waitFor('decorations', () => {
        const applied = exports.appliedHeat(editor.document.uri);
        return applied.length > 0 ? applied : undefined;
      });
      assert.ok(heat.some((l) => l.heat === 1), 'the hottest line has full heat');
      const annotated = heat.filter((l) => l.annotation).map((l) => l.line).sort((a, b) => a - b);
      assert.deepEqual(annotated, lines, file);
      for (const line of heat.filter((l) => l.annotation)) {
        assert.match(line.annotation!, /^(\+[\d.]+% program( \(±[\d.]+\))? if \d+% faster|no gain shown: .*)$/);
      }
    }
  });

  test('Toggle Hot-Line Highlights removes and restores the highlights', async () => {
    const exports = await api();
    const [file] = [...expected][0];
    const editor = await openSample(file);
    await vscode.commands.executeCommand('causalLens.toggleHighlights');
    await waitFor('highlights off', () => (exports.appliedHeat(editor.document.uri).length === 0 ? true : undefined));
    await vscode.commands.executeCommand('causalLens.toggleHighlights');
    await waitFor('highlights on', () => (exports.appliedHeat(editor.document.uri).length > 0 ? true : undefined));
  });

  test('Next Hot Line moves the cursor to a highlighted line', async () => {
    const exports = await api();
    const [file] = [...expected][0];
    const editor = await openSample(file);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('causalLens.nextHotLine');
    const active = vscode.window.activeTextEditor!;
    const hot = exports.appliedHeat(active.document.uri).map((l) => l.line);
    assert.ok(hot.includes(active.selection.active.line), `line ${active.selection.active.line} is one of ${hot}`);
    assert.ok(active.selection.active.line > 0 || active.document.uri.toString() !== editor.document.uri.toString());
  });

  test('a profile written into the workspace is picked up by the file watcher, and unloaded with its folder', async () => {
    const exports = await api();
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const [source] = await vscode.workspace.findFiles('**/profile.coz');
    const liveDir = path.join(folder, 'live-watch-test');
    const before = exports.lastStatus()!.experiments;
    const added = (await readProfileFile(source.fsPath)).experiments.length;
    fs.mkdirSync(liveDir, { recursive: true });
    // inotify watches a new folder only once it is seen: a file written into it at once can be missed.
    // (COZ appends to a profile in an existing folder; this test then deletes the whole folder.)
    await new Promise((r) => setTimeout(r, 1500));
    try {
      fs.copyFileSync(source.fsPath, path.join(liveDir, 'profile.coz'));
      await waitFor('the new profile to load', () => (exports.lastStatus()!.experiments === before + added ? true : undefined));
    } finally {
      fs.rmSync(liveDir, { recursive: true, force: true });
    }
    await waitFor('the removed profile to unload', () => (exports.lastStatus()!.experiments === before ? true : undefined));
  });
});
