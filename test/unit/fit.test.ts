// The fitting core of seed 003: terms, least squares, the Cauchy IRLS, the model search, the sum
// of components, the prediction band and the printed formula.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunPoint, fitRuns, formatFormula, predict, predictComponent } from '../../server/src/fit';
import { studentQuantile } from '../../server/src/fit/band';
import { weightedLeastSquares } from '../../server/src/fit/leastSquares';
import { cauchyFit } from '../../server/src/fit/robust';
import { leftOutGroups } from '../../server/src/fit/search';
import { mulberry32 } from '../../server/src/causal/random';

const points = (xs: number[], f: (x: number) => number, component?: string): RunPoint[] =>
  xs.map((x) => (component === undefined ? { x, y: f(x) } : { x, y: f(x), component }));

test("recovers the paper's LU model (table 3) from the sizes it was fitted on, and prints it as the paper does", () => {
  const lu = (n: number) => 1.332 * n ** 3 + 6.358 * n ** 2 + 27.84 * n + 891.126;
  const result = fitRuns(points([48, 64, 80, 96, 112, 128, 144], lu), { parameter: 'N' });
  assert.equal(result.formula, '1.332N³ + 6.358N² + 27.840N + 891.126');
  for (const p of predict(result, [288, 512])) assert.ok(Math.abs(p.y - lu(p.x)) / lu(p.x) < 1e-9, `N=${p.x}`);
});

test("recovers the paper's processor-count forms (P−1)/P and √P from P = 2, 4, 8, 16 (tables 6 and 8)", () => {
  const ps = [2, 4, 8, 16];
  assert.equal(fitRuns(points(ps, (p) => (2330.514 * (p - 1)) / p + 2962.669), { parameter: 'P' }).formula, '2330.514(P-1)/P + 2962.669');
  assert.equal(fitRuns(points(ps, (p) => 9 * Math.sqrt(p) + 9), { parameter: 'P' }).formula, '9.000√P + 9.000');
  assert.equal(fitRuns(points(ps, () => 405830), { parameter: 'P' }).formula, '405830.000');
});

test('fits each component on its own and sums them: like terms add, predictions and bands add', () => {
  const xs = [10, 20, 30, 40, 50, 60, 70];
  const runs = [...points(xs, (x) => 2 * x * x + 7, 'A'), ...points(xs, (x) => 5 * x + 1, 'B'), ...points(xs, (x) => 3 * x * x, 'C')];
  const result = fitRuns(runs, { parameter: 'N' });
  assert.deepEqual(result.components.map((c) => [c.component, c.formula]), [
    ['A', '2.000N² + 7.000'],
    ['B', '5.000N + 1.000'],
    ['C', '3.000N²'],
  ]);
  assert.equal(result.formula, '5.000N² + 5.000N + 8.000');
  const [total] = predict(result, [500]);
  const parts = result.components.map((c) => predictComponent(c, [500])[0]);
  assert.ok(Math.abs(total.y - parts.reduce((s, p) => s + p.y, 0)) < 1e-6);
  assert.ok(Math.abs(total.high - total.y - parts.reduce((s, p) => s + p.high - p.y, 0)) < 1e-6);
  assert.ok(Math.abs(total.y - (5 * 500 * 500 + 5 * 500 + 8)) < 1e-3);
});

test('the Cauchy fit gives an outlier little weight and stays near the line least squares loses', () => {
  const random = mulberry32(7);
  const xs = Array.from({ length: 12 }, (_, i) => i + 1);
  const ys = xs.map((x) => (3 * x + 5) * (1 + 0.01 * (random() - 0.5)));
  ys[8] *= 10;
  const design = xs.map((x) => [1, x]);
  const robust = cauchyFit(design, ys)!;
  const plain = weightedLeastSquares(design, ys, ys.map(() => 1))!;
  assert.ok(robust.iterations > 0);
  assert.ok(robust.weights[8] < 0.1, `outlier weight ${robust.weights[8]}`);
  assert.ok(robust.weights.every((w, i) => i === 8 || w > 0.5), robust.weights.join(' '));
  // σ comes from the least-squares residuals, the outlier's included, so its weight stays near
  // 1/(1 + n) and it still pulls a little: a tenth of what it does to least squares.
  const robustError = Math.abs(robust.fit.coefficients[1] - 3);
  const plainError = Math.abs(plain.coefficients[1] - 3);
  assert.ok(robustError < plainError / 10, `slope ${robust.fit.coefficients[1]}, least squares ${plain.coefficients[1]}`);
  const result = fitRuns(xs.map((x, i) => ({ x, y: ys[i] })));
  assert.deepEqual(result.components[0].downWeighted.map((d) => d.x), [9]);
});

test('exact data needs no reweighting; collinear columns have no fit', () => {
  const exact = cauchyFit([[1, 1], [1, 2], [1, 3]], [3, 5, 7])!;
  assert.equal(exact.iterations, 0);
  assert.ok(exact.weights.every((w) => w === 1));
  assert.equal(weightedLeastSquares([[1, 2], [2, 4], [3, 6]], [1, 2, 3], [1, 1, 1]), undefined);
  assert.equal(weightedLeastSquares([[1, 2]], [1], [1]), undefined);
});

