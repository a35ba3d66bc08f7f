// Empirical scaling models (seed 003, Lee, Yang, Park): fit a metric against an input size N or
// a processor count P from a few small runs, one model per component, and sum the components.
// The API the Scaling panel, the CLI and the tests call.

import { Prediction, predictionBand } from './band';
import { DEFAULT_SEARCH, Hypothesis, SearchOptions, searchModel } from './search';
import { Term, termGrowth, termKey, termLabel } from './terms';

export type { Prediction } from './band';
export type { Term } from './terms';

export interface RunPoint {
  x: number;
  y: number;
  component?: string;
}

export interface FitOptions {
  /** Name of x in formulas ("N", "P"); default "x". */
  parameter?: string;
  search?: Partial<SearchOptions>;
}

export interface ModelTerm {
  /** The term as printed, e.g. "N³"; "1" for the constant. */
  label: string;
  coefficient: number;
  /** undefined for the constant */
  term?: Term;
}

export interface DownWeighted {
  x: number;
  y: number;
  weight: number;
}

export interface ComponentModel {
  /** undefined when the runs have no component column */
  component?: string;
  formula: string;
  terms: ModelTerm[];
  /** Weighted mean relative leave-one-x-out error of the chosen model (0.01 = 1%). */
  looError: number;
  /** Points the Cauchy fit gave a weight below DOWN_WEIGHTED. */
  downWeighted: DownWeighted[];
  hypothesis: Hypothesis;
  xs: number[];
  ys: number[];
}

export interface FitResult {
  parameter: string;
  /** The sum of the component models, like terms added. */
  formula: string;
  terms: ModelTerm[];
  components: ComponentModel[];
}

/** Points below this Cauchy weight (|r| > 3σ) are reported as down-weighted. */
const DOWN_WEIGHTED = 0.1;

function formatCoefficient(c: number): string {
  const a = Math.abs(c);
  if (a >= 1 || a === 0) return a.toFixed(3);
  return a >= 1e-4 ? a.toPrecision(4) : a.toExponential(3);
}

export function formatFormula(terms: readonly ModelTerm[]): string {
  const shown = terms.filter((t) => t.coefficient !== 0);
  if (shown.length === 0) return '0';
  return shown
    .map((t, i) => {
      const sign = t.coefficient < 0 ? (i === 0 ? '-' : ' - ') : i === 0 ? '' : ' + ';
      return sign + formatCoefficient(t.coefficient) + (t.term ? t.label : '');
    })
    .join('');
}

function modelTerms(terms: readonly Term[], coefficients: readonly number[], parameter: string): ModelTerm[] {
  const list: ModelTerm[] = terms.map((term, k) => ({ label: termLabel(term, parameter), coefficient: coefficients[k + 1], term }));
  list.sort((a, b) => termGrowth(b.term!) - termGrowth(a.term!));
  return [...list, { label: '1', coefficient: coefficients[0] }];
}

/** Adds the components' terms: the model of the total is the sum of the component models. */
function sumTerms(components: readonly ComponentModel[]): ModelTerm[] {
  const byKey = new Map<string, ModelTerm>();
  for (const c of components)
    for (const t of c.terms) {
      const key = t.term ? termKey(t.term) : '1';
      const known = byKey.get(key);
      byKey.set(key, known ? { ...known, coefficient: known.coefficient + t.coefficient } : { ...t });
    }
  const list = [...byKey.values()];
  const constant = list.filter((t) => !t.term);
  return [...list.filter((t) => t.term).sort((a, b) => termGrowth(b.term!) - termGrowth(a.term!)), ...constant];
}

function fitComponent(component: string | undefined, points: readonly RunPoint[], parameter: string, search: SearchOptions): ComponentModel {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const hypothesis = searchModel(xs, ys, search);
  const terms = modelTerms(hypothesis.terms, hypothesis.fit.fit.coefficients, parameter);
  const downWeighted = points
    .map((p, i) => ({ x: p.x, y: p.y, weight: hypothesis.fit.weights[i] }))
    .filter((p) => p.weight < DOWN_WEIGHTED);
  return { component, formula: formatFormula(terms), terms, looError: hypothesis.score, downWeighted, hypothesis, xs, ys };
}

/**
 * Fits each component (points without one form a single unnamed component) by least squares,
 * then robustly (Cauchy IRLS), choosing terms by leave-one-x-out cross-validation. Every x must
 * be positive and finite, every y finite; each component needs two distinct x.
 */
export function fitRuns(points: readonly RunPoint[], options: FitOptions = {}): FitResult {
  const parameter = options.parameter ?? 'x';
  const search = { ...DEFAULT_SEARCH, ...options.search };
  const bad = points.find((p) => !(p.x > 0) || !Number.isFinite(p.x) || !Number.isFinite(p.y));
  if (bad) throw new RangeError(`cannot fit x=${bad.x}, y=${bad.y}: x must be positive and finite, y finite`);
  const groups = new Map<string | undefined, RunPoint[]>();
  for (const p of points) {
    const group = groups.get(p.component);
    if (group) group.push(p);
    else groups.set(p.component, [p]);
  }
  if (groups.size === 0) throw new RangeError('no runs to fit');
  const components = [...groups].map(([component, group]) => {
    try {
      return fitComponent(component, group, parameter, search);
    } catch (error) {
      throw new RangeError(`component ${component ?? '(none)'}: ${(error as Error).message}`);
    }
  });
  const terms = sumTerms(components);
  return { parameter, formula: formatFormula(terms), terms, components };
}

/** Predictions of one component at each x, with its band. */
export function predictComponent(model: ComponentModel, xs: readonly number[]): Prediction[] {
  return xs.map((x) => predictionBand(model.hypothesis, model.xs, model.ys, x));
}

/**
 * The predictions at `xs` split into those that are numbers and the x where the model (or its
 * band) overflows: an exponential or a high power far beyond the runs gives ∞ or NaN there.
 */
export function finitePredictions(result: FitResult, xs: readonly number[]): { predictions: Prediction[]; overflowAt: number[] } {
  const all = predict(result, xs);
  const finite = (p: Prediction) => Number.isFinite(p.y) && Number.isFinite(p.low) && Number.isFinite(p.high);
  return { predictions: all.filter(finite), overflowAt: all.filter((p) => !finite(p)).map((p) => p.x) };
}

/** Says that the model has no finite value at `x`. */
export function overflowProblem(x: number, formula: string): string {
  return `no prediction at x = ${x}: ${formula} (or its band) is beyond a finite number there`;
}

/**
 * The summed prediction at each x. The band adds the components' half-widths on each side
 * (conservative: the components' errors may be correlated, e.g. all driven by one size).
 */
export function predict(result: FitResult, xs: readonly number[]): Prediction[] {
  const perComponent = result.components.map((c) => predictComponent(c, xs));
  return xs.map((x, i) => {
    let y = 0;
    let below = 0;
    let above = 0;
    for (const predictions of perComponent) {
      const p = predictions[i];
      y += p.y;
      below += p.y - p.low;
      above += p.high - p.y;
    }
    return { x, y, low: y - below, high: y + above };
  });
}
