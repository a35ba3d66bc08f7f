// Ranks named in a prediction's notes. A master of 4,095 workers is "ranks 1–4095", not a
// paragraph of numbers: runs of four or more consecutive ranks read as ranges, and past a dozen
// items the rest are counted.

/** Consecutive ranks from this many on are written as a range. */
const RANGE_FROM = 4;
/** Items (ranks or ranges) written before the rest are counted. */
const ITEMS_SHOWN = 12;

/** `ranks` (any order, repeats ignored) as "0, 2, 4–9, 12", or "…, and 31 more" past ITEMS_SHOWN items. */
export function rankList(ranks: Iterable<number>): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const items: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    if (j - i + 1 >= RANGE_FROM) items.push(`${sorted[i]}–${sorted[j]}`);
    else for (let k = i; k <= j; k++) items.push(String(sorted[k]));
    i = j + 1;
  }
  if (items.length <= ITEMS_SHOWN) return items.join(', ');
  return `${items.slice(0, ITEMS_SHOWN).join(', ')}, and ${items.length - ITEMS_SHOWN} more`;
}

/** Per-rank factors: each one when few, else their range. */
export function factorList(factors: readonly number[]): string {
  if (factors.length <= ITEMS_SHOWN) return factors.map((f) => f.toFixed(3)).join(', ');
  return `${Math.min(...factors).toFixed(3)} to ${Math.max(...factors).toFixed(3)}`;
}
