/**
 * End to end through the UI: code-server with the extension installed as a user's would be,
 * samples/ open in headless chromium (see workbench.ts). What the page shows is compared with
 * the server modules run directly on the same profile.
 *
 *   . scripts/tools-env.sh && node --test out/test/e2e/
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { claimText } from '../../server/src/causal/claims';
import { compareCurves, computeCurves } from '../../server/src/causal/curves';
import { readProfileFile } from '../../server/src/import';
import { repoRoot } from '../vscode/codeServer';
import { withWorkbench } from './workbench';

const SAMPLES = path.join(repoRoot, 'samples');
const SAMPLE = 'pipeline';

/** 1-based lines of pipeline.c with a full curve, and the claim the editor should show there. */
async function expectedClaims(): Promise<Map<number, string>> {
  const profile = await readProfileFile(path.join(SAMPLES, SAMPLE, 'profile.coz'));
  const claims = new Map<number, string>();
  const curves = computeCurves(profile).filter(
    (c) => c.status.kind === 'curve' && c.target.kind === 'line' && path.basename(c.target.path) === `${SAMPLE}.c`,
  );
  // A line with several progress points shows its best-ranked curve.
  curves.sort(compareCurves);
  for (const curve of curves) {
    if (curve.target.kind === 'line' && !claims.has(curve.target.line)) claims.set(curve.target.line, claimText(curve));
  }
  return claims;
}

test(`${SAMPLE}.c: lenses on the curve lines, the claims after them, hot lines shaded`, { timeout: 300_000 }, async (t) => {
  const expected = await expectedClaims();
  assert.ok(expected.size >= 2, `the sample profile has curves on at least two lines of ${SAMPLE}.c`);
  await withWorkbench(SAMPLES, SAMPLE, async (workbench) => {
    await workbench.openFile(`${SAMPLE}/${SAMPLE}.c`);
    await workbench.waitForLens(/^Causal: /);
    for (const [line, claim] of expected) {
      await workbench.goToLine(line);
      const lenses = await workbench.lensLines();
      const lens = lenses.find((l) => l.line === line);
      assert.ok(lens, `a lens above line ${line}; lenses seen: ${JSON.stringify(lenses)}`);
      assert.ok(lens.text.startsWith(`Causal: ${claim}`), `lens on line ${line}: "${lens.text}" should start with the claim "${claim}"`);
      const decorated = (await workbench.lineDecorations()).find((d) => d.line === line);
      assert.ok(decorated, `line ${line} is decorated`);
      assert.ok(decorated.afterTexts.some((text) => text.trim() === claim), `after line ${line}: ${JSON.stringify(decorated.afterTexts)}`);
    }
    const hottest = [...expected.keys()][0];
    await workbench.goToLine(hottest);
    const shaded = (await workbench.lineDecorations()).filter((d) => d.backgrounds.length > 0);
    t.diagnostic(`shaded lines near ${hottest}: ${shaded.map((d) => d.line).join(', ')}`);
    assert.ok(shaded.length > 0, 'hot lines have a background');
    // The hover at the cursor, on the hottest line.
    const hover = await workbench.hoverAtCursor('Causal Lens');
    assert.match(await hover.innerText(), /program speedup/);
    t.diagnostic(`hover screenshot: ${await workbench.screenshot(`${SAMPLE}-hover`)}`);
    await workbench.page.keyboard.press('Escape');
    await workbench.runCommand('Causal Lens: Focus on Lines by Impact View');
    await workbench.page.locator('.monaco-list-row', { hasText: `${SAMPLE}.c:` }).first().waitFor({ timeout: 30_000 });
    t.diagnostic(`screenshot: ${await workbench.screenshot(SAMPLE)}`);
  });
});

test(`${SAMPLE}.c: one click on "Run virtual speedup" builds, starts a COZ task with progress; Cancel stops it and leaves a readable profile`, { timeout: 300_000 }, async (t) => {
  const workspace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-e2e-')), 'samples');
  // As from a fresh checkout: nothing built; samples/.vscode names the program and its build task.
  fs.cpSync(SAMPLES, workspace, { recursive: true, filter: (source) => path.basename(source) !== 'build' });
  const [line] = [...(await expectedClaims()).keys()];
  const programDir = path.join(workspace, SAMPLE);
  const profilePath = path.join(programDir, 'causal-lens-virtual', `${SAMPLE}.c-${line}.coz`);
  try {
    await withWorkbench(
      workspace,
      `${SAMPLE}-virtual-speedup`,
      async (workbench) => {
        await workbench.openFile(`${SAMPLE}/${SAMPLE}.c`);
        await workbench.waitForLens('Run virtual speedup');
        await workbench.goToLine(line);
        await workbench.clickLens(line, 'Run virtual speedup');
        const progress = workbench.page.locator('.notification-list-item', { hasText: `virtual speedup of ${SAMPLE}/${SAMPLE}.c:${line}` }).first();
        await progress.waitFor({ timeout: 30_000 });
        await workbench.page.getByText(new RegExp(`virtual speedup ${SAMPLE}/${SAMPLE}\\.c:${line} at 0%`)).first().waitFor({ timeout: 30_000 });
        // Cancel once COZ has written an experiment on the line.
        const deadline = Date.now() + 60_000;
        while (!(fs.existsSync(profilePath) && (await readProfileFile(profilePath)).experiments.length > 0)) {
          assert.ok(Date.now() < deadline, `no experiment in ${profilePath} within 60 s`);
          await new Promise((r) => setTimeout(r, 250));
        }
        assert.ok(fs.existsSync(path.join(programDir, 'build', SAMPLE)), 'the build task ran first');
        t.diagnostic(`screenshot: ${await workbench.screenshot(`${SAMPLE}-virtual-speedup`)}`);
        await progress.locator('.monaco-button, a.monaco-button', { hasText: 'Cancel' }).first().click();
        await workbench.page.locator('.notification-list-item', { hasText: 'cancelled' }).first().waitFor({ timeout: 30_000 });
      },
    );
    const profile = await readProfileFile(profilePath);
    assert.deepEqual(profile.problems.filter((p) => p.severity === 'error'), []);
    assert.ok(profile.experiments.every((e) => e.target.kind === 'line' && e.target.line === line && e.speedup === 0));
    assert.ok(profile.experiments.length >= 1);
  } finally {
    fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  }
});
