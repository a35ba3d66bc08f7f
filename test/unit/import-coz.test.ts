// Fixture tests for the COZ/BCOZ importer (server/src/import/coz.ts, index.ts).
//
// Real profiles:
//  - test/fixtures/coz-upstream/*.coz: the seven profiles of the COZ paper (G0, 2014-15),
//    from plasma-umass/coz viewer/profiles (LICENSE-coz.md).
//  - test/fixtures/coz/coz-toy-*.coz: COZ 0.2.2 (G1) runs on this project's build machine;
//    coz-prog.c / coz-prog2.c are the programs profiled.
// Hand-written from the format description (coz.md §1, §3.3, §7; COZ/BCOZ/Omnitrace
// writers), one per generation or quirk: g2-underscore.jsonl, g3-hyphen.jsonl,
// bcoz-blocked.coz, omnitrace-function.coz, underflow.coz, partial-tail.coz (no final
// newline), line0.coz, appended-runs.coz, latency.coz, mixed.coz, malformed.coz,
// utf8-path.coz.
//
// The expected numbers for the real profiles were computed independently of this
// importer, with awk over the TSV (`awk -F'\t'`):
//   runs        = number of `startup` lines (every real file starts with one)
//   experiments = `experiment` lines whose duration has fewer than 19 digits, or 19
//                 digits sorting below "9223372036854775808", and whose selected
//                 lacks "/coz.h:"; underflow = the other `experiment` lines
//   zeroSpeedup = kept experiments with speedup=0.00; points = point lines after a kept one
//   totalSamples = per run, the counts of the last run of consecutive `samples` lines, summed
//   runtimeSum  = per run, the last `runtime` time, summed; runsWithoutRuntime likewise
//   firstUnderflowLine = FNR of the first experiment with a 19+ digit duration

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { IMPORTERS, ProfileReader, parseProfileText, readProfileFile } from '../../server/src/import';
import { parseDecimal, parseTarget } from '../../server/src/import/coz';
import { Profile, totalSamples } from '../../server/src/model/profile';

