import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimText } from '../../server/src/causal/claims';
import { DEFAULT_CURVE_OPTIONS, computeCurves, computeCurvesInSlices, impactOf } from '../../server/src/causal/curves';
import { shortNames } from '../../server/src/causal/names';
import { Experiment, Profile, emptySkipCounts } from '../../server/src/model/profile';

const LINE = '/src/prog.c:30';

function experiment(speedup: number, durationNs: number, delta: number, run = 0): Experiment {
  return {
    selected: LINE,
    target: { kind: 'line', path: '/src/prog.c', line: 30 },
    speedup,
    durationNs,
    selectedSamples: 1,
    points: [{ kind: 'throughput', name: 'prog.c:45', delta }],
    run,
    recordLine: 1,
  };
}

function profileOf(experiments: Experiment[]): Profile {
  return { source: 'synthetic.coz', format: 'coz', runs: [{ samples: new Map() }], experiments, problems: [], skipped: emptySkipCounts() };
}

/** A line whose program speedup is exactly `gain(x)`: period p_s = p0 · (1 − gain(x)). */
function exactCurve(gain: (x: number) => number, copies = 3): Experiment[] {
  const out: Experiment[] = [];
  for (let k = 0; k <= 20; k++) {
    const x = k / 20;
    for (let c = 0; c < copies; c++) out.push(experiment(x, 1_000_000 * (1 - gain(x)), 100));
  }
  return out;
}

test('program speedup is (p0 − ps)/p0 of pooled periods, one point per line speedup', () => {
  const [curve] = computeCurves(profileOf(exactCurve((x) => 0.4 * x)));
  assert.equal(curve.status.kind, 'curve');
  assert.equal(curve.points.length, 21);
  for (const point of curve.points) assert.ok(Math.abs(point.programSpeedup - 0.4 * point.lineSpeedup) < 1e-12);
  assert.ok(Math.abs(curve.maxSpeedup - 0.4) < 1e-12);
});

test('pooling is a ratio of sums, not a mean of ratios', () => {
  // Baseline: 1000 ns over 10 visits and 3000 ns over 10 visits → 200 ns per visit.
  // At 0.5: 1000 ns over 10 and 1000 ns over 10 → 100 ns per visit → +50%.
  const experiments = [
    experiment(0, 1000, 10),
    experiment(0, 3000, 10),
    experiment(0.5, 1000, 10),
    experiment(0.5, 1000, 10),
  ];
  const [curve] = computeCurves(profileOf(experiments), { ...DEFAULT_CURVE_OPTIONS, minPoints: 2 });
  assert.deepEqual(
    curve.points.map((p) => [p.lineSpeedup, p.programSpeedup]),
    [
      [0, 0],
      [0.5, 0.5],
    ],
  );
});

test('buckets with fewer than 5 visits and speedups outside [−1, 2] are dropped', () => {
  const experiments = [
    experiment(0, 1000, 10),
    experiment(0.1, 500, 4), // 4 visits: dropped
    experiment(0.2, 100_000, 10), // y = −99: dropped
    experiment(0.3, 800, 10),
  ];
  const [curve] = computeCurves(profileOf(experiments), { ...DEFAULT_CURVE_OPTIONS, minPoints: 1 });
  assert.deepEqual(curve.points.map((p) => p.lineSpeedup), [0, 0.3]);
});

test('no baseline, or a thin one, is reported as collecting with what is missing', () => {
  const noBaseline = computeCurves(profileOf([experiment(0.5, 1000, 10)]))[0];
  assert.equal(noBaseline.status.kind, 'insufficient');
  assert.match(claimText(noBaseline), /no 0% \(baseline\) experiments yet/);

  const thin = computeCurves(profileOf([experiment(0, 1000, 3), experiment(0.5, 1000, 10)]))[0];
  assert.equal(thin.status.kind, 'insufficient');
  assert.match(claimText(thin), /baseline has 3 of 5/);

  const fewPoints = computeCurves(profileOf(exactCurve((x) => x / 2).filter((e) => e.speedup <= 0.3)))[0];
  assert.equal(fewPoints.status.kind, 'insufficient');
  if (fewPoints.status.kind !== 'insufficient') return;
  assert.equal(fewPoints.status.pointsMissing, 3); // 0, .05 … .30 are 7 points of 10
  assert.match(fewPoints.status.reason, /7 of 10 line speedups/);
});

test('impact is the largest running trapezoid average, as in COZ’s viewer', () => {
  const xs = [0, 0.25, 0.5, 0.75, 1];
  // y = 0.5x: area to x is x²/4, average x/4, largest at x = 1.
  assert.ok(Math.abs(impactOf(xs, xs.map((x) => 0.5 * x)) - 0.25) < 1e-12);
  // A curve that rises then falls keeps its best running average.
  const ys = [0, 0.4, 0.4, -0.8, -0.8];
  assert.ok(Math.abs(impactOf(xs, ys) - 0.3) < 1e-12); // (0.05 + 0.1) / 0.5, before the fall
  assert.equal(impactOf(xs, xs.map((x) => -x)), 0);
});

