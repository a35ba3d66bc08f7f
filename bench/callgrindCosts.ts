/**
 * Callgrind's costs per machine instruction, summed per function, JIT-compiled JavaScript
 * included: callgrind names only the functions of files it can read, so the addresses of V8's
 * code are looked up in the map node writes with --perf-basic-prof (/tmp/perf-PID.map: start,
 * size and name per code object, hexadecimal). The file format is callgrind's
 * (https://valgrind.org/docs/manual/cl-format.html) as `--dump-instr=yes` writes it: `positions:
 * instr line`, each cost line an address (absolute `0x…`, relative `+n`/`-n`, or `*` for the same)
 * and a line, then the events in the `events:` order; the line after `calls=` is a call's inclusive
 * cost, counted where the callee is, so it is skipped here.
 */

/** A code object of the perf map. */
interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** Costs of one function: the events named in the file's `events:` line, in that order. */
export interface FunctionCosts {
  name: string;
  costs: number[];
}

export interface CallgrindCosts {
  /** The events' names, in the order of `totals` and FunctionCosts.costs: Ir, Dr, Dw, I1mr, D1mr, … */
  eventNames: string[];
  totals: number[];
  functions: FunctionCosts[];
}

/**
 * The perf map's code objects as disjoint ranges sorted by address; a line that is not `START SIZE
 * NAME` is skipped. V8 frees code and puts other code where it was: the map then holds both, and
 * an address is counted to the later (callgrind says which instruction, not when it ran; the later
 * code is what ran there at the end, usually the longer).
 */
export function parsePerfMap(text: string): CodeRange[] {
  let ranges: CodeRange[] = [];
  for (const line of text.split('\n')) {
    const match = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (.+)$/.exec(line);
    if (!match) continue;
    const start = parseInt(match[1], 16);
    const code = { start, end: start + parseInt(match[2], 16), name: match[3] };
    if (code.end <= code.start) continue;
    const overlaps = (r: CodeRange) => r.start < code.end && r.end > code.start;
    // Earlier code keeps only what lies outside the new code (rare: a few in thousands).
    if (ranges.some(overlaps)) {
      ranges = ranges.flatMap((r) => (r.end <= code.start || r.start >= code.end ? [r] : [...(r.start < code.start ? [{ ...r, end: code.start }] : []), ...(r.end > code.end ? [{ ...r, start: code.end }] : [])]));
    }
    ranges.push(code);
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The code object holding `address`, by binary search. */
function rangeAt(ranges: readonly CodeRange[], address: number): CodeRange | undefined {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (ranges[mid].start > address) high = mid - 1;
    else if (ranges[mid].end <= address) low = mid + 1;
    else return ranges[mid];
  }
  return undefined;
}

/** One position field: absolute, relative to the last, or the same. */
function position(field: string, last: number): number {
  if (field === '*') return last;
  if (field[0] === '+') return last + Number(field.slice(1));
  if (field[0] === '-') return last - Number(field.slice(1));
  return Number(field);
}

/**
 * Costs per function of a callgrind file written with `--dump-instr=yes`: JIT code named by
 * `ranges` (parsePerfMap), the rest by callgrind's own `fn=` names. Code objects of one name (a
 * function compiled again) are summed.
 */
export function callgrindCosts(text: string, ranges: readonly CodeRange[]): CallgrindCosts {
  let events: string[] = [];
  const byName = new Map<string, number[]>();
  const names = new Map<string, string>();
  let fn = '?';
  let address = 0;
  let skipNext = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('events:')) {
      events = line.slice(7).trim().split(/\s+/);
      continue;
    }
    if (line.startsWith('fn=') || line.startsWith('cfn=')) {
      // Names are compressed, callers' and callees' alike: `(id) name` the first time, `(id)` after.
      const match = /^c?fn=(\(\d+\))?\s*(.*)$/.exec(line)!;
      const id = match[1];
      if (id && match[2]) names.set(id, match[2]);
      if (line[0] === 'f') fn = (id ? names.get(id) : match[2]) ?? id ?? '?';
      continue;
    }
    if (line.startsWith('calls=')) {
      skipNext = true;
      continue;
    }
    if (!/^(0x[0-9a-fA-F]+|[+-]\d+|\*)\s/.test(line)) continue;
    const fields = line.split(/\s+/);
    address = position(fields[0], address);
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const name = rangeAt(ranges, address)?.name ?? fn;
    let costs = byName.get(name);
    if (!costs) byName.set(name, (costs = new Array(events.length).fill(0)));
    // fields[1] is the line; a missing trailing cost is 0.
    for (let i = 2; i < fields.length && i - 2 < costs.length; i++) if (fields[i] !== '') costs[i - 2] += Number(fields[i]);
  }
  const functions = [...byName].map(([name, costs]) => ({ name, costs }));
  const totals = events.map((_, i) => functions.reduce((sum, f) => sum + f.costs[i], 0));
  return { eventNames: events, totals, functions };
}
