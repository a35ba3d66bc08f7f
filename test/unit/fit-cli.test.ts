// `causal-lens fit` as a terminal runs it: the JSON of issue 6, the human table, bad rows named
// with the model still fitted, and usage errors.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fitRuns, predict } from '../../server/src/fit';
import { SCALING_FIXTURES, readTable } from './fit-data';

const CLI = path.join(__dirname, '../../server/src/cli/main.js');
const MATMUL = path.join(SCALING_FIXTURES, 'matmul-N.csv');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'fit', ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface FitJson {
  parameter: string;
  metric: string;
  model: string;
  terms: { term: string; coefficient: number; exponent: number | null; log: number | null }[];
  predictions: { x: number; y: number; low: number; high: number }[];
  components: { component: string | null; model: string; looError: number; predictions: { x: number; y: number }[] }[];
  skipped: number;
}

test('fit --json --predict X...: the model, its terms and a prediction with its band per X, per component too', () => {
  const { code, stdout, stderr } = run('--json', '--predict', '400', '--predict=600', MATMUL);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '');
  const json = JSON.parse(stdout) as FitJson;
  const expected = fitRuns(readTable(MATMUL).runs, { parameter: 'N' });
  assert.equal(json.model, expected.formula);
  assert.equal(json.parameter, 'N');
  assert.equal(json.metric, 'd1_misses');
  assert.deepEqual(json.predictions, predict(expected, [400, 600]));
  for (const p of json.predictions) assert.ok(p.low <= p.y && p.y <= p.high);
  assert.deepEqual(json.terms.map((t) => t.term), expected.terms.map((t) => t.label));
  assert.ok(json.terms.some((t) => t.term === 'N³' && t.exponent === 3 && t.log === 0 && t.coefficient > 0));
  assert.deepEqual(json.components.map((c) => c.component).sort(), ['checksum', 'init', 'main', 'multiply_rows', 'runtime']);
  const sum = json.components.reduce((s, c) => s + c.predictions[0].y, 0);
  assert.ok(Math.abs(sum - json.predictions[0].y) < 1e-6 * sum);
});

test('fit without --json prints the formula, each component and a table of predictions', () => {
  const { code, stdout } = run('--predict', '400', MATMUL);
  assert.equal(code, 0);
  const lines = stdout.split('\n');
  assert.equal(lines[0], `d1_misses(N) = ${fitRuns(readTable(MATMUL).runs, { parameter: 'N' }).formula}`);
  assert.match(stdout, /^ {2}multiply_rows: .*N³.*\(leave-one-out error /m);
  assert.match(stdout, /^N +predicted d1_misses +band$/m);
  assert.match(stdout, /^400 +[\d,]+ +[\d,]+ … [\d,]+$/m);
});

test('bad rows: named by file and line on stderr, exit 1, the model of the good rows still printed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-cli-'));
  const file = path.join(dir, 'runs.csv');
  fs.writeFileSync(file, 'p,time\n2,2.1\n4,2.8\nfour,3\n8,4.4\n16,8.4\n32,18\n64,40.4\n');
  const { code, stdout, stderr } = run('--json', '--predict', '128', file);
  assert.equal(code, 1);
  assert.equal(stderr, `${file}:4: error: x must be a positive finite number, found "four"\n`);
  const json = JSON.parse(stdout) as FitJson;
  assert.equal(json.skipped, 1);
  assert.equal(json.predictions.length, 1);
  fs.writeFileSync(file, 'p,time\n2,2.1\n2,2.2\n');
  const single = run(file);
  assert.equal(single.code, 1);
  assert.match(single.stderr, /two distinct x/);
  assert.doesNotMatch(single.stderr, /\n\s+at /, 'no stack trace');
  fs.rmSync(dir, { recursive: true });
});

test('usage errors exit 2; a missing file exits 1 with one line', () => {
  assert.equal(run().code, 2);
  assert.equal(run(MATMUL, MATMUL).code, 2);
  const bad = run('--predict', 'soon', MATMUL);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--predict needs a positive number, got "soon"/);
  assert.equal(run('--predict').code, 2);
  const missing = run('/nonexistent/runs.csv');
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr.trim().split('\n').length, 1);
});
