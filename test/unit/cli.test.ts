// The causal-lens command as a user runs it (bin/causal-lens.js → dist/cli.js): output shape,
// exit codes, and one-line errors without stack traces.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_CURVE_OPTIONS, computeCurves } from '../../server/src/causal/curves';
import { parseProfileText } from '../../server/src/import';
import { generateProfile } from '../../bench/generate-profile';
import { progressLine } from '../../server/src/cli/progressLine';

const REPO = path.join(__dirname, '../../..');
const UPSTREAM = path.join(REPO, 'test/fixtures/coz-upstream');
const FIXTURES = path.join(REPO, 'test/fixtures/coz');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(REPO, 'bin/causal-lens.js'), ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface JsonEntry {
  location: string;
  file: string | null;
  line: number | null;
  progressPoint: string;
  maxSpeedup: number;
  impact: number;
  points: { lineSpeedup: number; programSpeedup: number; low: number | null; high: number | null; experiments: number }[];
}

test('report --json on the seven upstream profiles: one entry per (line, point) with enough points, as computed by the server code', () => {
  const files = fs.readdirSync(UPSTREAM).filter((f) => f.endsWith('.coz')).map((f) => path.join(UPSTREAM, f));
  const { code, stdout } = run('report', '--json', ...files);
  assert.equal(code, 0);
  const report = JSON.parse(stdout) as { causal: JsonEntry[]; profiles: { file: string; experiments: number }[] };
  assert.equal(report.profiles.length, 7);
  const expected = files.flatMap((file) =>
    computeCurves(parseProfileText(fs.readFileSync(file, 'utf8'), file), DEFAULT_CURVE_OPTIONS).filter((c) => c.status.kind === 'curve'),
  );
  assert.equal(report.causal.length, expected.length);
  assert.ok(report.causal.length > 10);
  for (let i = 1; i < report.causal.length; i++) assert.ok(report.causal[i - 1].impact >= report.causal[i].impact, 'ranked by impact');
  for (const entry of report.causal) {
    const curve = expected.find((c) => c.selected === entry.location && c.progressPoint === entry.progressPoint)!;
    assert.ok(curve, entry.location);
    assert.equal(entry.impact, curve.impact);
    assert.equal(entry.maxSpeedup, curve.maxSpeedup);
    assert.deepEqual(entry.points.map((p) => p.programSpeedup), curve.points.map((p) => p.programSpeedup));
    assert.ok(entry.points.length >= 10);
    assert.ok(entry.points.every((p) => p.lineSpeedup >= 0 && p.lineSpeedup <= 1), 'fractions, not percent');
    if (entry.file !== null) assert.equal(`${entry.file}:${entry.line}`, entry.location);
  }
});

test('report --min-points lowers the bar, as COZ’s slider does', () => {
  const file = path.join(UPSTREAM, 'memcached.coz');
  const strict = JSON.parse(run('report', '--json', file).stdout).causal.length;
  const loose = JSON.parse(run('report', '--json', '--min-points', '1', file).stdout).causal.length;
  assert.equal(strict, 0);
  assert.equal(loose, 1);
});

