// What the CLI does with inputs that cannot be used: a usage error or one line naming the file
// and the place, before anything runs, never a value silently replaced, dropped or absurd.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseFlags } from '../../server/src/cli/flags';
import { scalingFit } from '../../server/src/lsp/panelViews';
import { traceDirProblem } from '../../server/src/mpi/recordTrace';

const REPO = path.join(__dirname, '../../..');
const MATMUL = path.join(REPO, 'samples/scaling/matmul-N.scaling.csv');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(REPO, 'bin/causal-lens.js'), ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('flags: a single-valued flag given twice, a value for a switch, an empty or non-decimal number are usage errors', () => {
  const kinds = { json: 'boolean', cores: 'integer', out: 'string', placement: 'strings' } as const;
  assert.deepEqual(parseFlags(['--cores', '4', '--placement', '4/1', '--placement', '4/2', '--json', 'T'], kinds), { flags: { cores: 4, placement: ['4/1', '4/2'], json: true }, positional: ['T'] });
  assert.deepEqual(parseFlags(['--cores=12'], kinds).flags, { cores: 12 });
  const refused = (args: string[], message: RegExp) => assert.throws(() => parseFlags(args, kinds), message);
  refused(['--cores', '1', '--cores', '4'], /^Error: --cores is given twice$/);
  refused(['--json', '--json'], /--json is given twice/);
  refused(['--json=no'], /^Error: --json takes no value, got "no"$/);
  refused(['--cores', ''], /^Error: --cores needs a value$/);
  refused(['--out='], /--out needs a value/);
  for (const odd of ['0x4', '1e3', ' 7', '-1', '2.5', '99999999999999999999']) refused(['--cores', odd], new RegExp(`--cores needs a whole number, got "${odd.replace('.', '\\.')}"`));
});

test("a trace goes in a directory of its own: another directory's files are never deleted", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-out-'));
  try {
    assert.equal(traceDirProblem(path.join(dir, 'new')), undefined, 'a new directory');
    fs.mkdirSync(path.join(dir, 'old', 'traces'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'old', 'traces.otf2'), '');
    assert.equal(traceDirProblem(path.join(dir, 'old')), undefined, "a previous trace's directory");
    const home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, 'traces'), { recursive: true });
    fs.writeFileSync(path.join(home, 'thesis.tex'), 'keep me');
    fs.writeFileSync(path.join(home, 'traces', 'mine.txt'), 'keep me too');
    assert.equal(traceDirProblem(home), `${home} holds other files (thesis.tex): a trace needs a directory of its own, new or a previous trace's`);
    // The CLI refuses before it starts anything, and leaves the files as they were.
    const cli = run('trace', '--np', '2', '--out', home, '--', '/bin/true');
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /^causal-lens trace: .*home holds other files \(thesis\.tex\): a trace needs a directory of its own/);
    assert.equal(fs.readFileSync(path.join(home, 'traces', 'mine.txt'), 'utf8'), 'keep me too');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('counts that would start absurd runs, and measurement flags beside a preset, are usage errors before anything runs', () => {
  for (const [args, message] of [
    [['trace', '--np', '1000000000', '--', '/bin/true'], /--np needs 1 to 4096 ranks \(all started on this machine\), got 1000000000/],
    [['trace', '--flush-threshold', '0', '--', '/bin/true'], /--flush-threshold needs at least 1 byte/],
    [['calibrate', '--np', '5000'], /--np needs 2 to 4096 ranks/],
    [['calibrate', '--repeat', '1000'], /--repeat needs 1 to 100 measurements, got 1000/],
    [['calibrate', '--shared-core', '2,4,100000'], /--shared-core needs increasing whole numbers from 2 to 64/],
    [['calibrate', '--preset', 'gbe', '--repeat', '5', '--np', '4'], /--preset writes a model, measuring nothing: --np, --repeat would be ignored/],
    [['whatif', path.join(REPO, 'test/fixtures/otf2/stencil8_otf2/traces.otf2'), '--event-cost-ns', '1e15'], /--event-cost-ns needs "auto" or 0 to 1000000 nanoseconds, got "1e15"/],
  ] as const) {
    const cli = run(...args);
    assert.equal(cli.code, 2, `${args.join(' ')}: ${cli.stderr}`);
    assert.match(cli.stderr, message);
  }
});

test('fit: no prediction where the model overflows, said; a directory is named as one', async () => {
  const cli = run('fit', MATMUL, '--predict', '1e308', '--predict', '1024');
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /^causal-lens fit: no prediction at x = 1e\+308: .*N³.* \(or its band\) is beyond a finite number there\n$/);
  assert.match(cli.stdout, /^1024 +\d/m, 'the other prediction is printed');
  assert.doesNotMatch(cli.stdout, /NaN|Infinity|∞/);
  const json = JSON.parse(run('fit', '--json', MATMUL, '--predict', '1e308', '--predict', '1024').stdout) as { predictions: { x: number }[]; noPredictionAt: number[] };
  assert.deepEqual([json.predictions.map((p) => p.x), json.noPredictionAt], [[1024], [1e308]]);
  const dir = run('fit', os.tmpdir());
  assert.equal(dir.code, 1);
  assert.equal(dir.stderr, `causal-lens fit: cannot read run table ${os.tmpdir()}: it is a directory\n`);
  // The panel's fit: the same problem listed, and nothing but numbers to draw.
  const panel = await scalingFit({ csv: MATMUL, predictAt: [1e308, 1024] });
  assert.ok(panel.ok, panel.ok ? '' : panel.message);
  assert.deepEqual(panel.predictions.map((p) => p.x), [1024]);
  assert.ok(panel.problems.some((p) => p.startsWith('no prediction at x = 1e+308: ')), panel.problems.join('\n'));
  assert.ok(panel.curve.length > 0 && panel.curve.every((p) => Number.isFinite(p.y) && Number.isFinite(p.low) && Number.isFinite(p.high)));
});

test("a table or map that is not JSON is refused on one printable line, whatever the file's bytes", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-json-'));
  try {
    const trace = path.join(REPO, 'test/fixtures/otf2/stencil8_otf2/traces.otf2');
    const notJson = path.join(dir, 'comm-table.json');
    fs.writeFileSync(notJson, '{\n"schema": \u0001\u0002 line2\nline3 {\n');
    const cli = run('whatif', trace, '--network', notJson);
    assert.equal(cli.code, 1);
    assert.equal(cli.stderr.split('\n').filter(Boolean).length, 1, cli.stderr);
    assert.match(cli.stderr, new RegExp(`^causal-lens whatif: ${notJson.replace(/[.]/g, '\\.')}: not JSON \\(`));
    assert.doesNotMatch(cli.stderr, /[\u0000-\u0009\u000b-\u001f]/);
    const map = path.join(dir, 'map.json');
    fs.writeFileSync(map, '[0, 0,\n\u0007 1\n');
    const mapped = run('whatif', trace, '--map', map);
    assert.equal(mapped.code, 1);
    assert.equal(mapped.stderr.split('\n').filter(Boolean).length, 1, mapped.stderr);
    assert.match(mapped.stderr, /map\.json: not JSON \(/);
    assert.doesNotMatch(mapped.stderr, /[\u0000-\u0009\u000b-\u001f]/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