const FIXTURES = path.join(__dirname, '../../../test/fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);

const pointCount = (p: Profile) => p.experiments.reduce((n, e) => n + e.points.length, 0);
const sampleSum = (p: Profile) => [...totalSamples(p).values()].reduce((a, b) => a + b, 0);
const sampleObjects = (p: Profile) => p.runs.map((run) => Object.fromEntries(run.samples));

interface RealExpectation {
  file: string;
  runs: number;
  experiments: number;
  zeroSpeedup: number;
  underflow: number;
  points: number;
  totalSamples: number;
  runtimeSum: number;
  runsWithoutRuntime: number;
  firstUnderflowLine?: number;
}

// Numbers from the awk pass described at the top.
const REAL: RealExpectation[] = [
  { file: 'coz/coz-toy-2runs-15000iters.coz', runs: 2, experiments: 460, zeroSpeedup: 124, underflow: 0, points: 460, totalSamples: 73680, runtimeSum: 236757613544, runsWithoutRuntime: 0 },
  { file: 'coz/coz-toy-end-to-end.coz', runs: 1, experiments: 1, zeroSpeedup: 0, underflow: 0, points: 1, totalSamples: 2613, runtimeSum: 7728362359, runsWithoutRuntime: 0 },
  { file: 'coz/coz-toy-fixedline-prog.c30-speedup50.coz', runs: 1, experiments: 57, zeroSpeedup: 0, underflow: 0, points: 57, totalSamples: 9544, runtimeSum: 29281770449, runsWithoutRuntime: 0 },
  { file: 'coz/coz-toy-run3-3000iters.coz', runs: 1, experiments: 27, zeroSpeedup: 8, underflow: 0, points: 27, totalSamples: 7069, runtimeSum: 13817279741, runsWithoutRuntime: 0 },
  { file: 'coz/coz-toy2-3runs-coarse.coz', runs: 3, experiments: 73, zeroSpeedup: 19, underflow: 0, points: 73, totalSamples: 71662, runtimeSum: 143377814256, runsWithoutRuntime: 0 },
  { file: 'coz-upstream/blackscholes.coz', runs: 50, experiments: 2555, zeroSpeedup: 728, underflow: 0, points: 2555, totalSamples: 5251104, runtimeSum: 1709882385362, runsWithoutRuntime: 0 },
  { file: 'coz-upstream/dedup.coz', runs: 12, experiments: 1717, zeroSpeedup: 506, underflow: 0, points: 1717, totalSamples: 61581, runtimeSum: 175121521736, runsWithoutRuntime: 1 },
  { file: 'coz-upstream/ferret.coz', runs: 1, experiments: 330, zeroSpeedup: 101, underflow: 5, points: 330, totalSamples: 936824, runtimeSum: 58183440598, runsWithoutRuntime: 0, firstUnderflowLine: 160 },
  { file: 'coz-upstream/fluidanimate.coz', runs: 50, experiments: 6874, zeroSpeedup: 1928, underflow: 9, points: 6874, totalSamples: 2290062, runtimeSum: 3532203700627, runsWithoutRuntime: 0, firstUnderflowLine: 391 },
  { file: 'coz-upstream/memcached.coz', runs: 6, experiments: 1092, zeroSpeedup: 329, underflow: 17, points: 1092, totalSamples: 157648, runtimeSum: 1518307069675, runsWithoutRuntime: 0, firstUnderflowLine: 502 },
  { file: 'coz-upstream/sqlite.coz', runs: 40, experiments: 1226, zeroSpeedup: 352, underflow: 7, points: 1226, totalSamples: 207763, runtimeSum: 2160419931913, runsWithoutRuntime: 5, firstUnderflowLine: 6774 },
  { file: 'coz-upstream/swaptions.coz', runs: 42, experiments: 303, zeroSpeedup: 81, underflow: 0, points: 303, totalSamples: 27693755, runtimeSum: 531643568121, runsWithoutRuntime: 0 },
];

for (const expected of REAL) {
  test(`real profile ${expected.file}: counts match an independent awk pass`, async () => {
    const profile = await readProfileFile(fixture(expected.file));
    assert.equal(profile.format, 'coz');
    assert.equal(profile.source, fixture(expected.file));
    assert.equal(profile.runs.length, expected.runs);
    assert.equal(profile.experiments.length, expected.experiments);
    assert.equal(profile.experiments.filter((e) => e.speedup === 0).length, expected.zeroSpeedup);
    assert.equal(pointCount(profile), expected.points);
    assert.equal(sampleSum(profile), expected.totalSamples);
    const runtimes = profile.runs.map((run) => run.runtimeNs);
    assert.equal(runtimes.filter((t) => t === undefined).length, expected.runsWithoutRuntime);
    assert.equal(runtimes.reduce<number>((sum, t) => sum + (t ?? 0), 0), expected.runtimeSum);
    assert.deepEqual(profile.skipped, { durationUnderflow: expected.underflow, orphanPoints: 0, malformed: 0, cozHeader: 0, truncatedTail: 0 });
    if (expected.underflow === 0) {
      assert.deepEqual(profile.problems, []);
    } else {
      // One summary warning, not one per experiment.
      assert.equal(profile.problems.length, 1);
      const [warning] = profile.problems;
      assert.equal(warning.severity, 'warning');
      assert.equal(warning.line, expected.firstUnderflowLine);
      assert.match(warning.message, new RegExp(`^skipped ${expected.underflow} experiments and the ${expected.underflow} point records after them`));
    }
    for (const e of profile.experiments) {
      assert.equal(e.target.kind, 'line');
      assert.ok(e.durationNs < 2 ** 63);
    }
  });
}

test('G1: first experiment of the real 0.2.2 run, field by field', async () => {
  const profile = await readProfileFile(fixture('coz/coz-toy-end-to-end.coz'));
  assert.deepEqual(profile.experiments, [
    {
      selected: '/home/dev/prog/prog.c:15',
      target: { kind: 'line', path: '/home/dev/prog/prog.c', line: 15 },
      speedup: 0.55,
      durationNs: 7597573093,
      selectedSamples: 642,
      points: [{ kind: 'throughput', name: 'end-to-end', delta: 1 }],
      run: 0,
      recordLine: 2,
    },
  ]);
  assert.equal(profile.runs[0].startTimeNs, 1795315538812038838);
  assert.equal(profile.runs[0].runtimeNs, 7728362359);
  assert.deepEqual(sampleObjects(profile), [{ '/home/dev/prog/prog.c:15': 643, '/home/dev/prog/prog.c:30': 1969, '/home/dev/prog/prog.c:45': 1 }]);
});

test('G1: experiments keep their run index and record line across appended runs', async () => {
  const profile = await readProfileFile(fixture('coz/coz-toy2-3runs-coarse.coz'));
  // `grep -n startup` gives lines 1, 53 and 109, each followed by an experiment:
  const firstOfRun = [1, 53, 109].map((startupLine) => profile.experiments.find((e) => e.recordLine === startupLine + 1));
  assert.deepEqual(firstOfRun.map((e) => e?.run), [0, 1, 2]);
  // Runs are in file order, so run indexes never decrease.
  assert.ok(profile.experiments.every((e, i, all) => i === 0 || all[i - 1].run <= e.run));
});

test('G0: progress-point records are throughput points; shutdown is ignored', async () => {
  const profile = await readProfileFile(fixture('coz-upstream/sqlite.coz'));
  const first = profile.experiments[0];
  assert.equal(first.selected, 'sqlite3.c:123263');
  assert.deepEqual(first.target, { kind: 'line', path: 'sqlite3.c', line: 123263 });
  assert.deepEqual(first.points, [{ kind: 'throughput', name: 'main.c:73', delta: 2034 }]);
});

test('G2: JSON Lines with underscore point types and selected_samples', async () => {
  const profile = await readProfileFile(fixture('coz/g2-underscore.jsonl'));
  assert.deepEqual(profile.problems, []);
  assert.equal(profile.experiments.length, 2);
  assert.deepEqual(profile.experiments[1], {
    selected: '/src/app.c:30',
    target: { kind: 'line', path: '/src/app.c', line: 30 },
    speedup: 0.25,
    durationNs: 450000000,
    selectedSamples: 20,
    points: [
      { kind: 'throughput', name: 'app.c:45', delta: 110 },
      { kind: 'latency', name: 'txn', arrivals: 55, departures: 55, difference: 0 },
    ],
    run: 0,
    recordLine: 5,
  });
  assert.equal(profile.runs[0].runtimeNs, 1000000000);
  assert.deepEqual(sampleObjects(profile), [{ '/src/app.c:15': 120, '/src/app.c:30': 300 }]);
});

test('G3: JSON Lines with hyphens; escapes, unknown keys, coz.h and JSON based_* fields', async () => {
  const profile = await readProfileFile(fixture('coz/g3-hyphen.jsonl'));
  assert.deepEqual(profile.experiments.map((e) => e.selected), ['/src/dir with space/"q".c:7', '/src/b.c:3']);
  assert.deepEqual(profile.experiments[0].points, [
    { kind: 'throughput', name: 'end-to-end', delta: 9 },
    { kind: 'latency', name: 'txn', arrivals: 7, departures: 6, difference: 1 },
  ]);
  assert.deepEqual(profile.experiments[1].target, { kind: 'line', path: '/src/b.c', line: 3, based: { what: 'IO', speedup: 0.25 } });
  assert.equal(profile.skipped.cozHeader, 1);
  assert.deepEqual(
    profile.problems.map((p) => [p.line, p.severity]),
    [[5, 'warning']],
  );
  assert.match(profile.problems[0].message, /1 experiment and the 1 point record after it on coz\.h/);
});

test('BCOZ: blocked-class targets, relational suffixes and delay=', async () => {
  const profile = await readProfileFile(fixture('coz/bcoz-blocked.coz'));
  assert.deepEqual(profile.problems, []);
  assert.deepEqual(
    profile.experiments.map((e) => e.target),
    [
      { kind: 'blocked', blockedClass: 'IO' },
      { kind: 'blocked', blockedClass: 'LOCK' },
      { kind: 'blocked', blockedClass: 'SCHEDULING' },
      { kind: 'blocked', blockedClass: 'BLOCKED' },
      { kind: 'blocked', blockedClass: 'OFF_CPU' },
      { kind: 'blocked', blockedClass: 'ON_CPU' },
      // BCOZ prints the based speedup as a fraction before the `%`...
      { kind: 'line', path: '/home/u/test_io_coz.c', line: 55, based: { what: 'IO', speedup: 0.25 } },
      { kind: 'line', path: '/home/u/test_io_coz.c', line: 47, based: { what: 'c_heavy', speedup: 0.5 } },
      { kind: 'blocked', blockedClass: 'IO', based: { what: 'LOCK', speedup: 0 } },
      // ...the COZ fork that merged BCOZ prints real percent.
      { kind: 'line', path: '/home/u/test_io_coz.c', line: 55, based: { what: 'OFF_CPU', speedup: 0.25 } },
    ],
  );
  // `selected` stays exactly as written: it is the grouping key.
  assert.equal(profile.experiments[6].selected, '/home/u/test_io_coz.c:55(IO,0.25%|)');
  assert.deepEqual(profile.experiments.map((e) => e.delayNs), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => n * 1000000));
  assert.deepEqual(profile.experiments.map((e) => e.speedup), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0]);
});