test('the prediction band holds the prediction and widens with the distance of the extrapolation', () => {
  const random = mulberry32(3);
  const runs = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((x) => [0, 1, 2].map(() => ({ x, y: (10 * x + 4) * (1 + 0.03 * (random() - 0.5)) })));
  const result = fitRuns(runs);
  const [near, far] = predict(result, [10, 100]);
  for (const p of [near, far]) assert.ok(p.low < p.y && p.y < p.high, JSON.stringify(p));
  assert.ok(far.high - far.low > 2 * (near.high - near.low), `${far.high - far.low} vs ${near.high - near.low}`);
  assert.ok(far.low < 1004 && 1004 < far.high, JSON.stringify(far));
});

test("Student's t quantiles match the tables", () => {
  const table: [number, number][] = [[1, 12.706], [2, 4.303], [3, 3.182], [5, 2.571], [10, 2.228], [30, 2.042], [1000, 1.962]];
  for (const [nu, t] of table) assert.ok(Math.abs(studentQuantile(0.975, nu) - t) / t < 2e-3, `ν=${nu}: ${studentQuantile(0.975, nu)}`);
});

test('bad input is refused with the reason, not fitted', () => {
  assert.throws(() => fitRuns([{ x: 0, y: 1 }, { x: 2, y: 2 }]), /x must be positive/);
  assert.throws(() => fitRuns([{ x: 1, y: NaN }, { x: 2, y: 2 }]), /y finite/);
  assert.throws(() => fitRuns([]), /no runs/);
  assert.throws(() => fitRuns([{ x: 4, y: 1, component: 'solo' }, { x: 4, y: 2, component: 'solo' }]), /component solo: .*two distinct x/);
});

test('formulas: signs, small coefficients, term order', () => {
  const t = (label: string, coefficient: number, num: number, log = 0) => ({ label, coefficient, term: { kind: 'power' as const, num, den: 1, log } });
  assert.equal(formatFormula([t('N²', -0.125, 2), t('N', 0.000012345, 1), { label: '1', coefficient: -3 }]), '-0.1250N² + 1.234e-5N - 3.000');
  assert.equal(formatFormula([{ label: '1', coefficient: 0 }]), '0');
  const result = fitRuns(points([2, 4, 8, 16, 32, 64, 128], (p) => 0.5 * p * Math.log2(p) + 3 * Math.log2(p) + 1), { parameter: 'p' });
  assert.equal(result.formula, '0.5000p·log₂(p) + 3.000log₂(p) + 1.000');
});

test('arbitrary runs (zeros, 1e12 next to 1e-9, one x, repeated x): a fit with finite predictions or a RangeError', () => {
  const random = mulberry32(9);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  let fitted = 0;
  for (let k = 0; k < 60; k++) {
    const runs = Array.from({ length: 1 + Math.floor(random() * 12) }, () => ({
      x: pick([1, 2, 3, 1e-3, 1e6, 0.5, 7]) * (1 + Math.floor(random() * 3)),
      y: pick([0, 1, -5, 1e12, 1e-9, random() * 100]),
    }));
    try {
      const result = fitRuns(runs);
      for (const p of predict(result, [10, 1e3])) assert.ok([p.y, p.low, p.high].every(Number.isFinite), `${JSON.stringify(runs)}: ${JSON.stringify(p)}`);
      fitted++;
    } catch (error) {
      assert.ok(error instanceof RangeError, `${JSON.stringify(runs)}: ${(error as Error).stack}`);
    }
  }
  assert.ok(fitted > 20, `only ${fitted} of 60 fitted`);
});

test('up to 20 distinct x are left out one at a time; beyond, every 20th together', () => {
  const xs = (n: number) => Array.from({ length: n }, (_, i) => 2 + i);
  assert.deepEqual(leftOutGroups(xs(4)), [[2], [3], [4], [5]]);
  assert.equal(leftOutGroups(xs(20)).length, 20);
  const groups = leftOutGroups(xs(45));
  assert.equal(groups.length, 20);
  assert.deepEqual(groups[0], [2, 22, 42]);
  assert.deepEqual(groups.flat().sort((a, b) => a - b), xs(45), 'every x left out once');
});

test('a table of 60 sizes, left out in groups, still finds its form', () => {
  const random = mulberry32(60);
  const runs: RunPoint[] = Array.from({ length: 60 }, (_, i) => {
    const x = 2 + 3 * i;
    return { x, y: 0.5 * x ** 1.5 + 3 + (random() - 0.5) };
  });
  const result = fitRuns(runs, { parameter: 'p' });
  // One growing term and the constant, as leaving each size out alone found (0.4998p^(3/2) + 3.160).
  assert.match(result.formula, /^0\.(49|50)\d*p\^\(3\/2\) \+ [\d.]+$/, result.formula);
});

test('a table that cannot be fitted says why: one x, or values beyond what a double can square', () => {
  assert.throws(() => fitRuns([{ x: 4, y: 1 }, { x: 4, y: 2 }]), /a model needs at least two distinct x values/);
  const huge = [1, 2, 4, 8].map((x, i) => ({ x, y: [1e308, 1.5e308, 1.7e308, 1.1e308][i] }));
  assert.throws(() => fitRuns(huge), /the values are too large to fit \(\|y\| up to 1\.70e\+308\); rescale them/);
});
