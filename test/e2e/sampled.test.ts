/**
 * perf in a real VS Code: samples/blocking is recorded with the stock perf (`causal-lens
 * record`), the workspace opened, and the editor must show each marked line's sampled time as
 * the server modules compute it, with the off-CPU classes (I/O on fsync, lock on the condition
 * wait) in the off-CPU colours, the hover's breakdown, and the Sampled Time tree.
 *
 *   . scripts/tools-env.sh && node --test out/test/e2e/sampled.test.js
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_CURVE_OPTIONS } from '../../server/src/causal/curves';
import { fileHeat } from '../../server/src/lsp/views';
import { PathResolver } from '../../server/src/workspace/pathResolver';
import { ProfileStore } from '../../server/src/workspace/profileStore';
import { scanWorkspace } from '../../server/src/workspace/scan';
import { repoRoot } from '../vscode/codeServer';
import { withWorkbench } from './workbench';

const CLI = path.join(repoRoot, 'out', 'server', 'src', 'cli', 'main.js');

function marker(source: string, name: string): number {
  const index = fs.readFileSync(source, 'utf8').split('\n').findIndex((text) => text.includes(`/* @${name} */`));
  assert.ok(index >= 0, `marker @${name} in ${source}`);
  return index + 1;
}

test('blocking.c recorded with perf: heat, off-CPU classes after the lines, hover and the Sampled Time tree', { timeout: 300_000 }, async (t) => {
  const workspace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-e2e-perf-')), 'samples');
  fs.cpSync(path.join(repoRoot, 'samples'), workspace, { recursive: true, filter: (source) => path.basename(source) !== 'build' });
  const dir = path.join(workspace, 'blocking');
  const source = path.join(dir, 'blocking.c');
  try {
    const make = spawnSync('make', ['-s', '-C', dir], { encoding: 'utf8' });
    assert.equal(make.status, 0, make.stderr);
    const record = spawnSync(
      process.execPath,
      [CLI, 'record', '--out', path.join(dir, 'causal-lens-record'), '--', path.join(dir, 'build', 'blocking'), '200', '40', '3', '150', path.join(dir, 'build', 'io.dat')],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(record.status, 0, record.stderr);

    // What the editor should show: the server's own modules on the same recording.
    const store = new ProfileStore(new PathResolver([workspace], (await scanWorkspace([workspace], [])).files, []), DEFAULT_CURVE_OPTIONS);
    await store.load(path.join(dir, 'causal-lens-record', 'perf.data'));
    const expected = new Map(fileHeat(store.linesOf(source)!.values(), 0.005).map((h) => [h.line + 1, h]));
    const fsync = marker(source, 'fsync');
    const condwait = marker(source, 'condwait');
    assert.match(expected.get(fsync)?.annotation ?? '', /I\/O \d/, 'fsync shows I/O time');
    assert.match(expected.get(condwait)?.annotation ?? '', /lock \d/, 'the condition wait shows lock time');

    await withWorkbench(workspace, 'sampled', async (workbench) => {
      await workbench.openFile('blocking/blocking.c');
      for (const line of [fsync, condwait, marker(source, 'compute')]) {
        await workbench.goToLine(line);
        const want = expected.get(line);
        assert.ok(want?.annotation, `line ${line} has sampled time`);
        let shown: string[] = [];
        for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
          shown = (await workbench.lineDecorations()).find((d) => d.line === line)?.afterTexts.map((s) => s.trim()) ?? [];
          if (shown.length > 0) break;
        }
        assert.deepEqual(shown, [want.annotation], `after line ${line}`);
      }
      // The fsync line is mostly off the CPU: its shade is from the off-CPU family, unlike the compute line's.
      const decorated = await workbench.lineDecorations();
      const background = (line: number) => decorated.find((d) => d.line === line)?.backgrounds[0];
      await workbench.goToLine(fsync);
      const fsyncShade = (await workbench.lineDecorations()).find((d) => d.line === fsync)?.backgrounds[0];
      assert.ok(fsyncShade, 'the fsync line is shaded');
      assert.notEqual(fsyncShade, background(marker(source, 'compute')), 'off-CPU and on-CPU lines differ in colour');
      const hover = await workbench.hoverAtCursor(/Sampled time/);
      const hoverText = await hover.innerText();
      assert.match(hoverText, /I\/O/);
      assert.match(hoverText, /Heaviest stacks into this line/);
      assert.match(hoverText, /fsync/);
      t.diagnostic(`screenshot: ${await workbench.screenshot('sampled-hover')}`);
      await workbench.page.keyboard.press('Escape');
      await workbench.runCommand('Causal Lens: Focus on Sampled Time View');
      for (const label of ['CPU', 'I/O', 'lock']) {
        await workbench.page.locator('.monaco-list-row', { hasText: label }).first().waitFor({ timeout: 30_000 });
      }
      t.diagnostic(`screenshot: ${await workbench.screenshot('sampled')}`);
    });
  } finally {
    fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  }
});
