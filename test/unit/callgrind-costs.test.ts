// bench/callgrindCosts.ts: callgrind's per-instruction costs (--dump-instr=yes) summed per
// function, JIT code named from node's perf map; the bench's cache-miss figures rest on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callgrindCosts, parsePerfMap } from '../../bench/callgrindCosts';

// As callgrind writes it: names compressed (`(id) name` once, `(id)` after, a callee's name
// given first in `cfn=`), addresses relative to the line before, `*` for the same, a missing
// trailing cost 0, and after `calls=` the call's inclusive cost, which belongs to the callee.
const CALLGRIND = `version: 1
positions: instr line
events: Ir Dr DLmr

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) native_helper
0x1000 0 5 1 1
+4 0 3
cfn=(2) later_named
calls=1 0x2000 0
* 0 1000 500 400
fn=(2)
0x2000 0 7 2 2
fn=(3) 0x7f0000000100
0x7f0000000100 0 10 4 3
+16 0 20 6
0x7f0000000200 0 1 1 1
-256 0 2 0 1
`;

const PERF_MAP = `7f0000000100 20 JS:*send engine.js:965:9
7f0000000200 40 JS:*postRecv engine.js:1063:13
not a map line
`;

test('costs are summed per function, JIT code named from the perf map', () => {
  const costs = callgrindCosts(CALLGRIND, parsePerfMap(PERF_MAP));
  assert.deepEqual(costs.eventNames, ['Ir', 'Dr', 'DLmr']);
  const byName = Object.fromEntries(costs.functions.map((f) => [f.name, f.costs]));
  // The call's inclusive cost (1000 500 400) is not the caller's.
  assert.deepEqual(byName.native_helper, [8, 1, 1]);
  // A name first given in cfn= names the later fn=(2).
  assert.deepEqual(byName.later_named, [7, 2, 2]);
  // 0x…100 and 0x…110 (+16) are send's, 0x…200 postRecv's; -256 from 0x…200 is send's first again.
  assert.deepEqual(byName['JS:*send engine.js:965:9'], [32, 10, 4]);
  assert.deepEqual(byName['JS:*postRecv engine.js:1063:13'], [1, 1, 1]);
  assert.deepEqual(costs.totals, [48, 14, 8]);
});

test("an address outside every code object keeps callgrind's name", () => {
  const costs = callgrindCosts(CALLGRIND, parsePerfMap('7f0000000100 10 JS:*send engine.js:965:9\n'));
  const byName = Object.fromEntries(costs.functions.map((f) => [f.name, f.costs]));
  // 0x…110 is past send's 16 bytes, and 0x…200 in no code object: both the fn= line's.
  assert.deepEqual(byName['JS:*send engine.js:965:9'], [12, 4, 4]);
  assert.deepEqual(byName['0x7f0000000100'], [21, 7, 1]);
});

test('code put where freed code was takes the address; the rest of the freed range keeps its name', () => {
  // Otf2RankStream's code freed, and send's and postRecv's compiled into its range, as V8 does.
  const ranges = parsePerfMap('7f0000000100 100 JS:*Otf2RankStream\n7f0000000120 20 JS:*send\n7f0000000180 100 JS:*postRecv\n');
  assert.deepEqual(
    ranges.map((r) => [r.start - 0x7f0000000100, r.end - 0x7f0000000100, r.name]),
    [
      [0, 0x20, 'JS:*Otf2RankStream'],
      [0x20, 0x40, 'JS:*send'],
      [0x40, 0x80, 'JS:*Otf2RankStream'],
      [0x80, 0x180, 'JS:*postRecv'],
    ],
  );
  const costs = callgrindCosts('events: Ir\nfn=(1) x\n0x7f0000000130 0 3\n+32 0 5\n+64 0 7\n', ranges);
  assert.deepEqual(Object.fromEntries(costs.functions.map((f) => [f.name, f.costs[0]])), { 'JS:*send': 3, 'JS:*Otf2RankStream': 5, 'JS:*postRecv': 7 });
});