test('Omnitrace: function-mode targets, blank lines between appended runs', async () => {
  const profile = await readProfileFile(fixture('coz/omnitrace-function.coz'));
  assert.deepEqual(profile.problems, []);
  assert.deepEqual(
    profile.experiments.map((e) => [e.target, e.run, e.speedup]),
    [
      [{ kind: 'function', name: 'compute(int, double)' }, 0, 0.1],
      [{ kind: 'function', name: 'ns::Solver::step()' }, 0, 0],
      [{ kind: 'line', path: '/src/solver.cpp', line: 42 }, 1, 0.35],
    ],
  );
  assert.deepEqual(sampleObjects(profile), [{ 'compute(int, double):/src/solver.cpp:42': 17 }, {}]);
});

test('parseTarget: locations, classes, suffixes and functions', () => {
  assert.deepEqual(parseTarget('C:\\src\\a.c:12'), { kind: 'line', path: 'C:\\src\\a.c', line: 12 });
  assert.deepEqual(parseTarget('IO'), { kind: 'blocked', blockedClass: 'IO' });
  assert.deepEqual(parseTarget('io'), { kind: 'function', name: 'io' });
  assert.deepEqual(parseTarget('std::vector<int>::push_back(int const&)'), { kind: 'function', name: 'std::vector<int>::push_back(int const&)' });
  // Not a well-formed suffix: taken as written.
  assert.deepEqual(parseTarget('a.c:5(IO,x%|)'), { kind: 'function', name: 'a.c:5(IO,x%|)' });
  assert.deepEqual(parseTarget('(IO,0.25%|)'), { kind: 'function', name: '(IO,0.25%|)' });
});

