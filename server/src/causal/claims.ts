// Words for curves: the one-line claim after a hot line, the lens title and the hover table.
// Every view formats through here so the editor, the tree and the CLI say the same thing.

import { CausalCurve, CurvePoint } from './curves';

export function percent(fraction: number, digits = 1): string {
  const value = (fraction * 100).toFixed(digits);
  return fraction > 0 && value !== (0).toFixed(digits) ? `+${value}%` : `${value}%`;
}

/** Half the width of a 95% interval, in percentage points, or '' when unknown. */
function plusMinus(point: CurvePoint): string {
  if (point.low === null || point.high === null) return '';
  return ` (±${(((point.high - point.low) / 2) * 100).toFixed(1)})`;
}

/**
 * The point to quote: the one whose lower bound is highest, i.e. the most defensible gain.
 * Points without an interval count with their estimate as the bound only when no point has one.
 */
export function bestSupportedPoint(curve: CausalCurve): CurvePoint | undefined {
  const candidates = curve.points.filter((p) => p.lineSpeedup > 0);
  if (candidates.length === 0) return undefined;
  const withInterval = candidates.filter((p) => p.low !== null);
  const pool = withInterval.length > 0 ? withInterval : candidates;
  let best = pool[0];
  for (const point of pool) {
    const bound = point.low ?? point.programSpeedup;
    const bestBound = best.low ?? best.programSpeedup;
    if (bound > bestBound) best = point;
  }
  return best;
}

/** e.g. `+9.8% program (±2.1) if 50% faster`, or why there is no claim yet. */
export function claimText(curve: CausalCurve): string {
  if (curve.status.kind === 'insufficient') return `collecting: ${curve.status.reason}`;
  const best = bestSupportedPoint(curve);
  if (!best) return 'no line speedups measured';
  if ((best.low ?? best.programSpeedup) <= 0) {
    const largest = curve.points[curve.points.length - 1];
    return `no gain shown: ${percent(largest.programSpeedup)} program${plusMinus(largest)} if ${percent(largest.lineSpeedup, 0).replace('+', '')} faster`;
  }
  return `${percent(best.programSpeedup)} program${plusMinus(best)} if ${percent(best.lineSpeedup, 0).replace('+', '')} faster`;
}

export function impactText(curve: CausalCurve): string {
  return `impact ${curve.impact.toFixed(3)} [${curve.impactLow.toFixed(3)}, ${curve.impactHigh.toFixed(3)}]`;
}

function intervalCell(point: CurvePoint): string {
  if (point.low === null || point.high === null) return 'n/a (1 experiment)';
  return `${percent(point.low)} … ${percent(point.high)}`;
}

/** A Markdown table of the curve, for hovers and tooltips. */
export function curveTable(curve: CausalCurve): string {
  const rows = curve.points.map(
    (p) =>
      `| ${percent(p.lineSpeedup, 0).replace('+', '')} | ${percent(p.programSpeedup)} | ${intervalCell(p)} | ${p.experiments} | ${p.visits} |`,
  );
  return [
    '| line speedup | program speedup | 95% interval | experiments | visits |',
    '|---:|---:|:---|---:|---:|',
    ...rows,
  ].join('\n');
}
