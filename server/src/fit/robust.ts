// The robust fit of seed 003 §4.3: least squares first, then the Cauchy weight function
// ρ(z) = ln(1 + z²), ψ(z) = 2z/(1 + z²), minimized by iteratively reweighted least squares with
// w_i = ψ(z_i)/z_i (eq. 11; the constant 2 cancels) and z_i = r_i/σ. σ is estimated as the
// paper does (from [13]) on the least-squares residuals, σ = √(Σ r_i² / N), and then kept for
// the iterations: re-estimating it from ever smaller residuals would let the weights of the
// good points collapse too.
//
// The paper's formula lost its brackets in print ("σ_i = √((y_i − y(x_i; a))²) / N"); read with
// the division outside the root, σ is √N times smaller, every point sits several σ off, and on
// exact counts the iteration walks off to a line through two points (matmul-N's checksum
// component: −124.9 + 0.1252N² instead of 1.7 + 0.1250N²). The root-mean-square reading is
// the usual scale estimate and keeps least squares' answer when no point stands out.

import { LinearFit, weightedLeastSquares } from './leastSquares';

export interface RobustFit {
  fit: LinearFit;
  /** Final Cauchy weight of each point, 1 for a point on the curve, → 0 for an outlier. */
  weights: number[];
  sigma: number;
  iterations: number;
}

const MAX_ITERATIONS = 50;
/** Relative change of every fitted value below which the iteration has converged. */
const CONVERGED = 1e-10;

function predictRows(design: readonly number[][], coefficients: readonly number[]): number[] {
  return design.map((row) => row.reduce((sum, v, k) => sum + v * coefficients[k], 0));
}

export function cauchyFit(design: readonly number[][], y: readonly number[]): RobustFit | undefined {
  const n = y.length;
  let weights = new Array<number>(n).fill(1);
  let fit = weightedLeastSquares(design, y, weights);
  if (!fit) return undefined;
  let fitted = predictRows(design, fit.coefficients);
  const sigma = Math.sqrt(fitted.reduce((sum, f, i) => sum + (y[i] - f) ** 2, 0) / n);
  const magnitude = Math.max(...y.map(Math.abs));
  // Residuals at rounding level: the least-squares fit is exact, nothing to down-weight.
  if (!(sigma > magnitude * 1e-12)) return { fit, weights, sigma, iterations: 0 };
  let iterations = 0;
  while (iterations < MAX_ITERATIONS) {
    iterations++;
    weights = fitted.map((f, i) => 1 / (1 + ((y[i] - f) / sigma) ** 2));
    const next = weightedLeastSquares(design, y, weights);
    if (!next) break;
    const nextFitted = predictRows(design, next.coefficients);
    const change = Math.max(...nextFitted.map((f, i) => Math.abs(f - fitted[i]) / Math.max(Math.abs(f), magnitude * 1e-12)));
    fit = next;
    fitted = nextFitted;
    if (change < CONVERGED) break;
  }
  weights = fitted.map((f, i) => 1 / (1 + ((y[i] - f) / sigma) ** 2));
  return { fit, weights, sigma, iterations };
}