test('duration underflow: >= 2^63 (decided on the digits) and negative are dropped with their points', async () => {
  const profile = await readProfileFile(fixture('coz/underflow.coz'));
  // Kept: 500000000 (line 2), 2^63 - 1 (line 6, absurd but not an underflow), 12345678901234567 (line 12).
  assert.deepEqual(profile.experiments.map((e) => e.recordLine), [2, 6, 12]);
  assert.deepEqual(profile.experiments.map((e) => e.points[0].kind === 'throughput' && e.points[0].delta), [10, 12, 15]);
  assert.equal(profile.skipped.durationUnderflow, 3);
  assert.equal(profile.problems.length, 1);
  assert.equal(profile.problems[0].line, 4);
  assert.match(profile.problems[0].message, /^skipped 3 experiments and the 3 point records after them: duration of 2\^63 ns or more, or negative/);
});

test('partial last line: skipped and reported, everything before it kept', async () => {
  const profile = await readProfileFile(fixture('coz/partial-tail.coz'));
  assert.equal(profile.experiments.length, 1);
  assert.deepEqual(profile.skipped, { durationUnderflow: 0, orphanPoints: 0, malformed: 0, cozHeader: 0, truncatedTail: 1 });
  assert.deepEqual(profile.problems, [
    { file: fixture('coz/partial-tail.coz'), line: 4, severity: 'warning', message: 'partial last line (COZ may still be writing); skipped' },
  ]);
});

