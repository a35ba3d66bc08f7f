// The side panel's messages (webview/src/messages.ts): the host runs a prediction only for a
// well-formed request, and the panel takes only well-formed updates; anything else is named.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseToHost, parseToPanel } from '../../webview/src/messages';

test('a What-if request is taken only with the fields and types it needs', () => {
  const run = { type: 'runWhatIf', trace: '/w/t.otf2', scenarios: [{ nodes: 2 }, { map: [0, 1], network: 'gbe' }], tracedNetwork: '/w/comm-table.json', tableSpread: true };
  assert.deepEqual(parseToHost(run), run);
  assert.deepEqual(parseToHost({ ...run, tableSpread: undefined, coresPerNode: 2 }), { ...run, tableSpread: undefined, coresPerNode: 2 });
  assert.equal(parseToHost({ ...run, tableSpread: 'yes' }), 'a malformed "runWhatIf" message');
  assert.equal(parseToHost({ ...run, coresPerNode: 0 }), 'a malformed "runWhatIf" message');
  assert.equal(parseToHost({ ...run, scenarios: [{ nodes: -1 }] }), 'a malformed "runWhatIf" message');
  assert.equal(parseToHost({ ...run, scenarios: [{ network: { latencySeconds: 1e-6 } }] }), 'a malformed "runWhatIf" message');
  assert.equal(parseToHost({ type: 'runShell', command: 'rm' }), 'an unknown message type "runShell"');
  assert.equal(parseToHost('runWhatIf'), 'a message without a type');
});

test('the panel takes results and progress by their discriminant and fields', () => {
  assert.equal(parseToPanel({ type: 'whatIfProgress', fraction: 0.5 }), 'a malformed "whatIfProgress" message');
  const result = { type: 'whatIfResult', trace: '/w/t.otf2', result: { ok: false, message: 'Cancelled.' } };
  assert.deepEqual(parseToPanel(result), result);
  assert.equal(parseToPanel({ ...result, result: { message: 'no ok' } }), 'a malformed "whatIfResult" message');
});
