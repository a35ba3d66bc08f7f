// The panel's number formats (webview/src/format.ts), which its tests also use for expectations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSeconds, formatSecondsRange } from '../../webview/src/format';

test('seconds in the unit their size reads best in; a range names its unit once when both ends share it', () => {
  assert.deepEqual([2e-7, 0.07339, 1.5, 250].map(formatSeconds), ['0.2 µs', '73.39 ms', '1.500 s', '250.0 s']);
  assert.equal(formatSeconds(NaN), '—');
  assert.equal(formatSecondsRange(0.07339, 0.07391), '73.39–73.91 ms');
  assert.equal(formatSecondsRange(0.9, 1.2), '900.00 ms – 1.200 s');
  assert.equal(formatSecondsRange(NaN, 1.2), '— – 1.200 s');
});
