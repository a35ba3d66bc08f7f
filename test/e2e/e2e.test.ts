/**
 * End to end through the UI: code-server with the extension installed as a user's would be,
 * samples/ open in headless chromium (see workbench.ts). What the page shows is compared with
 * the server modules run directly on the same profile.
 *
 *   . scripts/tools-env.sh && node --test out/test/e2e/
 */
import * as assert from 'node:assert/strict';
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
    await workbench.openFile(`${SAMPLE}.c`);
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
    // Show Hover (Ctrl+K Ctrl+I) at the cursor, on the hottest line.
    await workbench.page.keyboard.press('Control+K');
    await workbench.page.keyboard.press('Control+I');
    const hover = workbench.page.locator('.monaco-hover', { hasText: 'Causal Lens' }).first();
    await hover.waitFor({ timeout: 30_000 });
    assert.match(await hover.innerText(), /program speedup/);
    t.diagnostic(`hover screenshot: ${await workbench.screenshot(`${SAMPLE}-hover`)}`);
    await workbench.page.keyboard.press('Escape');
    await workbench.runCommand('Causal Lens: Focus on Lines by Impact View');
    await workbench.page.locator('.monaco-list-row', { hasText: `${SAMPLE}.c:` }).first().waitFor({ timeout: 30_000 });
    t.diagnostic(`screenshot: ${await workbench.screenshot(SAMPLE)}`);
  });
});
