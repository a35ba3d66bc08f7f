// Causal curves: program speedup against line speedup, per (selected target, progress point).
//
// The point estimates follow COZ's current viewer (plasma-umass/coz viewer/ts/profile.ts,
// `getSpeedupData` and `max_normalized_area`; ../shared/reference/coz.md §2):
//   - pool per (target, point, line speedup): period = Σduration / Σvisits (a ratio of sums);
//   - a speedup-0 baseline is required, and every bucket needs >= 5 visits (HEAD's MIN_DELTA);
//   - program speedup = (p0 − ps) / p0, kept only when −1 <= y <= 2;
//   - a curve needs `minPoints` distinct line speedups (viewer default 10);
//   - impact = the largest running trapezoid average of the curve from its first point.
// Latency points use Little's law (W = L / λ). COZ's viewer negates latency speedups, so a
// latency *reduction* plots as negative there (see its issue #104); here a reduction is a
// positive program speedup, the same sign as a throughput gain.
//
// Beyond COZ: a 95% bootstrap interval per point and for the impact, resampling whole
// experiments within each bucket (baseline included), with a seeded generator so the same
// profile always gives the same numbers.

import { CausalTarget, Experiment, Profile } from '../model/profile';
import { mulberry32, seedFromString } from './random';

export interface CurveOptions {
  minPoints: number;
  /** Smallest pooled visits (throughput delta or latency arrivals) a bucket needs. */
  minVisits: number;
  resamples: number;
}

export const DEFAULT_CURVE_OPTIONS: CurveOptions = { minPoints: 10, minVisits: 5, resamples: 200 };

export interface CurvePoint {
  lineSpeedup: number;
  programSpeedup: number;
  /** 95% bootstrap interval; null when the bucket or the baseline has a single experiment. */
  low: number | null;
  high: number | null;
  experiments: number;
  visits: number;
}

export type CurveStatus =
  | { kind: 'curve' }
  | { kind: 'insufficient'; reason: string; pointsMissing: number; baselineVisitsMissing: number };

export interface CausalCurve {
  selected: string;
  target: CausalTarget;
  progressPoint: string;
  pointKind: 'throughput' | 'latency';
  points: CurvePoint[];
  impact: number;
  impactLow: number;
  impactHigh: number;
  maxSpeedup: number;
  experiments: number;
  runs: number;
  status: CurveStatus;
}

/** Per-experiment contributions to one bucket; period = Σnumerator / Σvisits. */
interface Bucket {
  speedup: number;
  numerators: number[];
  visits: number[];
}

interface Series {
  selected: string;
  target: CausalTarget;
  point: string;
  kind: 'throughput' | 'latency';
  buckets: Map<number, Bucket>;
  runs: Set<number>;
  experiments: number;
}

/** Speedups are printed with two decimals; the integer percent is an exact bucket key. */
function speedupKey(speedup: number): number {
  return Math.round(speedup * 100);
}

