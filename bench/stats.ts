// Small helpers shared by the benches: percentiles, formatting, the default profile path.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repo root (bench files compile to out/bench/). */
export const repoRoot = path.resolve(__dirname, '..', '..');
export const DEFAULT_PROFILE = path.join(repoRoot, 'bench', 'data', 'large.coz');
export const MiB = 2 ** 20;
/** Rates and goals are in MB = 10^6 bytes, as the goals are written. */
export const MB = 1e6;

/** The q-quantile (0..1) by nearest rank of an ascending array. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function median(values: readonly number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** `--name value` from argv, or the fallback. */
export function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

/** What bench/vscode/activation.ts prints in the extension host, for bench/activation.ts to find. */
export const ACTIVATION_MARKER = 'causal-lens-bench activation: ';

/** One figure for the summary table (bench/report.ts). */
export interface Figure {
  /** Row label, e.g. "hover p99". */
  what: string;
  /** The figure as it should read in the table, e.g. "1.80 ms". */
  value: string;
  /** The goal, e.g. "< 20 ms"; empty for context figures. */
  goal?: string;
  /** Whether the goal is met; undefined for context figures. */
  met?: boolean;
}

/** Appends figures to $BENCH_RESULTS (JSON lines) when set, for bench/report.ts; a no-op otherwise. */
export function record(...figures: Figure[]): void {
  const file = process.env.BENCH_RESULTS;
  if (!file) return;
  fs.appendFileSync(file, figures.map((f) => JSON.stringify(f) + '\n').join(''));
}
