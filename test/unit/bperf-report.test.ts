// perf report --stdio and bperf report text: rows weighted by the event count, bperf's
// class tags [I] [L] [S] [B], srcline columns, callchain lines counted and skipped;
// and the class guess for bperf script samples, which carry no class.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parseProfileText } from '../../server/src/import';
import { guessBlockedClass } from '../../server/src/import/bperf';
import { attributeSamples, totalMs, workspaceFilter } from '../../server/src/samples/attribution';

const FIXTURES = path.join(__dirname, '../../../test/fixtures/perf');
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

/** The overhead column of a report, summed straight from the text. */
const percentSum = (text: string) => [...text.matchAll(/^[\s+-]*(\d+\.\d+)%\s{2}/gm)].reduce((sum, m) => sum + Number(m[1]), 0);

test('bperf report: each class tag is its own row, weighted as a share of the event count', () => {
  const text = read('bperf-report-screenshot.txt');
  const profile = parseProfileText(text, 'bperf');
  assert.equal(profile.format, 'bperf-report');
  assert.deepEqual(profile.problems, []);
  const data = profile.samples!;
  const count = 54497000000;
  const byClass = (cls: string) => data.stacks.filter((s) => s.cls === cls).reduce((sum, s) => sum + s.ms, 0);
  const shareOf = (percent: number) => (count * percent) / 100 / 1e6;
  assert.ok(Math.abs(byClass('sync') - shareOf(50.19)) < 1e-6);
  assert.ok(Math.abs(byClass('other') - shareOf(13.2)) < 1e-6);
  assert.ok(Math.abs(byClass('io') - shareOf(9.06)) < 1e-6);
  assert.ok(Math.abs(byClass('onCpu') - shareOf(2.44 + 1.69)) < 1e-6);
  // fsync appears twice, [B] and [I]: two rows, not one.
  assert.equal(data.stacks.filter((s) => data.frames[s.frames[0]].function === 'fsync').length, 2);
  assert.equal(data.skipped.callchainLines, 6);
});

test('perf report --sort srcline and --sort dso,sym,srcline: lines with their share', () => {
  for (const name of ['20-report.stdio.srcline.txt', '20-report.stdio.dso-sym-srcline.txt', '20-report.stdio.fields.txt']) {
    const text = read(name);
    const profile = parseProfileText(text, name);
    assert.equal(profile.format, 'perf-report', name);
    assert.deepEqual(profile.problems, [], name);
    const attribution = attributeSamples(profile.samples!, (file) => file.endsWith('demo.c'));
    const top = attribution.lines[0];
    assert.match(`${top.file}:${top.line}`, /demo\.c:22$/, name);
    // 864 samples of 1 ms: the rows add up to the printed overheads of the event count.
    assert.ok(Math.abs(totalMs(attribution.total) - (864 * percentSum(text)) / 100) < 1, `${name}: ${totalMs(attribution.total)}`);
  }
});

test('perf report -g: the callchain lines under each row are counted, the rows read', () => {
  const text = read('20-report.stdio.g.txt');
  const profile = parseProfileText(text, 'g');
  assert.deepEqual(profile.problems, []);
  assert.equal(profile.samples!.stacks.length, [...text.matchAll(/^\s+\d+\.\d+%\s{2}/gm)].length);
  assert.ok(profile.samples!.skipped.callchainLines > 10);
});

test('a report row before the event count: an error naming the line; later rows still read', () => {
  const text = '# Overhead  Command  Symbol\n    10.00%  demo  [.] main\n# Event count (approx.): 1000000000\n    20.00%  demo  [.] main\n';
  const profile = parseProfileText(text, 'early');
  assert.equal(profile.problems[0].line, 2);
  assert.equal(profile.samples!.stacks[0].ms, 200);
});

test('bperf script samples carry no class: I/O, sync or other from the stack', () => {
  assert.equal(guessBlockedClass(['__GI___fsync', 'io_heavy', 'main']), 'io');
  assert.equal(guessBlockedClass(['__futex_abstimed_wait_common', '___pthread_cond_wait', 'consumer']), 'sync');
  assert.equal(guessBlockedClass(['__GI___clock_nanosleep', 'main']), 'other');
  const profile = parseProfileText(read('12-script-weight-field.txt').replace(/task-clock:\s+0$/m, 'task-clock:               9'), 'weighted');
  const blocked = profile.samples!.stacks.filter((s) => s.cls !== 'onCpu');
  assert.equal(blocked.length, 1);
  assert.equal(attributeSamples(profile.samples!, workspaceFilter([])).total.other, 10);
});
