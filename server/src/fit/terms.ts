// The basis functions a scaling model is a sum of (seed 003, eq. 2: y = Σ a_k X_k(x)).
//
// Extra-P's single-parameter search space (extrap/modelers/single_parameter/basic.py):
// x^i · log2(x)^j with i in EXPONENTS and j in 0..2, plus the two terms of seed 003 §3.3:
// (P−1)/P (the chance that a randomly placed datum is remote) and √P (partition
// boundaries of a 2-D block distribution), which is x^(1/2) here. The constant is not a
// term: every model has one.

export type Term = { kind: 'power'; num: number; den: number; log: number } | { kind: 'remote' };

/** Extra-P's exponents as fractions [num, den]. */
const EXPONENTS: readonly (readonly [number, number])[] = [
  [0, 1], [1, 4], [1, 3], [1, 2], [2, 3], [3, 4], [4, 5], [1, 1], [5, 4], [4, 3],
  [3, 2], [5, 3], [7, 4], [2, 1], [9, 4], [7, 3], [5, 2], [8, 3], [11, 4], [3, 1],
];

export const TERMS: readonly Term[] = [
  ...EXPONENTS.flatMap(([num, den]) => [0, 1, 2].map((log): Term => ({ kind: 'power', num, den, log }))).filter(
    (t) => t.kind !== 'power' || t.num !== 0 || t.log !== 0,
  ),
  { kind: 'remote' },
];

/**
 * The lower-order terms a model may add to its leading term: the vocabulary of seed 003's tables
 * (N³ + N² + N, N·log N + log N, √P, (P−1)/P). Any of TERMS can lead; a free choice for the
 * lower terms too lets a few points be fitted by sums such as P^(4/5) − P^(1/4)·log₂(P), which
 * pass cross-validation on five points and extrapolate badly.
 */
export const LOWER_ORDER_TERMS: readonly Term[] = [
  { kind: 'power', num: 3, den: 1, log: 0 },
  { kind: 'power', num: 2, den: 1, log: 0 },
  { kind: 'power', num: 1, den: 1, log: 1 },
  { kind: 'power', num: 1, den: 1, log: 0 },
  { kind: 'power', num: 1, den: 2, log: 0 },
  { kind: 'power', num: 0, den: 1, log: 1 },
  { kind: 'remote' },
];

/** Terms need x > 0 (logarithms, fractional powers, (x−1)/x). */
export function termValue(term: Term, x: number): number {
  if (term.kind === 'remote') return (x - 1) / x;
  const power = term.num === 0 ? 1 : x ** (term.num / term.den);
  return term.log === 0 ? power : power * Math.log2(x) ** term.log;
}

/** Asymptotic growth, for ordering a formula from the fastest-growing term down. */
export function termGrowth(term: Term): number {
  return term.kind === 'remote' ? -0.5 : term.num / term.den + term.log * 1e-3;
}

/**
 * For near-ties: a logarithm costs 1, a fractional exponent 2 (algorithms give N·log N more
 * often than N^(5/4), which fits the same few points as well).
 */
export function termComplexity(term: Term): number {
  return term.kind === 'remote' ? 1 : (term.den === 1 ? 0 : 2) + term.log;
}

export function termKey(term: Term): string {
  return term.kind === 'remote' ? 'remote' : `${term.num}/${term.den}:${term.log}`;
}

const SUPERSCRIPTS: Record<string, string> = { 2: '²', 3: '³' };

function powerLabel(num: number, den: number, v: string): string {
  if (num === 0) return '';
  if (den === 1) return num === 1 ? v : `${v}${SUPERSCRIPTS[num] ?? `^${num}`}`;
  if (num === 1 && den === 2) return `√${v}`;
  return `${v}^(${num}/${den})`;
}

/** "N³", "p·log₂(p)", "log₂²(N)", "√P", "N^(2/3)", "(P-1)/P". */
export function termLabel(term: Term, v: string): string {
  if (term.kind === 'remote') return `(${v}-1)/${v}`;
  const power = powerLabel(term.num, term.den, v);
  const log = term.log === 0 ? '' : term.log === 1 ? `log₂(${v})` : `log₂²(${v})`;
  return power && log ? `${power}·${log}` : power + log;
}
