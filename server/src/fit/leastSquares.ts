// Weighted linear least squares, seed 003 eqs. 5-7 (a = (AᵀWA)⁻¹AᵀWy), solved by Householder
// QR on column-scaled data rather than the normal equations: the columns of a model such as
// N³ + N² + N + 1 differ by ten orders of magnitude, which squaring in AᵀA would make singular
// in double precision.

export interface LinearFit {
  coefficients: number[];
  /** R of the scaled, weighted design (upper triangular, m×m), for leverages. */
  r: number[][];
  /** Column scales: coefficient k of the scaled problem is coefficients[k]·scale[k]. */
  scale: number[];
}

/** Smallest |R_kk| relative to the largest before the design counts as rank deficient. */
const RANK_TOLERANCE = 1e-10;

/**
 * Minimizes Σ w_i (y_i − Σ_k a_k X_ik)². Returns undefined when the columns are (nearly)
 * linearly dependent on these rows: such a hypothesis has no unique coefficients.
 */
export function weightedLeastSquares(design: readonly number[][], y: readonly number[], weights: readonly number[]): LinearFit | undefined {
  const n = design.length;
  const m = design[0]?.length ?? 0;
  if (n < m || m === 0) return undefined;
  const scale = new Array<number>(m).fill(0);
  for (const row of design) for (let k = 0; k < m; k++) scale[k] = Math.max(scale[k], Math.abs(row[k]));
  if (scale.some((s) => !(s > 0) || !Number.isFinite(s))) return undefined;
  const a = design.map((row, i) => row.map((v, k) => (v / scale[k]) * Math.sqrt(weights[i])));
  const b = y.map((v, i) => v * Math.sqrt(weights[i]));
  for (let k = 0; k < m; k++) {
    let norm = 0;
    for (let i = k; i < n; i++) norm += a[i][k] * a[i][k];
    norm = Math.sqrt(norm);
    if (norm === 0) return undefined;
    const alpha = a[k][k] > 0 ? -norm : norm;
    const v = new Array<number>(n).fill(0);
    v[k] = a[k][k] - alpha;
    for (let i = k + 1; i < n; i++) v[i] = a[i][k];
    let vv = 0;
    for (let i = k; i < n; i++) vv += v[i] * v[i];
    if (vv === 0) continue;
    for (let j = k; j < m; j++) {
      let dot = 0;
      for (let i = k; i < n; i++) dot += v[i] * a[i][j];
      const f = (2 * dot) / vv;
      for (let i = k; i < n; i++) a[i][j] -= f * v[i];
    }
    let dot = 0;
    for (let i = k; i < n; i++) dot += v[i] * b[i];
    const f = (2 * dot) / vv;
    for (let i = k; i < n; i++) b[i] -= f * v[i];
  }
  const largest = Math.max(...a.slice(0, m).map((row, k) => Math.abs(row[k])));
  if (a.slice(0, m).some((row, k) => Math.abs(row[k]) <= RANK_TOLERANCE * largest)) return undefined;
  const scaled = new Array<number>(m).fill(0);
  for (let k = m - 1; k >= 0; k--) {
    let sum = b[k];
    for (let j = k + 1; j < m; j++) sum -= a[k][j] * scaled[j];
    scaled[k] = sum / a[k][k];
  }
  return {
    coefficients: scaled.map((c, k) => c / scale[k]),
    r: a.slice(0, m).map((row) => row.slice(0, m)),
    scale,
  };
}

/** xᵀ(AᵀWA)⁻¹x for a design row x: the leverage of a new point, from R by one triangular solve. */
export function leverage(fit: LinearFit, row: readonly number[]): number {
  const m = fit.r.length;
  const z = new Array<number>(m).fill(0);
  let sum = 0;
  for (let k = 0; k < m; k++) {
    let v = row[k] / fit.scale[k];
    for (let j = 0; j < k; j++) v -= fit.r[j][k] * z[j];
    z[k] = v / fit.r[k][k];
    sum += z[k] * z[k];
  }
  return sum;
}
