// perf.data read through the installed perf, on recordings made here of samples/blocking:
// PIE and non-PIE binaries (perf 6.1 prints file offsets, not addresses), the same top
// lines as perf's own `perf report --sort srcline`, a stripped binary, a binary rebuilt
// since the recording, a damaged perf.data and a missing perf.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readProfileFile } from '../../server/src/import';
import { readPerfData } from '../../server/src/import/perfData';
import { attributeSamples, totalMs, workspaceFilter } from '../../server/src/samples/attribution';
import { mulberry32 } from '../../server/src/causal/random';

const REPO = path.join(__dirname, '../../..');
const SAMPLE_DIR = path.join(REPO, 'samples/blocking');
const SOURCE = path.join(SAMPLE_DIR, 'blocking.c');
const perfWorks = spawnSync('perf', ['--version']).status === 0;
const skip = !perfWorks && 'perf is not installed';

let tmp: string;
const computeLine = fs.readFileSync(SOURCE, 'utf8').split('\n').findIndex((l) => l.includes('/* @compute */')) + 1;

function build(name: string, extra: string[] = []): string {
  const exe = path.join(tmp, name);
  const result = spawnSync('gcc', ['-g', '-O1', '-pthread', ...extra, '-o', exe, SOURCE], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return exe;
}

/** A short frame-pointer recording: 150 ms of compute, a little I/O, no sleep. */
function record(exe: string, name: string): string {
  const data = path.join(tmp, `${name}.data`);
  const result = spawnSync('perf', ['record', '-q', '-o', data, '-e', 'task-clock', '-c', '1000000', '-g', '--', exe, '150', '2', '0', '20', path.join(tmp, `${name}.io`)], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return data;
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-perfdata-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('PIE: the top line is the compute loop, as in perf report --no-children --sort srcline', { skip }, async () => {
  const data = record(build('pie'), 'pie');
  const profile = await readProfileFile(data);
  assert.equal(profile.format, 'perf-data');
  assert.deepEqual(profile.problems.filter((p) => p.severity === 'error'), []);
  const attribution = attributeSamples(profile.samples!, workspaceFilter([SAMPLE_DIR]));
  assert.equal(`${attribution.lines[0].file}:${attribution.lines[0].line}`, `${SOURCE}:${computeLine}`);
  const perfReport = spawnSync('perf', ['report', '-i', data, '--no-children', '--sort', 'srcline', '--stdio', '-q'], { encoding: 'utf8' });
  const perfTop = /^\s*[\d.]+%\s+(\S+)/m.exec(perfReport.stdout)![1];
  assert.equal(perfTop, `blocking.c:${computeLine}`);
  // Every sample is 1 ms of task-clock: the total is the number of samples perf counted.
  const count = Number(/# Samples: (\d+)/.exec(spawnSync('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', 'pid'], { encoding: 'utf8' }).stdout)![1]);
  assert.equal(totalMs(attribution.total), count);
});

test('non-PIE: perf 6.1 prints file offsets in callchains; they are converted to addresses', { skip }, async () => {
  const profile = await readProfileFile(record(build('nopie', ['-no-pie', '-fno-pie']), 'nopie'));
  const attribution = attributeSamples(profile.samples!, workspaceFilter([SAMPLE_DIR]));
  assert.equal(`${attribution.lines[0].file}:${attribution.lines[0].line}`, `${SOURCE}:${computeLine}`);
  assert.ok(attribution.functions.some((f) => f.name === 'main' || f.name === 'spin_cpu'));
});

test('a binary without line information: function+offset, no line attributed', { skip }, async () => {
  const exe = build('stripped');
  const data = record(exe, 'stripped');
  spawnSync('strip', ['--strip-debug', exe]);
  const profile = await readProfileFile(data);
  assert.ok(profile.problems.some((p) => p.severity === 'warning' && p.message.includes('no line information')), JSON.stringify(profile.problems));
  const attribution = attributeSamples(profile.samples!, workspaceFilter([SAMPLE_DIR]));
  assert.equal(attribution.lines.length, 0);
  const own = profile.samples!.frames.filter((f) => f.dso === exe);
  assert.ok(own.length > 0 && own.every((f) => /^\w+\+0x[0-9a-f]+$/.test(f.function)), JSON.stringify(own.slice(0, 3)));
});

test('a binary rebuilt since the recording: a warning, and nothing attributed to its lines', { skip }, async () => {
  const exe = build('rebuilt');
  const data = record(exe, 'rebuilt');
  build('rebuilt', ['-O0', '-DREBUILT']);
  const profile = await readProfileFile(data);
  const warning = profile.problems.find((p) => p.message.includes('not the binary that was recorded'));
  assert.ok(warning, JSON.stringify(profile.problems));
  assert.equal(warning.severity, 'warning');
  assert.equal(attributeSamples(profile.samples!, workspaceFilter([SAMPLE_DIR])).lines.length, 0);
});

test('a damaged perf.data: an error naming the file; never a throw', { skip }, async () => {
  const random = mulberry32(3);
  const damaged = path.join(tmp, 'damaged.data');
  const bytes = new Uint8Array(4096);
  bytes.set(new TextEncoder().encode('PERFILE2'));
  for (let i = 8; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  fs.writeFileSync(damaged, bytes);
  const profile = await readProfileFile(damaged);
  const error = profile.problems.find((p) => p.severity === 'error');
  assert.ok(error, JSON.stringify(profile.problems));
  assert.equal(error.file, damaged);
  assert.match(error.message, /perf script could not read/);
});

test('perf not installed: the message says what to install', async () => {
  const profile = await readPerfData('/tmp/whatever.data', { perf: path.join(os.tmpdir(), 'no-such-perf') });
  assert.equal(profile.problems.length, 1);
  assert.match(profile.problems[0].message, /needs perf, which is not installed \(Debian: apt-get install linux-perf\)/);
});