test('a complete last line without a newline is kept', () => {
  const text = 'startup\ttime=1\nexperiment\tselected=/a.c:1\tspeedup=0.00\tduration=5\tselected-samples=1\nthroughput-point\tname=p\tdelta=7';
  const profile = parseProfileText(text, 'mem');
  assert.deepEqual(profile.experiments[0].points, [{ kind: 'throughput', name: 'p', delta: 7 }]);
  assert.equal(profile.skipped.truncatedTail, 0);
  assert.deepEqual(profile.problems, []);
});

test('line 0 is kept as a line target', async () => {
  const profile = await readProfileFile(fixture('coz/line0.coz'));
  assert.deepEqual(profile.experiments[0].target, { kind: 'line', path: '/src/gen.c', line: 0 });
  assert.deepEqual(sampleObjects(profile), [{ '/src/gen.c:0': 12 }]);
});

test('appended runs: implicit run 0, last runtime per run, last samples block per run, orphan points', async () => {
  const profile = await readProfileFile(fixture('coz/appended-runs.coz'));
  assert.equal(profile.runs.length, 2);
  assert.equal(profile.runs[0].startTimeNs, undefined);
  assert.equal(profile.runs[0].runtimeNs, 1500000000);
  assert.equal(profile.runs[1].runtimeNs, 800000000);
  // Cumulative blocks: the last block of each run, never their sum.
  assert.deepEqual(sampleObjects(profile), [{ '/src/a.c:1': 10, '/src/a.c:2': 12, '/src/a.c:3': 1 }, { '/src/a.c:1': 20 }]);
  assert.deepEqual(Object.fromEntries(totalSamples(profile)), { '/src/a.c:1': 30, '/src/a.c:2': 12, '/src/a.c:3': 1 });
  assert.deepEqual(profile.experiments.map((e) => [e.recordLine, e.run]), [[1, 0], [6, 0], [17, 1]]);
  assert.equal(profile.skipped.orphanPoints, 1);
  assert.deepEqual(profile.problems.map((p) => [p.line, p.severity]), [[16, 'warning']]);
});

test('latency points (TSV) are kept next to throughput points', async () => {
  const profile = await readProfileFile(fixture('coz/latency.coz'));
  assert.deepEqual(profile.experiments[1].points, [
    { kind: 'throughput', name: 'q.c:50', delta: 150 },
    { kind: 'latency', name: 'request', arrivals: 90, departures: 91, difference: 2 },
  ]);
});

test('TSV and JSON lines mixed in one file', async () => {
  const profile = await readProfileFile(fixture('coz/mixed.coz'));
  assert.deepEqual(profile.problems, []);
  assert.deepEqual(
    profile.experiments.map((e) => [e.selected, e.speedup, e.points]),
    [
      ['/src/m.c:1', 0.5, [{ kind: 'throughput', name: 'm.c:9', delta: 20 }]],
      ['/src/m.c:2', 0, [{ kind: 'throughput', name: 'm.c:9', delta: 25 }]],
    ],
  );
});