test('the text report names lines by their shortest unique suffix', () => {
  const { code, stdout } = run('report', path.join(FIXTURES, 'coz-toy-2runs-15000iters.coz'));
  assert.equal(code, 0);
  const lines = stdout.trim().split('\n');
  assert.match(lines[0], /^location\s+progress point\s+impact \[95%\]\s+points\s+best supported claim$/);
  assert.equal(lines.length, 3);
  assert.match(lines[1], /^prog\.c:(15|30)\s+prog\.c:45\s+impact \d\.\d{3} \[/);
});

test('sampled time on no line is counted, and a --root that misses the sources says so', () => {
  const profile = path.join(REPO, 'test/fixtures/perf/06-script-no-callchain-and-srccode.txt');
  type Ms = { weightMs: number };
  const all = JSON.parse(run('report', '--json', profile).stdout) as { lines: Ms[]; sampled: Ms; outsideWorkspace: Ms };
  // Its leaf-only samples: some in the program's sources, some only in the kernel or libm.
  assert.ok(all.lines.length > 0 && all.outsideWorkspace.weightMs > 0);
  const onLines = all.lines.reduce((sum, line) => sum + line.weightMs, 0);
  assert.ok(Math.abs(onLines + all.outsideWorkspace.weightMs - all.sampled.weightMs) < 1e-6, `${onLines} + ${all.outsideWorkspace.weightMs} of ${all.sampled.weightMs}`);
  // Not above the working directory, where the profile's relative source paths resolve.
  const elsewhere = path.join(path.parse(REPO).root, 'causal-lens-no-such-root');
  const missed = JSON.parse(run('report', '--json', '--root', elsewhere, profile).stdout) as typeof all;
  assert.deepEqual(missed.lines, []);
  assert.equal(missed.outsideWorkspace.weightMs, all.sampled.weightMs);
  const text = run('report', '--root', elsewhere, profile);
  assert.equal(text.code, 0);
  assert.ok(text.stdout.includes(`${all.sampled.weightMs.toFixed(1)} of ${all.sampled.weightMs.toFixed(1)} ms sampled have no frame under --root ${elsewhere}`), text.stdout);
});

test('a missing file: exit 1 and one line naming it, no stack trace', () => {
  const { code, stdout, stderr } = run('report', '--json', '/nonexistent/profile.coz');
  assert.equal(code, 1);
  assert.equal(stderr.trim().split('\n').length, 1);
  assert.match(stderr, /\/nonexistent\/profile\.coz/);
  assert.doesNotMatch(stderr, /\n\s+at /);
  assert.deepEqual(JSON.parse(stdout).causal, []);
});

test('an invalid profile: exit 1, the problem with file and line, and what could be read is still printed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-cli-'));
  const broken = path.join(dir, 'broken.coz');
  const text = fs.readFileSync(path.join(FIXTURES, 'coz-toy-2runs-15000iters.coz'), 'utf8').split('\n');
  text.splice(2, 0, 'experiment\tselected=/x.c:1\tspeedup=fast\tduration=1');
  fs.writeFileSync(broken, text.join('\n'));
  try {
    const { code, stdout, stderr } = run('report', '--json', broken);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: error: `));
    assert.equal(JSON.parse(stdout).causal.length, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors exit 2 with the usage text', () => {
  for (const args of [['report'], ['report', '--min-points', 'x', 'a.coz'], ['report', '--bogus', 'a.coz'], ['frobnicate']]) {
    const { code, stderr } = run(...args);
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, /usage: causal-lens/);
  }
});

/** Runs `node argv` and closes its output after the first chunk, as `| head` does: its exit code and stderr. */
async function readFirstChunkOnly(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr };
}

test('a reader that stops early (| head): the command ends quietly, exit 0 and nothing on stderr', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-cli-pipe-'));
  const profile = path.join(dir, 'large.coz');
  // About 250 KB of JSON: more than a pipe holds, so writes are still pending when the reader leaves.
  generateProfile(profile, 4e6, 1);
  const { code, stderr } = await readFirstChunkOnly([path.join(REPO, 'bin/causal-lens.js'), 'report', '--json', profile]);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

test('a validation script run before the build says so in one line, naming what is missing', () => {
  // A copy of the scripts in a tree without out/: what a fresh clone is before `npx tsc -p .`.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-unbuilt-'));
  const scripts = path.join(dir, 'validation/pem');
  fs.mkdirSync(scripts, { recursive: true });
  for (const name of ['compare.mjs', 'closed-pipe.mjs']) fs.copyFileSync(path.join(REPO, 'validation/pem', name), path.join(scripts, name));
  const result = spawnSync(process.execPath, [path.join(scripts, 'compare.mjs'), dir], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(result.status, 2);
  assert.equal(result.stderr, `compare.mjs: ${path.join('out', 'server', 'src', 'cli', 'closedPipe.js')} is missing: build first (npx tsc -p . in ${dir})\n`);
});

test('a validation script whose reader stops early ends quietly too (compare.mjs over 4,000 runs)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-compare-pipe-'));
  // A line per run, about 90 KB in all: more than a pipe holds.
  const rows = JSON.stringify({ rows: [{ program: 'halo', from: '4/1', to: '4/2', targetComputeErrorPercent: 6, untracedTargetErrorPercent: -1 }] });
  for (let i = 0; i < 4000; i++) fs.writeFileSync(path.join(dir, `run-${String(i).padStart(4, '0')}.json`), rows);
  const { code, stderr } = await readFirstChunkOnly([path.join(REPO, 'validation/pem/compare.mjs'), dir]);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

test('a progress line redraws when its percentage changes, at most every 100 ms, and erases itself once it was drawn', () => {
  let written = '';
  let clock = 0;
  const line = progressLine('causal-lens whatif', (text) => (written += text), () => clock);
  line.done();
  assert.equal(written, '', 'nothing drawn, nothing to erase');
  line.update(0.004);
  clock += 50;
  line.update(0.5); // too soon after the last redraw
  clock += 100;
  line.update(0.509);
  clock += 150;
  line.update(0.505); // the percentage shown
  line.update(1.7); // past the end: 100%
  line.done();
  assert.equal(written, '\rcausal-lens whatif: 0%\rcausal-lens whatif: 50%\rcausal-lens whatif: 100%\r\x1b[K');
});