test('latency points use Little’s law and a reduction counts as a positive speedup', () => {
  // Baseline: 10 in flight, 100 arrivals per 1e6 ns → W = 10 / (100/1e6) = 1e5 ns.
  // At 0.5: 5 in flight at the same rate → W halves → +50% (COZ’s viewer would show −50%).
  const latency = (speedup: number, difference: number): Experiment => ({
    ...experiment(speedup, 1_000_000, 0),
    points: [{ kind: 'latency', name: 'request', arrivals: 100, departures: 100, difference }],
  });
  const [curve] = computeCurves(profileOf([latency(0, 10), latency(0, 10), latency(0.5, 5), latency(0.5, 5)]), {
    ...DEFAULT_CURVE_OPTIONS,
    minPoints: 2,
  });
  assert.equal(curve.pointKind, 'latency');
  assert.ok(Math.abs(curve.points[1].programSpeedup - 0.5) < 1e-12);
});

test('bootstrap intervals bracket the estimate, are reproducible, and shrink with more experiments', () => {
  // Noisy periods around the exact curve y = 0.3x.
  const noisy = (copies: number): Experiment[] => {
    const out: Experiment[] = [];
    let state = 1;
    const noise = () => ((state = (state * 48271) % 2147483647) / 2147483647 - 0.5) * 0.2;
    for (let k = 0; k <= 20; k++) {
      for (let c = 0; c < copies; c++) out.push(experiment(k / 20, 1_000_000 * (1 - 0.3 * (k / 20)) * (1 + noise()), 100));
    }
    return out;
  };
  const few = computeCurves(profileOf(noisy(4)))[0];
  const again = computeCurves(profileOf(noisy(4)))[0];
  const many = computeCurves(profileOf(noisy(64)))[0];
  assert.deepEqual(few.points, again.points);
  const width = (c: typeof few) => c.points.reduce((w, p) => w + (p.high! - p.low!), 0);
  for (const point of few.points) assert.ok(point.low! <= point.programSpeedup && point.programSpeedup <= point.high!);
  assert.ok(width(many) < width(few) / 2, `intervals should shrink: ${width(many)} vs ${width(few)}`);
  assert.ok(few.impactLow <= few.impact && few.impact <= few.impactHigh);
  const atHalf = many.points.find((p) => p.lineSpeedup === 0.5)!;
  assert.ok(atHalf.low! < 0.15 && 0.15 < atHalf.high!, 'the true value 0.15 lies inside the 95% interval');
});

test('a bucket with a single experiment has no interval rather than a zero-width one', () => {
  const experiments = [experiment(0, 1000, 10), experiment(0, 1100, 10), experiment(0.5, 600, 10)];
  const [curve] = computeCurves(profileOf(experiments), { ...DEFAULT_CURVE_OPTIONS, minPoints: 2 });
  const half = curve.points.find((p) => p.lineSpeedup === 0.5)!;
  assert.equal(half.low, null);
  assert.equal(half.high, null);
});

test('the claim quotes the point with the highest lower bound', () => {
  const [curve] = computeCurves(profileOf(exactCurve((x) => 0.2 * x, 4)));
  // Exact data: intervals are zero-width, so the best lower bound is the largest gain.
  assert.equal(claimText(curve), '+20.0% program (±0.0) if 100% faster');
  const [flat] = computeCurves(profileOf(exactCurve(() => 0, 4)));
  assert.match(claimText(flat), /^no gain shown/);
});

test('short names keep the fewest trailing components that stay unique', () => {
  const names = shortNames(['/a/src/x.c:1', '/b/src/x.c:1', '/a/src/y.c:2', 'main.c:73', 'end-to-end']);
  assert.equal(names.get('/a/src/y.c:2'), 'y.c:2');
  assert.equal(names.get('/a/src/x.c:1'), 'a/src/x.c:1');
  assert.equal(names.get('/b/src/x.c:1'), 'b/src/x.c:1');
  assert.equal(names.get('main.c:73'), 'main.c:73');
  assert.equal(names.get('end-to-end'), 'end-to-end');
});

test('curves computed in slices that yield to the event loop equal the direct computation', async () => {
  const profile = profileOf([...exactCurve((x) => 0.3 * x), ...exactCurve((x) => 0.1 * x).map((e) => ({ ...e, selected: '/src/b.c:9' }))]);
  let yielded = 0;
  let computing = true;
  const otherWork = () => {
    if (!computing) return;
    yielded++;
    setImmediate(otherWork);
  };
  setImmediate(otherWork);
  const sliced = await computeCurvesInSlices(profile, DEFAULT_CURVE_OPTIONS, 0);
  computing = false;
  assert.deepEqual(sliced, computeCurves(profile));
  assert.ok(yielded > 0, 'other work ran between slices');
});
