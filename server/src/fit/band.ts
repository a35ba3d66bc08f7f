// The prediction band around an extrapolated value. Two sources of doubt are combined, and the
// band spans both:
//  1. the scatter of the data: the 95% prediction interval of the weighted fit,
//     ŷ ± t(0.975, ν) · s · √(1 + h₀), s² = Σ w_i r_i² / ν, ν = Σ w_i − m (the Cauchy weights
//     make an outlier count for little), h₀ = x₀ᵀ(AᵀWA)⁻¹x₀ the leverage of the new point;
//  2. the form of the model: the predictions at x₀ of the leave-one-x-out refits (beyond 20
//     distinct x, of the refits without each group of x, search.ts). On exact counts
//     (cachegrind) the first is ~0, and this one shows how much the extrapolation rests on any
//     single measured x.

import { leverage } from './leastSquares';
import { Hypothesis, designRow, evaluate } from './search';

export interface Prediction {
  x: number;
  y: number;
  low: number;
  high: number;
}

/** Quantile of the standard normal distribution (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Quantile of Student's t with ν degrees of freedom: exact for ν = 1 and 2, otherwise the
 * Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5 (error < 0.1% from ν = 3).
 */
export function studentQuantile(p: number, nu: number): number {
  if (nu <= 1) return Math.tan(Math.PI * (p - 0.5));
  if (nu < 3) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  const z = normalQuantile(p);
  const z2 = z * z;
  const g1 = (z2 + 1) * z / 4;
  const g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / nu + g2 / nu ** 2 + g3 / nu ** 3 + g4 / nu ** 4;
}

export function predictionBand(model: Hypothesis, xs: readonly number[], ys: readonly number[], x: number): Prediction {
  const { fit, weights } = model.fit;
  const coefficients = fit.coefficients;
  const y = evaluate(model.terms, coefficients, x);
  const m = coefficients.length;
  const nu = weights.reduce((sum, w) => sum + w, 0) - m;
  let half = 0;
  if (nu > 0) {
    const s2 = xs.reduce((sum, xi, i) => sum + weights[i] * (ys[i] - evaluate(model.terms, coefficients, xi)) ** 2, 0) / nu;
    half = studentQuantile(0.975, nu) * Math.sqrt(s2 * (1 + leverage(fit, designRow(model.terms, x))));
  }
  const refits = model.looCoefficients.map((c) => evaluate(model.terms, c, x));
  return { x, y, low: Math.min(y - half, ...refits), high: Math.max(y + half, ...refits) };
}