function groupSeries(experiments: readonly Experiment[]): Series[] {
  const byKey = new Map<string, Series>();
  for (const experiment of experiments) {
    for (const point of experiment.points) {
      const key = experiment.selected + '\u0000' + point.name;
      let series = byKey.get(key);
      if (!series) {
        series = {
          selected: experiment.selected,
          target: experiment.target,
          point: point.name,
          kind: point.kind,
          buckets: new Map(),
          runs: new Set(),
          experiments: 0,
        };
        byKey.set(key, series);
      }
      if (series.kind !== point.kind) continue; // one name used as both kinds: keep the first
      const bucketKey = speedupKey(experiment.speedup);
      let bucket = series.buckets.get(bucketKey);
      if (!bucket) {
        bucket = { speedup: bucketKey / 100, numerators: [], visits: [] };
        series.buckets.set(bucketKey, bucket);
      }
      if (point.kind === 'throughput') {
        bucket.numerators.push(experiment.durationNs);
        bucket.visits.push(point.delta);
      } else {
        // Little's law with COZ's duration-weighted mean of in-flight items:
        // W = (Σ diff·dur / Σ dur) / (Σ arrivals / Σ dur) = Σ diff·dur / Σ arrivals.
        bucket.numerators.push(point.difference * experiment.durationNs);
        bucket.visits.push(point.arrivals);
      }
      series.runs.add(experiment.run);
      series.experiments++;
    }
  }
  return [...byKey.values()];
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function period(bucket: Bucket): number {
  return sum(bucket.numerators) / sum(bucket.visits);
}

/** The viewer's impact: the largest running trapezoid average of y over x, floored at 0. */
export function impactOf(xs: readonly number[], ys: readonly number[]): number {
  let best = 0;
  let area = 0;
  for (let j = 1; j < xs.length; j++) {
    area += ((ys[j - 1] + ys[j]) / 2) * (xs[j] - xs[j - 1]);
    const average = area / xs[j];
    if (average > best) best = average;
  }
  return best;
}

function percentile(sorted: ArrayLike<number>, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function resampledPeriod(bucket: Bucket, random: () => number): number {
  const n = bucket.visits.length;
  let numerator = 0;
  let visits = 0;
  for (let i = 0; i < n; i++) {
    const pick = Math.floor(random() * n);
    numerator += bucket.numerators[pick];
    visits += bucket.visits[pick];
  }
  return numerator / visits;
}

function programSpeedup(base: number, value: number): number {
  return (base - value) / base;
}

function describeShortfall(baselineVisits: number | undefined, pointsFound: number, options: CurveOptions): CurveStatus {
  if (baselineVisits === undefined) {
    return {
      kind: 'insufficient',
      reason: `no 0% (baseline) experiments yet; then ${options.minPoints} line speedups with ≥${options.minVisits} visits each`,
      pointsMissing: options.minPoints,
      baselineVisitsMissing: options.minVisits,
    };
  }
  if (baselineVisits < options.minVisits) {
    const missing = options.minVisits - baselineVisits;
    return {
      kind: 'insufficient',
      reason: `the 0% baseline has ${baselineVisits} of ${options.minVisits} progress-point visits`,
      pointsMissing: Math.max(0, options.minPoints - pointsFound),
      baselineVisitsMissing: missing,
    };
  }
  const missing = options.minPoints - pointsFound;
  return {
    kind: 'insufficient',
    reason: `${pointsFound} of ${options.minPoints} line speedups have ≥${options.minVisits} visits; ${missing} more needed`,
    pointsMissing: missing,
    baselineVisitsMissing: 0,
  };
}

function computeSeriesCurve(series: Series, options: CurveOptions): CausalCurve {
  const baseline = series.buckets.get(0);
  const baselineVisits = baseline ? sum(baseline.visits) : undefined;
  const base = baseline ? period(baseline) : NaN;
  const baselineUsable =
    baseline !== undefined && (baselineVisits ?? 0) >= options.minVisits && Number.isFinite(base) && base !== 0;

  const used: Bucket[] = [];
  const points: CurvePoint[] = [];
  if (baselineUsable) {
    const ordered = [...series.buckets.values()].sort((a, b) => a.speedup - b.speedup);
    for (const bucket of ordered) {
      const visits = sum(bucket.visits);
      if (visits < options.minVisits) continue;
      const value = period(bucket);
      if (!Number.isFinite(value)) continue;
      const y = programSpeedup(base, value);
      if (!(y >= -1 && y <= 2)) continue;
      used.push(bucket);
      points.push({
        lineSpeedup: bucket.speedup,
        programSpeedup: y,
        low: null,
        high: null,
        experiments: bucket.visits.length,
        visits,
      });
    }
  }

  const xs = points.map((p) => p.lineSpeedup);
  const ys = points.map((p) => p.programSpeedup);
  const impact = impactOf(xs, ys);
  let impactLow = impact;
  let impactHigh = impact;

  if (baselineUsable && points.length > 0 && options.resamples > 0) {
    const random = mulberry32(seedFromString(series.selected + '\u0000' + series.point));
    // Typed arrays: their numeric sort is several times faster than sorting with a comparator.
    const draws = points.map(() => new Float64Array(options.resamples));
    const drawCounts = new Array<number>(points.length).fill(0);
    const impactDraws = new Float64Array(options.resamples);
    const curveXs: number[] = [];
    const curveYs: number[] = [];
    for (let b = 0; b < options.resamples; b++) {
      const baseDraw = resampledPeriod(baseline!, random);
      curveXs.length = 0;
      curveYs.length = 0;
      for (let i = 0; i < used.length; i++) {
        // The baseline bucket is itself a point (y = 0 at x = 0): it shares the baseline draw.
        const valueDraw = used[i] === baseline ? baseDraw : resampledPeriod(used[i], random);
        const y = programSpeedup(baseDraw, valueDraw);
        if (Number.isFinite(y)) {
          draws[i][drawCounts[i]++] = y;
          curveXs.push(xs[i]);
          curveYs.push(y);
        }
      }
      impactDraws[b] = impactOf(curveXs, curveYs);
    }
    const baselineExperiments = baseline!.visits.length;
    points.forEach((point, i) => {
      const enoughExperiments = point.experiments >= 2 && baselineExperiments >= 2;
      if (!enoughExperiments || drawCounts[i] < 2) return;
      const sorted = draws[i].subarray(0, drawCounts[i]).sort();
      point.low = Math.min(point.programSpeedup, percentile(sorted, 0.025));
      point.high = Math.max(point.programSpeedup, percentile(sorted, 0.975));
    });
    impactDraws.sort();
    impactLow = Math.min(impact, percentile(impactDraws, 0.025));
    impactHigh = Math.max(impact, percentile(impactDraws, 0.975));
  }

  const status: CurveStatus =
    baselineUsable && points.length >= options.minPoints
      ? { kind: 'curve' }
      : describeShortfall(baselineVisits, points.length, options);

  return {
    selected: series.selected,
    target: series.target,
    progressPoint: series.point,
    pointKind: series.kind,
    points,
    impact,
    impactLow,
    impactHigh,
    maxSpeedup: Math.max(0, ...ys),
    experiments: series.experiments,
    runs: series.runs.size,
    status,
  };
}

/** Every (target, progress point) of a profile: full curves, and those still collecting. */
export function computeCurves(profile: Profile, options: CurveOptions = DEFAULT_CURVE_OPTIONS): CausalCurve[] {
  return groupSeries(profile.experiments).map((series) => computeSeriesCurve(series, options));
}

/**
 * The same curves, computed in slices of about `sliceMs` that yield to the event loop between
 * them: a language server keeps answering while a large profile is recomputed.
 */
export async function computeCurvesInSlices(profile: Profile, options: CurveOptions, sliceMs = 8): Promise<CausalCurve[]> {
  const curves: CausalCurve[] = [];
  let sliceStart = performance.now();
  for (const series of groupSeries(profile.experiments)) {
    curves.push(computeSeriesCurve(series, options));
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return curves;
}

/** Curves first by impact, then the ones still collecting by how close they are. */
export function compareCurves(a: CausalCurve, b: CausalCurve): number {
  const aReady = a.status.kind === 'curve' ? 1 : 0;
  const bReady = b.status.kind === 'curve' ? 1 : 0;
  if (aReady !== bReady) return bReady - aReady;
  if (b.impact !== a.impact) return b.impact - a.impact;
  if (b.points.length !== a.points.length) return b.points.length - a.points.length;
  return a.selected < b.selected ? -1 : a.selected > b.selected ? 1 : 0;
}