test('malformed lines: an error each (file, line, what was expected); unknown types summarised', async () => {
  const file = fixture('coz/malformed.coz');
  const profile = await readProfileFile(file);
  // Only the experiment on line 5 (with the valid point on line 7) survives.
  assert.deepEqual(profile.experiments.map((e) => [e.recordLine, e.points]), [[5, [{ kind: 'throughput', name: 'a.c:9', delta: 12 }]]]);
  // 6 unreadable lines + 3 records of unknown types.
  assert.equal(profile.skipped.malformed, 9);
  assert.ok(profile.problems.every((p) => p.file === file));
  assert.deepEqual(
    profile.problems.map((p) => [p.line, p.severity]),
    [[2, 'error'], [4, 'error'], [6, 'error'], [11, 'error'], [12, 'error'], [13, 'error'], [3, 'warning'], [8, 'warning'], [10, 'warning']],
  );
  const byLine = new Map(profile.problems.map((p) => [p.line, p.message]));
  assert.match(byLine.get(2)!, /`speedup=fast`; expected speedup=<fraction 0\.\.1>/);
  assert.match(byLine.get(4)!, /no `duration`; expected duration=<ns>/);
  assert.match(byLine.get(6)!, /`delta=NaN`; expected delta=<visits>/);
  assert.match(byLine.get(13)!, /`speedup=1\.50`/);
  assert.match(byLine.get(8)!, /^skipped 2 records of unknown type `phase-marker`; first at line 8$/);
  assert.match(byLine.get(10)!, /^skipped 1 record of unknown type `checkpoint`/);
  assert.match(byLine.get(3)!, /^skipped 1 point record after unreadable experiment records/);
});

test('problems are capped per file, with one summary of the rest', () => {
  const lines = ['startup\ttime=1'];
  for (let i = 0; i < 1000; i++) lines.push('experiment\tselected=/a.c:1\tspeedup=x\tduration=1\tselected-samples=1');
  const profile = parseProfileText(lines.join('\n') + '\n', 'big.coz');
  assert.equal(profile.skipped.malformed, 1000);
  const errors = profile.problems.filter((p) => p.severity === 'error');
  assert.equal(errors.length, 101);
  assert.equal(errors[100].message, '900 more problems not listed (first at line 102)');
  assert.equal(errors[100].line, 102);
});

test('non-ASCII paths survive any chunk boundary; chunked reads equal whole-text parses', async () => {
  const names = fs.readdirSync(path.join(FIXTURES, 'coz')).filter((n) => /\.(coz|jsonl)$/.test(n));
  assert.ok(names.length >= 15);
  for (const name of names) {
    const file = fixture(`coz/${name}`);
    const whole = parseProfileText(fs.readFileSync(file, 'utf8'), file);
    for (const chunkBytes of [7, 4096]) {
      assert.deepEqual(await readProfileFile(file, { chunkBytes }), whole, `${name} read in ${chunkBytes}-byte chunks`);
    }
  }
  // Every way of cutting the 2- and 3-byte characters of this one.
  for (let chunkBytes = 1; chunkBytes <= 8; chunkBytes++) {
    const utf8 = await readProfileFile(fixture('coz/utf8-path.coz'), { chunkBytes });
    assert.deepEqual(utf8.experiments[0].target, { kind: 'line', path: '/home/dévé/プロ/main.c', line: 12 });
    assert.equal(utf8.experiments[0].points[0].name, 'プロ.c:40');
    assert.deepEqual(Object.keys(sampleObjects(utf8)[0]), ['/home/dévé/プロ/main.c:12']);
  }
});

test('ProfileReader: text split anywhere gives the same profile', () => {
  const file = fixture('coz/coz-toy-run3-3000iters.coz');
  const text = fs.readFileSync(file, 'utf8');
  const whole = parseProfileText(text, file);
  for (const step of [1, 2, 3, 13, 100, 999]) {
    const reader = new ProfileReader(file);
    for (let i = 0; i < text.length; i += step) reader.push(text.slice(i, i + step));
    assert.deepEqual(reader.end(), whole, `pieces of ${step}`);
  }
});

test('CRLF line ends and a byte order mark are tolerated', () => {
  const text = '\ufeffstartup\ttime=1\r\nexperiment\tselected=/a.c:1\tspeedup=0.00\tduration=5\tselected-samples=1\r\nthroughput-point\tname=p\tdelta=7\r\n';
  const profile = parseProfileText(text, 'crlf.coz');
  assert.deepEqual(profile.problems, []);
  assert.equal(profile.runs[0].startTimeNs, 1);
  assert.deepEqual(profile.experiments[0].points, [{ kind: 'throughput', name: 'p', delta: 7 }]);
});

