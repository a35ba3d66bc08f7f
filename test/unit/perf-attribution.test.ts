// What the editor reads from sample data (server/src/samples/attribution.ts): lines of a
// file, breakdown by thread, the heaviest stacks into a line, the tree grouped by class
// and thread, workspace roots, and profiles merged into one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parseProfileText } from '../../server/src/import';
import { SampleData } from '../../server/src/model/profile';
import {
  STACKS_PER_LINE,
  attributeSamples,
  byClassAndThread,
  linesOfFile,
  stackText,
  totalMs,
  workspaceFilter,
} from '../../server/src/samples/attribution';
import { mergeSampleData } from '../../server/src/samples/merge';

const FIXTURES = path.join(__dirname, '../../../test/fixtures/perf');
const load = (name: string) => parseProfileText(fs.readFileSync(path.join(FIXTURES, name), 'utf8'), name).samples!;

/** The fixture's switch-outs all closed, so that every class appears. */
function closedSwitches(): SampleData {
  const text = fs.readFileSync(path.join(FIXTURES, '05-script-dwarf-sched_switch-switch-events.txt'), 'utf8');
  const closing = [6578, 6581, 6582].map((tid) => `demo  6578/${tid}   1280.570000: PERF_RECORD_SWITCH IN`).join('\n');
  return parseProfileText(`${text}\n${closing}\n`, '05-closed').samples!;
}

test('a line holds its time by class and by thread, and at most three stacks, heaviest first', () => {
  const attribution = attributeSamples(load('02-script-fields-srcline.txt'), workspaceFilter([]));
  for (const entry of attribution.lines) {
    const threads = [...entry.byThread.values()].reduce((sum, ms) => sum + totalMs(ms), 0);
    assert.ok(Math.abs(threads - totalMs(entry.ms)) < 1e-9);
    assert.ok(entry.stacks.length >= 1 && entry.stacks.length <= STACKS_PER_LINE);
    for (let i = 1; i < entry.stacks.length; i++) assert.ok(entry.stacks[i - 1].ms >= entry.stacks[i].ms);
    // The line's own frame is on each of its stacks.
    for (const stack of entry.stacks) assert.ok(stack.frames.some((id) => attribution.frames[id].file === entry.file && attribution.frames[id].line === entry.line));
  }
  for (let i = 1; i < attribution.lines.length; i++) assert.ok(totalMs(attribution.lines[i - 1].ms) >= totalMs(attribution.lines[i].ms));
});

test('stack text names each frame by function and place, innermost first', () => {
  const data = closedSwitches();
  const attribution = attributeSamples(data, workspaceFilter([]));
  const sync = data.stacks.find((s) => s.cls === 'sync')!;
  const text = stackText(attribution, { frames: sync.frames, ms: sync.ms });
  assert.equal(text[0], '__schedule [kernel.kallsyms]');
  assert.ok(text.some((t) => t.startsWith('wait_for_turn')), text.join(' | '));
});

test('the tree: classes, then threads, then the lines with time of that class', () => {
  const data = closedSwitches();
  const attribution = attributeSamples(data, (file) => file === 'x');
  // Nothing in the workspace: every millisecond is outside, and the tree is empty.
  assert.equal(attribution.lines.length, 0);
  assert.ok(Math.abs(totalMs(attribution.outside) - totalMs(attribution.total)) < 1e-9);
  assert.equal(byClassAndThread(attribution).size, 0);
  const withPerfLines = attributeSamples(load('04-script-dwarf-inline-srcline.txt'), workspaceFilter([]));
  const tree = byClassAndThread(withPerfLines);
  assert.deepEqual([...tree.keys()], ['onCpu']);
  const [thread, lines] = [...tree.get('onCpu')!][0];
  assert.match(thread, /^ ?\d+$|^\S* ?\d+$/);
  for (let i = 1; i < lines.length; i++) assert.ok(lines[i - 1].byThread.get(thread)!.onCpu >= lines[i].byThread.get(thread)!.onCpu);
});

test('lines of one file; workspace roots decide which frame takes the time', () => {
  const data = load('03-script-srcline-fullpath.txt');
  const inDemo = attributeSamples(data, workspaceFilter(['/home/dev/perfdemo']));
  assert.ok(inDemo.lines.length > 0);
  assert.ok(inDemo.lines.every((l) => l.file.startsWith('/home/dev/perfdemo/')));
  assert.deepEqual(linesOfFile(inDemo, '/home/dev/perfdemo/demo.c'), inDemo.lines.filter((l) => l.file === '/home/dev/perfdemo/demo.c'));
  assert.equal(attributeSamples(data, workspaceFilter(['/elsewhere'])).lines.length, 0);
});

test('merged profiles: the same frames once, time added', () => {
  const a = load('01-script-default-fpcallchain.txt');
  const b = load('01-script-default-fpcallchain.txt');
  const merged = mergeSampleData([a, b]);
  assert.equal(merged.frames.length, a.frames.length);
  const sum = (d: SampleData) => d.stacks.reduce((s, x) => s + x.ms, 0);
  assert.equal(sum(merged), 2 * sum(a));
  assert.equal(merged.stacks.length, a.stacks.length);
});
