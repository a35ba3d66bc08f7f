// What the extension host sent the open panel as its lists of traces and networks, waited for:
// the commands that write into the workspace (Record MPI Trace, Calibrate) end by refreshing them.
import * as assert from 'node:assert/strict';
import type { CausalLensApi } from '../../../client/src/extension';
import type { ToPanel } from '../../../webview/src/messages';

type Options = Extract<ToPanel, { type: 'options' }>;

/** The first entry `pick` finds in the options sent so far, polled until `timeoutMs`; `missing` says why not. */
export async function waitForOption<T>(api: CausalLensApi, pick: (options: Options) => T | undefined, timeoutMs: number, missing: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const message of api.panelMessages()) {
      const found = message.type === 'options' ? pick(message) : undefined;
      if (found !== undefined) return found;
    }
    assert.ok(Date.now() < deadline, missing());
    await new Promise((r) => setTimeout(r, 250));
  }
}
