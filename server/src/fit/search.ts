// Which terms, and how many: a beam search over sums of terms, each hypothesis scored by
// leave-one-out cross-validation as Extra-P does (extrap/modelers/abstract_base.py), but with
// the robust fit inside and a robust score.
//
// - Left out is one distinct x at a time (all its repetitions): leaving out one repetition
//   would test nothing about the form, and leaving out the largest x tests extrapolation. Beyond
//   20 distinct x, every 20th is left out together (leftOutGroups): the cost stays bounded.
// - The score is the mean over the left-out x of the relative error against the repetitions
//   there, averaged with their Cauchy weights from the fit on all points: an outlier the robust
//   fit has recognised does not decide between forms (Extra-P's mean-based SMAPE is what makes it
//   pick a·p over p·log p when one repetition is 4× off, reference mpi-whatif.md §5), and the
//   noise of single repetitions averages out instead of drowning the differences between forms.
// - The leading term is any of Extra-P's; further terms come from the paper's lower-order
//   vocabulary (LOWER_ORDER_TERMS) and must grow slower than the leading one.
// - A model gets at most (distinct x − 3) terms besides the constant, so that every left-out fit
//   keeps two degrees of freedom (one term from 3 distinct x, none from 2); at most maxTerms.
//   This is the paper's own budget: three terms from 7 sizes (LU), two from 5 (FFT), one from 4
//   processor counts.
// - Among hypotheses of one size scoring within one standard error of the best, the simplest wins.
// - One more term must lower the score to `improvement` times the best so far, or the simpler
//   model is kept; and once the best predicts left-out points within `exact` (relative), no term
//   is added: on exact counts several sums fit to rounding level, and the one with fewer terms
//   extrapolates safer.

import { LOWER_ORDER_TERMS, Term, TERMS, termComplexity, termGrowth, termKey, termValue } from './terms';
import { RobustFit, cauchyFit } from './robust';

export interface Hypothesis {
  terms: Term[];
  fit: RobustFit;
  /** Mean relative leave-one-x-out error (against the weighted mean of each x's repetitions). */
  score: number;
  /** Standard error of that mean over the left-out x. */
  scoreError: number;
  /** Coefficients of the fits with one distinct x left out, for the prediction band. */
  looCoefficients: number[][];
}

export interface SearchOptions {
  maxTerms: number;
  beamWidth: number;
  improvement: number;
  exact: number;
  leadingTerms: readonly Term[];
  lowerTerms: readonly Term[];
}

export const DEFAULT_SEARCH: SearchOptions = {
  maxTerms: 4,
  beamWidth: 8,
  improvement: 0.25,
  exact: 1e-6,
  leadingTerms: TERMS,
  lowerTerms: LOWER_ORDER_TERMS,
};

export function designRow(terms: readonly Term[], x: number): number[] {
  return [1, ...terms.map((t) => termValue(t, x))];
}

export function evaluate(terms: readonly Term[], coefficients: readonly number[], x: number): number {
  return designRow(terms, x).reduce((sum, v, k) => sum + v * coefficients[k], 0);
}

/**
 * The distinct x left out together: each alone up to MAX_FOLDS of them; beyond, every
 * MAX_FOLDS-th together, so that a table of many sizes costs MAX_FOLDS + 1 fits per hypothesis
 * rather than one per size (200 sizes took 52 s here, docs/scaling.md).
 */
export function leftOutGroups(distinct: readonly number[]): number[][] {
  const groups: number[][] = Array.from({ length: Math.min(distinct.length, MAX_FOLDS) }, () => []);
  distinct.forEach((x, i) => groups[i % groups.length].push(x));
  return groups;
}

const MAX_FOLDS = 20;

