// The run-table importer (server/src/import/scalingCsv.ts) on the committed cachegrind tables and
// on every rule of its format, bad rows included.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseScalingCsv, readScalingCsv } from '../../server/src/import/scalingCsv';
import { SCALING_FIXTURES } from './fit-data';

test('the committed cachegrind tables read without a problem: parameter, metric, components, one row per line', async () => {
  const files = fs.readdirSync(SCALING_FIXTURES).filter((f) => /^[a-z]+-[NP](\.large)?\.csv$/.test(f));
  assert.equal(files.length, 24);
  for (const file of files) {
    const table = await readScalingCsv(path.join(SCALING_FIXTURES, file));
    assert.deepEqual(table.problems, [], file);
    assert.equal(table.skipped, 0);
    assert.equal(table.parameter, file.split('-')[1][0]);
    assert.equal(table.metric, 'd1_misses');
    const lines = fs.readFileSync(path.join(SCALING_FIXTURES, file), 'utf8').trimEnd().split('\n');
    assert.equal(table.runs.length, lines.length - 1, file);
    for (const run of table.runs) {
      assert.ok(Number.isInteger(run.y) && run.y >= 0 && run.x > 0);
      assert.equal(lines[run.line - 1], `${run.x},${run.y},${run.component}`);
    }
    assert.ok(new Set(table.runs.map((r) => r.component)).has('runtime'));
  }
});

test('header, comments, blank lines, CRLF, a BOM, quotes and repetitions', () => {
  const text = '\ufeff# measured on a laptop\r\nN,seconds,component\r\n\r\n  # indented comment\n1e3, 2.5, "solve, inner"\n1000,2.7,"say ""hi"""\n2000,-0.5,\n2000,4\n';
  const table = parseScalingCsv(text, 'runs.csv');
  assert.deepEqual(table.problems, []);
  assert.equal(table.parameter, 'N');
  assert.equal(table.metric, 'seconds');
  assert.deepEqual(table.runs, [
    { x: 1000, y: 2.5, component: 'solve, inner', line: 5 },
    { x: 1000, y: 2.7, component: 'say "hi"', line: 6 },
    { x: 2000, y: -0.5, line: 7 },
    { x: 2000, y: 4, line: 8 },
  ]);
});

test('without a header, x and y are called x and y', () => {
  const table = parseScalingCsv('2,10\n4,20', 'bare.csv');
  assert.equal(table.parameter, 'x');
  assert.equal(table.metric, 'y');
  assert.equal(table.runs.length, 2);
});

test('each bad row is named by file and line, skipped and counted; the good rows are kept', () => {
  const text = ['P,time', '2,1.0', '0,1.0', '-4,1', '8,abc', '0x10,1', '16,Infinity', '32,NaN', '64,1,a,b', '"128,1', '1.000.5,2', '256,2.5', '3', ''].join('\n');
  const table = parseScalingCsv(text, 'bad.csv');
  assert.deepEqual(table.runs.map((r) => [r.x, r.line]), [[2, 2], [256, 12]]);
  assert.equal(table.skipped, 10);
  assert.deepEqual(table.problems.map((p) => p.line), [3, 4, 5, 6, 7, 8, 9, 10, 11, 13]);
  for (const p of table.problems) {
    assert.equal(p.file, 'bad.csv');
    assert.equal(p.severity, 'error');
  }
  assert.match(table.problems[0].message, /x must be a positive finite number, found "0"/);
  assert.match(table.problems[2].message, /y must be a finite number, found "abc"/);
  assert.match(table.problems[6].message, /found 4 fields/);
  assert.match(table.problems[7].message, /quoted field is not closed/);
});

test('a flood of bad rows lists 100 and counts the rest; an empty table says so', () => {
  const text = 'x,y\n' + Array.from({ length: 250 }, (_, i) => `${i + 1},oops`).join('\n') + '\n5,5\n';
  const table = parseScalingCsv(text, 'flood.csv');
  assert.equal(table.skipped, 250);
  assert.equal(table.problems.length, 101);
  assert.match(table.problems[100].message, /150 more bad rows not listed \(250 skipped in all\)/);
  assert.deepEqual(table.runs, [{ x: 5, y: 5, line: 252 }]);
  const empty = parseScalingCsv('# nothing\n', 'empty.csv');
  assert.equal(empty.runs.length, 0);
  assert.match(empty.problems[0].message, /no runs/);
});

test('a first row whose x is too large for a number is a bad row, not a header', () => {
  const table = parseScalingCsv('1e400,5\n2,4\n4,8\n', 'big.csv');
  assert.equal(table.parameter, 'x', 'no header taken from it');
  assert.deepEqual(table.problems.map((p) => [p.line, p.message]), [[1, 'x must be a positive finite number, found "1e400"']]);
  assert.deepEqual(table.runs.map((r) => r.x), [2, 4]);
});
