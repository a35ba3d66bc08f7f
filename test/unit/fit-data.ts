// Data the fit tests and bench/fit.ts share: the cachegrind series committed in
// test/fixtures/scaling/ (written by samples/scaling/measure.sh) and issue 6's robustness case.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../../server/src/causal/random';
import { FitResult, RunPoint, fitRuns, predict } from '../../server/src/fit';
import { ScalingTable, parseScalingCsv } from '../../server/src/import/scalingCsv';

export const SCALING_FIXTURES = path.join(__dirname, '../../../test/fixtures/scaling');

export function readTable(file: string): ScalingTable {
  return parseScalingCsv(fs.readFileSync(file, 'utf8'), file);
}

/** Series names ("matmul-N") with a fitted table and a table of large runs. */
export function seriesNames(dir = SCALING_FIXTURES): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.large.csv'))
    .map((f) => f.slice(0, -'.large.csv'.length))
    .sort();
}

export interface CheckedPrediction {
  series: string;
  x: number;
  predicted: number;
  low: number;
  high: number;
  measured: number;
  /** (measured − predicted) / measured, seed 003 eq. 12 */
  error: number;
}

/** The total over components at each x. */
export function totals(table: ScalingTable): Map<number, number> {
  const sums = new Map<number, number>();
  for (const run of table.runs) sums.set(run.x, (sums.get(run.x) ?? 0) + run.y);
  return sums;
}

/** Fits a series' small runs and predicts its large ones. */
export function checkSeries(series: string, dir = SCALING_FIXTURES): { fit: FitResult; checked: CheckedPrediction[] } {
  const small = readTable(path.join(dir, `${series}.csv`));
  const large = totals(readTable(path.join(dir, `${series}.large.csv`)));
  const fit = fitRuns(small.runs, { parameter: small.parameter });
  const xs = [...large.keys()].sort((a, b) => a - b);
  const checked = predict(fit, xs).map((p) => {
    const measured = large.get(p.x)!;
    return { series, x: p.x, predicted: p.y, low: p.low, high: p.high, measured, error: (measured - p.y) / measured };
  });
  return { fit, checked };
}

/** Issue 6: t(p) = 2 + 0.05·p·log2(p) for p = 2…64. */
export const plogpTruth = (p: number) => 2 + 0.05 * p * Math.log2(p);

/**
 * Issue 6's robustness case: five repetitions per p = 2, 4, …, 64 with 2% Gaussian noise
 * (Box-Muller on the seeded generator, as reference/mpi-whatif.md §5's synth.py), and the
 * first repetition at p = 32 four times too slow.
 */
export function plogpWithOutlier(seed = 1): RunPoint[] {
  const random = mulberry32(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const points: RunPoint[] = [];
  for (let p = 2; p <= 64; p *= 2)
    for (let rep = 0; rep < 5; rep++) {
      const y = plogpTruth(p) * (1 + 0.02 * gaussian());
      points.push({ x: p, y: p === 32 && rep === 0 ? 4 * y : y });
    }
  return points;
}