function scoreHypothesis(terms: Term[], xs: readonly number[], ys: readonly number[], groups: readonly (readonly number[])[]): Hypothesis | undefined {
  const design = xs.map((x) => designRow(terms, x));
  const fit = cauchyFit(design, ys);
  if (!fit) return undefined;
  const looCoefficients: number[][] = [];
  let errorSum = 0;
  let errorCount = 0;
  // The x left out together share one refit: the score's error counts the groups, not the x.
  const groupMeans: number[] = [];
  for (const group of groups) {
    const keep = xs.map((x) => !group.includes(x));
    const loo = cauchyFit(
      design.filter((_, i) => keep[i]),
      ys.filter((_, i) => keep[i]),
    );
    if (!loo) return undefined;
    looCoefficients.push(loo.fit.coefficients);
    let groupSum = 0;
    for (const left of group) {
      let weighted = 0;
      let weights = 0;
      ys.forEach((_, i) => {
        if (xs[i] !== left) return;
        weighted += fit.weights[i] * ys[i];
        weights += fit.weights[i];
      });
      const measured = weighted / weights;
      groupSum += Math.abs(measured - evaluate(terms, loo.fit.coefficients, left)) / Math.max(Math.abs(measured), Number.MIN_VALUE);
    }
    errorSum += groupSum;
    errorCount += group.length;
    groupMeans.push(groupSum / group.length);
  }
  const score = errorSum / errorCount;
  const k = groupMeans.length;
  const groupMean = groupMeans.reduce((sum, e) => sum + e, 0) / k;
  const scoreError = Math.sqrt(groupMeans.reduce((sum, e) => sum + (e - groupMean) ** 2, 0) / (k - 1) / k);
  return Number.isFinite(score) && Number.isFinite(scoreError) ? { terms, fit, score, scoreError, looCoefficients } : undefined;
}

const complexity = (h: Hypothesis) => h.terms.reduce((sum, t) => sum + termComplexity(t), 0);

/**
 * Among hypotheses (sorted by score) within one standard error of the best score, the simplest
 * (the one-standard-error rule of model selection). Noisy data cannot tell some forms apart over
 * a small range: on p = 2…64, p^(2/3)·log₂²(p) stays within 6% of a multiple of p·log₂(p) from
 * p = 8 on, and 2% noise decides between them by chance; beyond the range they part (30% at
 * p = 1024).
 */
function simplestNearBest(sorted: readonly Hypothesis[]): Hypothesis {
  const near = sorted.filter((h) => h.score <= sorted[0].score + sorted[0].scoreError);
  return near.reduce((simplest, h) => (complexity(h) < complexity(simplest) ? h : simplest));
}

/** The best hypothesis for points (x_i > 0, y_i); at least two distinct x. */
export function searchModel(xs: readonly number[], ys: readonly number[], options: SearchOptions = DEFAULT_SEARCH): Hypothesis {
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  if (distinct.length < 2) throw new RangeError('a model needs at least two distinct x values');
  const groups = leftOutGroups(distinct);
  const constant = scoreHypothesis([], xs, ys, groups);
  // With two x or more only numbers beyond a double's range (y near 1e308, whose squares overflow) fail a constant.
  if (!constant) throw new RangeError(`the values are too large to fit (|y| up to ${Math.max(...ys.map(Math.abs)).toPrecision(3)}); rescale them`);
  let best = constant;
  const maxTerms = Math.min(options.maxTerms, distinct.length < 3 ? 0 : Math.max(1, distinct.length - 3));
  let beam: Hypothesis[] = [constant];
  const seen = new Set<string>();
  for (let size = 1; size <= maxTerms && best.score > options.exact; size++) {
    const next: Hypothesis[] = [];
    for (const parent of beam) {
      const leading = parent.terms[0];
      const candidates = leading ? options.lowerTerms.filter((t) => termGrowth(t) < termGrowth(leading)) : options.leadingTerms;
      for (const term of candidates) {
        const terms = [...parent.terms, term];
        const key = terms.map(termKey).sort().join(' ');
        if (parent.terms.some((t) => termKey(t) === termKey(term)) || seen.has(key)) continue;
        seen.add(key);
        const hypothesis = scoreHypothesis(terms, xs, ys, groups);
        if (hypothesis) next.push(hypothesis);
      }
    }
    if (next.length === 0) break;
    next.sort((a, b) => a.score - b.score);
    beam = next.slice(0, options.beamWidth);
    const winner = simplestNearBest(next);
    if (winner.score < best.score * options.improvement) best = winner;
  }
  return best;
}
