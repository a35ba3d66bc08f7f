// The text mutations every parser's fuzz test applies (truncation, flipped bytes, deleted,
// duplicated and swapped lines, garbage, odd numbers, unicode, an empty file), with each
// format's own garbage and odd numbers. Seeded by the caller's generator.

export type Random = () => number;
export type Mutation = (text: string, random: Random) => string;

export const pick = <T>(items: readonly T[], random: Random): T => items[Math.floor(random() * items.length)];

/** A position in `text`, both ends included. */
export const at = (text: string, random: Random): number => Math.floor(random() * (text.length + 1));

function editLines(text: string, random: Random, edit: (lines: string[], i: number) => void): string {
  const lines = text.split('\n');
  edit(lines, Math.floor(random() * lines.length));
  return lines.join('\n');
}

/** Replaces one random run of digits in the text. */
function replaceNumber(text: string, random: Random, replacement: string): string {
  const runs = [...text.matchAll(/-?\d+(\.\d+)?/g)];
  if (runs.length === 0) return text;
  const run = pick(runs, random);
  return text.slice(0, run.index) + replacement + text.slice(run.index! + run[0].length);
}

const UNICODE = ['é', 'プロ', '😀', '\ud800', '\udfff', '\u2028', '\ufeff', '\u0000', 'Ω'];

export interface FormatNoise {
  /** Fragments of the format inserted at random places (1 to 5 of them). */
  garbage: readonly string[];
  /** What replaces a number. */
  oddNumbers: readonly string[];
}

export function textMutations(noise: FormatNoise): Record<string, Mutation> {
  return {
    truncate: (text, r) => text.slice(0, at(text, r)),
    flipBytes: (text, r) => {
      const bytes = new TextEncoder().encode(text);
      for (let n = 1 + Math.floor(r() * 8); n > 0 && bytes.length > 0; n--) bytes[Math.floor(r() * bytes.length)] ^= 1 << Math.floor(r() * 8);
      return new TextDecoder().decode(bytes);
    },
    deleteLine: (text, r) => editLines(text, r, (lines, i) => lines.splice(i, 1)),
    duplicateLine: (text, r) => editLines(text, r, (lines, i) => lines.splice(i, 0, lines[i])),
    swapLines: (text, r) =>
      editLines(text, r, (lines, i) => {
        const j = Math.floor(r() * lines.length);
        [lines[i], lines[j]] = [lines[j], lines[i]];
      }),
    insertGarbage: (text, r) => {
      const p = at(text, r);
      let garbage = '';
      for (let n = 1 + Math.floor(r() * 5); n > 0; n--) garbage += pick(noise.garbage, r);
      return text.slice(0, p) + garbage + text.slice(p);
    },
    oddNumber: (text, r) => replaceNumber(text, r, pick(noise.oddNumbers, r)),
    unicode: (text, r) => {
      const p = at(text, r);
      return text.slice(0, p) + pick(UNICODE, r) + text.slice(p);
    },
    empty: () => '',
  };
}

/**
 * One fuzz case: a random source with 1 to 3 random mutations applied, and a label that names
 * the seed, the source and the mutations so a failure can be replayed.
 */
export function mutatedCase(
  sources: readonly { name: string; text: string }[],
  mutations: Record<string, Mutation>,
  random: Random,
  n: number,
  seed: number,
): { source: { name: string; text: string }; text: string; label: string } {
  const names = Object.keys(mutations);
  const source = pick(sources, random);
  const applied: string[] = [];
  let text = source.text;
  for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
    const name = pick(names, random);
    applied.push(name);
    text = mutations[name](text, random);
  }
  return { source, text, label: `case ${n} (seed ${seed}): ${source.name} with ${applied.join(', ')}` };
}
