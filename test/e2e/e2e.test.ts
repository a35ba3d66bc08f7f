/**
 * End to end through the UI: code-server with the extension installed, samples/ open in headless
 * chromium (see workbench.ts). Needs the tools (scripts/setup-tools.sh, then `. scripts/tools-env.sh`)
 * and a built extension (npm run build).
 *
 *   node --test out/test/e2e/
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../vscode/codeServer';
import { withWorkbench } from './workbench';

const SAMPLES = path.join(repoRoot, 'samples');
const SAMPLE_C_FILE = 'pipeline.c';

test(`${SAMPLE_C_FILE} shows Causal code lenses and hot-line backgrounds`, { timeout: 240_000 }, async (t) => {
  await withWorkbench(SAMPLES, 'pipeline-c', async (workbench) => {
    await workbench.openFile(SAMPLE_C_FILE);
    const lens = await workbench.waitForLens(/^\s*Causal/);
    t.diagnostic(`first Causal lens: ${lens}`);
    const decoratedLines = await workbench.lineDecorations();
    t.diagnostic(`decorated lines: ${JSON.stringify(decoratedLines)}`);
    t.diagnostic(`screenshot: ${await workbench.screenshot('pipeline-c')}`);
    assert.ok(
      decoratedLines.some((line) => line.backgrounds.length > 0),
      'no visible line of the editor has a background decoration',
    );
  });
});