test('JCoz experiments without selected-samples are kept', () => {
  const text = 'experiment\tselected=Foo.java:12\tspeedup=0.35\tduration=100000000\nprogress-point\tname=end-to-end\ttype=source\tdelta=3\n';
  const profile = parseProfileText(text, 'jcoz.coz');
  assert.deepEqual(profile.problems, []);
  assert.equal(profile.experiments[0].selectedSamples, 0);
  assert.equal(profile.runs.length, 1);
});

test('a profile with no experiments gets one warning saying why that happens', () => {
  const profile = parseProfileText('startup\ttime=1\nruntime\ttime=16800000000\n', 'empty-run.coz');
  assert.equal(profile.runs.length, 1);
  assert.equal(profile.problems.length, 1);
  assert.equal(profile.problems[0].severity, 'warning');
  assert.match(profile.problems[0].message, /^no experiments in this profile/);
});

test('parseDecimal: what COZ writes, exactly as Number() would read it', () => {
  for (const s of ['0', '0.00', '0.05', '0.80', '1.00', '481720153', '-5', '1795315271503947298', '18446744073705875774', '1e3', '.5']) {
    assert.equal(parseDecimal(s, 0, s.length), Number(s), s);
  }
  for (const s of ['', '-', '.', 'NaN', 'inf', '0x10', '1.2.3', ' 1', '1 ']) assert.ok(Number.isNaN(parseDecimal(s, 0, s.length)), s);
});

test('sniffer table: COZ files by content; anything else is one error at line 1, not a throw', async () => {
  assert.deepEqual(IMPORTERS.map((i) => i.name), ['coz', 'perf-report', 'perf-script'], 'COZ is sniffed first');
  for (const first of ['startup\ttime=1', 'experiment\tselected=a.c:1', 'runtime\ttime=3', '{"type":"startup","time":1}', '{"type":"throughput_point","name":"x","delta":1}']) {
    assert.ok(IMPORTERS[0].sniff([first]), first);
  }
  assert.ok(!IMPORTERS[0].sniff(['prog 1234 [000] 12.5: 1000000 task-clock:']));

  const source = fixture('coz/coz-prog.c');
  const profile = await readProfileFile(source);
  assert.equal(profile.format, 'unknown');
  assert.deepEqual(profile.runs, []);
  assert.equal(profile.problems.length, 1);
  const [problem] = profile.problems;
  assert.deepEqual([problem.file, problem.line, problem.severity], [source, 1, 'error']);
  assert.match(problem.message, /^unrecognized profile format: the file starts with "\/\* Toy causal-profiling target.*expected a COZ\/BCOZ profile/);
});

test('sniffing skips any number of blank lines and sees the same prefix however the text is cut', () => {
  const blankFirst = parseProfileText('\n \n'.repeat(50000) + 'startup\ttime=1\n', 'blank-first.coz');
  assert.equal(blankFirst.format, 'coz');
  assert.equal(blankFirst.runs.length, 1);
  // A first line longer than the sniffing window, then COZ records: never COZ, in any pieces.
  const text = 'x'.repeat(70000) + '\nstartup\ttime=1\n';
  for (const step of [1000, 65536, 70001, text.length]) {
    const reader = new ProfileReader('long.txt');
    for (let i = 0; i < text.length; i += step) reader.push(text.slice(i, i + step));
    const profile = reader.end();
    assert.equal(profile.format, 'unknown', `pieces of ${step}`);
    assert.equal(profile.problems[0].line, 1);
  }
});

test('an empty file is a warning, not an error', () => {
  const profile = parseProfileText('', 'empty.coz');
  assert.deepEqual(profile.problems, [{ file: 'empty.coz', line: 1, severity: 'warning', message: 'the file is empty' }]);
});

test('unreadable files throw an Error naming the file', async () => {
  const missing = path.join(os.tmpdir(), 'causal-lens-no-such-profile.coz');
  await assert.rejects(readProfileFile(missing), (error: Error) => error.message === `cannot read profile ${missing}: no such file`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-'));
  try {
    await assert.rejects(readProfileFile(dir), (error: Error) => error.message === `cannot read profile ${dir}: it is a directory`);
  } finally {
    fs.rmdirSync(dir);
  }
});
