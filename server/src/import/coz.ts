// Importer for COZ and BCOZ causal profiles (profile.coz, profile.jsonl).
//
// Where the format is defined (there is no spec beyond the code):
//  - plasma-umass/coz libcoz/profiler.cpp (`profiler_thread`, `log_samples`) writes
//    startup / experiment / runtime / samples; libcoz/progress_point.h writes
//    throughput-point and latency-point. Tag 0.2.2 writes TSV (`type<TAB>key=value…`);
//    0.2.4/v0.2.5 write JSON Lines with `throughput_point`/`latency_point`; HEAD writes
//    JSON Lines with `throughput-point`/`latency-point`. Every generation writes
//    `selected_samples` in JSON and `selected-samples` in TSV.
//  - plasma-umass/coz viewer/ts/profile.ts (`parseLine`, the Profile constructor) is
//    the reference reader: `{` starts a JSON line, and the 2014-15 sample profiles use
//    `progress-point name=… type=source delta=N` plus `shutdown` records.
//  - s3yonsei/blocked_samples bcoz/libcoz/profiler.cpp (BCOZ) writes the same TSV with
//    `selected=IO|LOCK|SCHEDULING|BLOCKED|OFF_CPU|ON_CPU`, an optional
//    `(IO,0.25%|)` / `(c_heavy,0.50%|)` suffix on `selected`, and a `delay=` field.
//  - ROCm/omnitrace writes the TSV too, with function names as `selected` in its
//    function mode; JCoz writes experiments without `selected-samples`.
//
// Quirks handled (each explained where it is handled): appended runs with `startup` as
// the only boundary; mid-run `runtime` values that are not run lengths; cumulative
// `samples` blocks; size_t-underflowed durations; experiments on coz.h; partial last
// lines of a profile still being written; unknown keys and record types.

import type { LineSink } from './index';
import {
  BLOCKED_CLASSES,
  BasedOn,
  BlockedClass,
  CausalTarget,
  Experiment,
  PointMeasurement,
  Profile,
  ProfileProblem,
  ProfileRun,
  emptySkipCounts,
  splitLocation,
} from '../model/profile';

/** Per-line problems listed individually per file; the rest are summarised in one problem. */
const MAX_LISTED_PROBLEMS = 100;
/** Distinct unknown record types reported by name; further ones are lumped together. */
const MAX_UNKNOWN_TYPES = 20;
/**
 * Any digit string >= 2^63 parses to >= 2^63, but so do the strings down to 2^63 - 512:
 * past this value the digits decide.
 */
const TWO_TO_63 = 2 ** 63;
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

const STARTUP = 0;
const EXPERIMENT = 1;
const THROUGHPUT = 2;
const LATENCY = 3;
const RUNTIME = 4;
const SAMPLES = 5;
const SHUTDOWN = 6;
const UNKNOWN = -1;

/** Whether `text` holds `name` at `start` (a plain loop: faster than startsWith for short names). */
function isAt(text: string, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false;
  return true;
}

/** Record type of `text[start, start+length)`; both `-` and `_` spellings of the point types. */
function recordKind(text: string, start: number, length: number): number {
  switch (length) {
    case 7:
      if (isAt(text, start, 'samples')) return SAMPLES;
      if (isAt(text, start, 'startup')) return STARTUP;
      return isAt(text, start, 'runtime') ? RUNTIME : UNKNOWN;
    case 8:
      return isAt(text, start, 'shutdown') ? SHUTDOWN : UNKNOWN;
    case 10:
      return isAt(text, start, 'experiment') ? EXPERIMENT : UNKNOWN;
    case 13:
      return isAt(text, start, 'latency-point') || isAt(text, start, 'latency_point') ? LATENCY : UNKNOWN;
    case 14:
      // G0 (2014-15) name of a throughput point.
      return isAt(text, start, 'progress-point') ? THROUGHPUT : UNKNOWN;
    case 16:
      return isAt(text, start, 'throughput-point') || isAt(text, start, 'throughput_point') ? THROUGHPUT : UNKNOWN;
    default:
      return UNKNOWN;
  }
}

/** True when a first line of a file looks like a COZ/BCOZ record (used by the sniffer). */
export function looksLikeCozLine(line: string): boolean {
  if (line.charCodeAt(0) === 123 /* { */) {
    // A JSON line: find "type":"…" without parsing (the line may be cut off).
    const match = /"type"\s*:\s*"([a-z_-]+)"/.exec(line);
    return match !== null && recordKind(match[1], 0, match[1].length) !== UNKNOWN;
  }
  let typeEnd = line.indexOf('\t');
  if (typeEnd < 0) typeEnd = line.length;
  return recordKind(line, 0, typeEnd) !== UNKNOWN;
}

/**
 * Parses a decimal number in `text[start, end)` without allocating. Accepts what COZ
 * writes (`-`, digits, one `.`); exponents go through Number(). NaN when not a number.
 */
export function parseDecimal(text: string, start: number, end: number): number {
  let i = start;
  let negative = false;
  if (i < end && text.charCodeAt(i) === 45 /* - */) {
    negative = true;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let seenDot = false;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (seenDot) fractionDigits++;
    } else if (c === 46 /* . */ && !seenDot) {
      seenDot = true;
    } else {
      return parseDecimalSlow(text.slice(start, end));
    }
  }
  if (digits === 0) return NaN;
  // Up to 15 digits the mantissa and 10^k are exact, so one division rounds exactly
  // like Number() would; longer numbers (startup times) take the slow path.
  if (digits > 15) return parseDecimalSlow(text.slice(start, end));
  const value = fractionDigits === 0 ? mantissa : mantissa / POWERS_OF_TEN[fractionDigits];
  return negative ? -value : value;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
function parseDecimalSlow(text: string): number {
  return DECIMAL.test(text) ? Number(text) : NaN;
}

/** Exact test of a decimal digit string against 2^63, where a double cannot tell. */
function digitsAtLeast2p63(text: string, start: number, end: number): boolean {
  let i = start;
  if (i < end && text.charCodeAt(i) === 45) return false;
  while (i < end && text.charCodeAt(i) === 48) i++;
  let intEnd = i;
  while (intEnd < end && text.charCodeAt(intEnd) >= 48 && text.charCodeAt(intEnd) <= 57) intEnd++;
  const length = intEnd - i;
  if (length !== 19) return length > 19;
  return text.slice(i, intEnd) >= '9223372036854775808';
}

/** Field names, as TSV spells them; JSON Lines spell every `-` as `_`. */
const KEY_NAMES = [
  'selected', 'speedup', 'duration', 'selected-samples', 'delay', 'based-target', 'based-speedup',
  'name', 'delta', 'arrivals', 'departures', 'difference', 'time', 'location', 'count',
] as const;
const JSON_KEY_NAMES = KEY_NAMES.map((name) => name.replace(/-/g, '_'));
/** Index into KEY_NAMES. */
type Key = number;
const K = Object.fromEntries(KEY_NAMES.map((name, id) => [name, id])) as Record<(typeof KEY_NAMES)[number], Key>;
/** Key ids by name length, to identify a TSV key with one or two comparisons. */
const KEYS_BY_LENGTH: Key[][] = [];
KEY_NAMES.forEach((name, id) => (KEYS_BY_LENGTH[name.length] ??= []).push(id));
const KEY_FIRST_CHARS = KEY_NAMES.map((name) => name.charCodeAt(0));

/** How many trailing characters of a value the Interner hashes. */
const HASHED_TAIL = 12;

/** Whether `text[start, start + name.length)` is `name`, where `-` and `_` match each other. */
function keyMatches(text: string, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const a = text.charCodeAt(start + i);
    const b = name.charCodeAt(i);
    if (a !== b && !(b === 45 && a === 95)) return false;
  }
  return true;
}

/**
 * One copy of each distinct string: a profile repeats a few paths and point names
 * millions of times. A stored copy is detached from the (large) chunk it was cut
 * from, which it would otherwise keep alive.
 */
class Interner {
  private readonly byHash = new Map<number, string>();
  private readonly byValue = new Map<string, string>();

  range(text: string, start: number, end: number): string {
    // Hashing only the tail is enough to tell apart `path:line`s and point names
    // cheaply; a collision costs a slower lookup, never a wrong string.
    let hash = end - start;
    for (let i = Math.max(start, end - HASHED_TAIL); i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    const hit = this.byHash.get(hash);
    // Cutting the value out and comparing with === (a memcmp) beats a charCodeAt loop.
    const slice = text.slice(start, end);
    if (hit === slice) return hit;
    const value = this.string(slice);
    if (hit === undefined) this.byHash.set(hash, value);
    return value;
  }

  string(value: string): string {
    let copy = this.byValue.get(value);
    if (copy === undefined) {
      copy = detached(value);
      this.byValue.set(copy, copy);
    }
    return copy;
  }
}

/**
 * A copy of `text` that shares no memory with the string it was cut from (V8 keeps
 * substrings as views into their parent): slicing a concatenation slices its
 * flattened copy instead.
 */
function detached(text: string): string {
  return (' ' + text).slice(1);
}

/** One record's fields, read the same way from a TSV line and from a JSON object. */
interface RecordFields {
  /** The string value, interned; undefined when absent. */
  str(key: Key): string | undefined;
  /** The numeric value; undefined when absent, NaN when not a number. */
  num(key: Key): number | undefined;
  /** The value as written, for messages; undefined when absent. */
  raw(key: Key): string | undefined;
  /** Whether the value, which parsed to >= 2^63, really is (as written). */
  atLeast2p63(key: Key): boolean;
}

/**
 * Finds the next occurrence of a character with indexOf, remembering it: lines are
 * scanned in order, so a hit beyond the current line serves the lines after it, and
 * no character is searched twice. (A fresh indexOf per line would rescan the rest of
 * the chunk for every line that lacks the character: quadratic on a tab-less file.)
 */
class CharFinder {
  private text = '';
  /** The last search: no `char` in text[searchedFrom, found). */
  private searchedFrom = 0;
  private found = -1;

  constructor(private readonly char: string) {}

  /** Index of the first `char` at or after `from`, or text.length. */
  next(text: string, from: number): number {
    // === compares contents, not identity, which is enough: equal contents have equal positions.
    if (from < this.searchedFrom || from > this.found || text !== this.text) {
      const index = text.indexOf(this.char, from);
      this.text = text;
      this.searchedFrom = from;
      this.found = index < 0 ? text.length : index;
    }
    return this.found;
  }
}

/** Fields of a TSV record as offsets into the line: nothing is cut out until it is used. */
class TsvFields implements RecordFields {
  readonly tabs = new CharFinder('\t');
  private readonly equalSigns = new CharFinder('=');
  private text = '';
  /** Per key id: where its value starts and ends, valid while `present[id] === this.record`. */
  private readonly valueStart = new Int32Array(KEY_NAMES.length);
  private readonly valueEnd = new Int32Array(KEY_NAMES.length);
  private readonly present = new Int32Array(KEY_NAMES.length);
  private record = 0;

  constructor(private readonly interner: Interner) {}

  /**
   * Scans the `key=value` fields after the type. Fields without `=` and unknown
   * keys are ignored, as COZ's viewer does; of a repeated key the last one counts.
   */
  reset(text: string, fieldsStart: number, end: number): void {
    this.text = text;
    if (++this.record === 0x7fffffff) {
      this.present.fill(0);
      this.record = 1;
    }
    let pos = fieldsStart;
    while (pos < end) {
      const tab = Math.min(this.tabs.next(text, pos), end);
      const eq = this.equalSigns.next(text, pos);
      if (eq < tab) {
        const candidates = KEYS_BY_LENGTH[eq - pos];
        if (candidates !== undefined) {
          const first = text.charCodeAt(pos);
          for (const id of candidates) {
            if (first !== KEY_FIRST_CHARS[id] || !keyMatches(text, pos, KEY_NAMES[id])) continue;
            this.valueStart[id] = eq + 1;
            this.valueEnd[id] = tab;
            this.present[id] = this.record;
            break;
          }
        }
      }
      pos = tab + 1;
    }
  }

  str(key: Key): string | undefined {
    if (this.present[key] !== this.record) return undefined;
    return this.interner.range(this.text, this.valueStart[key], this.valueEnd[key]);
  }

  num(key: Key): number | undefined {
    if (this.present[key] !== this.record) return undefined;
    return parseDecimal(this.text, this.valueStart[key], this.valueEnd[key]);
  }

  raw(key: Key): string | undefined {
    if (this.present[key] !== this.record) return undefined;
    return this.text.slice(this.valueStart[key], this.valueEnd[key]);
  }

  atLeast2p63(key: Key): boolean {
    return this.present[key] === this.record && digitsAtLeast2p63(this.text, this.valueStart[key], this.valueEnd[key]);
  }
}

/** Fields of a JSON Lines record; a key is found under either spelling. */
class JsonFields implements RecordFields {
  record: Record<string, unknown> = {};

  constructor(private readonly interner: Interner) {}

  private get(key: Key): unknown {
    const value = this.record[JSON_KEY_NAMES[key]];
    return value !== undefined ? value : this.record[KEY_NAMES[key]];
  }

  str(key: Key): string | undefined {
    const value = this.get(key);
    if (typeof value === 'string') return this.interner.string(value);
    return typeof value === 'number' ? String(value) : undefined;
  }

  num(key: Key): number | undefined {
    const value = this.get(key);
    if (value === undefined) return undefined;
    if (typeof value === 'number') return value;
    return typeof value === 'string' ? parseDecimal(value, 0, value.length) : NaN;
  }

  raw(key: Key): string | undefined {
    const value = this.get(key);
    return value === undefined ? undefined : typeof value === 'string' ? value : String(JSON.stringify(value));
  }

  atLeast2p63(key: Key): boolean {
    const value = this.get(key);
    // JSON.parse has already rounded the digits, so only a string value can be exact.
    if (typeof value === 'string') return digitsAtLeast2p63(value, 0, value.length);
    return typeof value === 'number' && value >= TWO_TO_63;
  }
}

/** Why an experiment (and the point records after it) was left out. */
type DropReason = 'durationUnderflow' | 'cozHeader' | 'malformed';

/** A count with the line of its first occurrence, for one summary problem. */
interface Tally {
  count: number;
  firstLine: number;
}
function tally(): Tally {
  return { count: 0, firstLine: 0 };
}
function bump(t: Tally, line: number): void {
  if (t.count++ === 0) t.firstLine = line;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Reads the BCOZ relational suffix `(what,0.25%|)` at the end of `selected`, if any. */
function splitBasedSuffix(selected: string): { base: string; based?: BasedOn } {
  if (!selected.endsWith('%|)')) return { base: selected };
  const open = selected.lastIndexOf('(');
  const comma = selected.lastIndexOf(',');
  if (open <= 0 || comma <= open + 1) return { base: selected };
  const value = parseDecimal(selected, comma + 1, selected.length - 3);
  if (!(value >= 0 && value <= 100)) return { base: selected };
  // BCOZ prints the based speedup as a fraction followed by `%` (`0.25%` = 25%);
  // the COZ fork that merged BCOZ prints real percent (`25.00%`). Speedups are
  // multiples of 5%, so a value above 1 can only be real percent.
  const speedup = value > 1 ? value / 100 : value;
  return { base: selected.slice(0, open), based: { what: selected.slice(open + 1, comma), speedup } };
}

function isBlockedClass(name: string): name is BlockedClass {
  return (BLOCKED_CLASSES as readonly string[]).includes(name);
}

/** What an experiment's `selected` string names: a line, a BCOZ blocked class, or a function. */
export function parseTarget(selected: string): CausalTarget {
  const { base, based } = splitBasedSuffix(selected);
  const withBased = <T extends CausalTarget>(target: T): T => (based ? { ...target, based } : target);
  if (isBlockedClass(base)) return withBased({ kind: 'blocked', blockedClass: base });
  const location = splitLocation(base);
  if (location) return withBased({ kind: 'line', path: location.path, line: location.line });
  // Omnitrace's function mode names a function, not `path:line`.
  return withBased({ kind: 'function', name: base });
}

/** A parsed `selected` string, cached: a profile names few distinct lines. */
interface Selection {
  target: CausalTarget;
  /** On COZ's own header, which COZ's viewer drops. */
  onCozHeader: boolean;
}

/**
 * Builds a Profile from COZ/BCOZ lines handed over one at a time (any generation,
 * TSV and JSON mixed). Never throws on content: every skipped record is counted in
 * `skipped` and explained in `problems`.
 */
export class CozParser implements LineSink {
  private readonly runs: ProfileRun[] = [];
  private readonly experiments: Experiment[] = [];
  private readonly problems: ProfileProblem[] = [];
  private readonly skipped = emptySkipCounts();

  /** The experiment that point records attach to. */
  private current: Experiment | undefined;
  /** Set when the last experiment of the run was left out: its point records go too. */
  private droppedReason: DropReason | undefined;
  /** True while consecutive `samples` records form one block. */
  private inSamplesBlock = false;
  /**
   * The latest samples block of the current run; it becomes the run's `samples` when
   * the run ends. (Arrays, refilled per block: cheaper than a Map per block.)
   */
  private readonly blockLocations: string[] = [];
  private readonly blockCounts: number[] = [];

  private readonly interner = new Interner();
  private readonly tsv = new TsvFields(this.interner);
  private readonly json = new JsonFields(this.interner);
  private readonly selections = new Map<string, Selection>();

  private readonly underflow = tally();
  private readonly cozHeader = tally();
  private readonly orphans = tally();
  /** Point records left out with the experiment before them, by the experiment's reason. */
  private readonly pointsDropped = { durationUnderflow: tally(), cozHeader: tally(), malformed: tally() };
  private readonly unknownTypes = new Map<string, Tally>();
  private readonly unlisted = { count: 0, firstLine: 0, errors: 0 };
  private truncatedLine = 0;

  /** The line being parsed, and whether it is a last line with no newline. */
  private lineNo = 0;
  private unterminated = false;

  constructor(private readonly source: string) {}

  line(text: string, start: number, end: number, lineNo: number, unterminated: boolean): void {
    this.lineNo = lineNo;
    this.unterminated = unterminated;
    // Blank lines carry nothing (Omnitrace leaves them between runs).
    let first = start;
    while (first < end && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9)) first++;
    if (first === end) return;
    if (text.charCodeAt(first) === 123 /* { */) {
      this.jsonLine(text.slice(first, end));
      return;
    }
    const typeEnd = Math.min(this.tsv.tabs.next(text, first), end);
    const kind = recordKind(text, first, typeEnd - first);
    if (kind === UNKNOWN) {
      this.unknownRecord(text.slice(first, typeEnd));
      return;
    }
    this.tsv.reset(text, typeEnd + 1, end);
    this.record(kind, this.tsv);
  }

  private jsonLine(line: string): void {
    let value: unknown;
    try {
      // A cut-off line fails fast here instead of by a (slow) exception.
      value = line.trimEnd().endsWith('}') ? JSON.parse(line) : undefined;
    } catch {
      value = undefined;
    }
    if (value === undefined) {
      return this.malformed('not valid JSON; expected one JSON object per line, e.g. {"type":"experiment",…}');
    }
    const type = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).type : undefined;
    if (typeof type !== 'string') return this.malformed('expected a JSON object with a string "type" field');
    const kind = recordKind(type, 0, type.length);
    if (kind === UNKNOWN) return this.unknownRecord(type);
    this.json.record = value as Record<string, unknown>;
    this.record(kind, this.json);
  }

  private record(kind: number, fields: RecordFields): void {
    switch (kind) {
      case STARTUP:
        return this.startup(fields);
      case EXPERIMENT:
        return this.experiment(fields);
      case THROUGHPUT:
      case LATENCY:
        return this.point(kind, fields);
      case RUNTIME:
        return this.runtime(fields);
      case SAMPLES:
        return this.samples(fields);
      case SHUTDOWN:
        // G0 only; no viewer reads it. It still ends a samples block.
        this.inSamplesBlock = false;
        return;
    }
  }

  private startup(fields: RecordFields): void {
    const time = fields.num(K.time);
    const timeOk = time !== undefined && Number.isFinite(time);
    if (!timeOk && this.unterminated) return this.truncated();
    // `startup` is the only run boundary, so it starts a run even without a valid time.
    this.endRun();
    this.runs.push({ startTimeNs: timeOk ? time : undefined, runtimeNs: undefined, samples: new Map() });
    this.current = undefined;
    this.droppedReason = undefined;
    this.inSamplesBlock = false;
    if (!timeOk) {
      this.problem('warning', `startup has ${this.describe(fields, K.time)}; expected time=<ns>. The run starts here, without a start time`);
    }
  }

  /** The run records belong to; a file that does not begin with `startup` gets an implicit run 0. */
  private run(): ProfileRun {
    if (this.runs.length === 0) this.runs.push({ startTimeNs: undefined, runtimeNs: undefined, samples: new Map() });
    return this.runs[this.runs.length - 1];
  }

  private experiment(fields: RecordFields): void {
    this.current = undefined;
    this.droppedReason = 'malformed';
    this.inSamplesBlock = false;

    const selected = fields.str(K.selected);
    if (selected === undefined || selected === '') {
      return this.malformed(`experiment has ${this.describe(fields, K.selected)}; expected selected=<file:line>`);
    }
    const speedup = fields.num(K.speedup);
    if (speedup === undefined || !(speedup >= 0 && speedup <= 1)) {
      return this.malformed(`experiment has ${this.describe(fields, K.speedup)}; expected speedup=<fraction 0..1>`);
    }
    const duration = fields.num(K.duration);
    // COZ keeps `duration` in a size_t: elapsed minus inserted delay below zero wraps
    // around to >= 2^63. (BCOZ's signed duration would be negative instead.)
    const wrapped = duration !== undefined && duration >= TWO_TO_63 && fields.atLeast2p63(K.duration);
    if (duration === undefined || !(Number.isFinite(duration) || wrapped)) {
      return this.malformed(`experiment has ${this.describe(fields, K.duration)}; expected duration=<ns>`);
    }
    // JCoz writes no selected-samples, and no viewer reads it, so it may be missing.
    const selectedSamples = fields.num(K['selected-samples']) ?? 0;
    if (!Number.isFinite(selectedSamples)) {
      return this.malformed(`experiment has ${this.describe(fields, K['selected-samples'])}; expected selected-samples=<count>`);
    }
    const delay = fields.num(K.delay);
    if (delay !== undefined && !Number.isFinite(delay)) {
      return this.malformed(`experiment has ${this.describe(fields, K.delay)}; expected delay=<ns> (BCOZ)`);
    }

    this.run();
    if (wrapped || duration < 0) {
      this.droppedReason = 'durationUnderflow';
      this.skipped.durationUnderflow++;
      bump(this.underflow, this.lineNo);
      return;
    }
    const selection = this.selection(selected);
    if (selection.onCozHeader) {
      this.droppedReason = 'cozHeader';
      this.skipped.cozHeader++;
      bump(this.cozHeader, this.lineNo);
      return;
    }

    const experiment: Experiment = {
      selected,
      target: fields === this.json ? this.jsonTarget(selection.target, this.json) : selection.target,
      speedup,
      durationNs: duration,
      selectedSamples,
      points: [],
      run: this.runs.length - 1,
      recordLine: this.lineNo,
    };
    if (delay !== undefined) experiment.delayNs = delay;
    this.experiments.push(experiment);
    this.current = experiment;
    this.droppedReason = undefined;
  }

  private selection(selected: string): Selection {
    let selection = this.selections.get(selected);
    if (selection === undefined) {
      selection = { target: parseTarget(selected), onCozHeader: selected.includes('/coz.h:') };
      this.selections.set(selected, selection);
    }
    return selection;
  }

  /** The COZ fork that merged BCOZ writes the relation as JSON fields, not as a suffix. */
  private jsonTarget(target: CausalTarget, fields: JsonFields): CausalTarget {
    const what = fields.str(K['based-target']);
    const speedup = fields.num(K['based-speedup']);
    if (what === undefined || speedup === undefined || !(speedup >= 0 && speedup <= 1)) return target;
    return { ...target, based: { what, speedup } };
  }

  private point(kind: number, fields: RecordFields): void {
    this.inSamplesBlock = false;
    const name = fields.str(K.name);
    if (name === undefined) {
      return this.malformed(`${kind === THROUGHPUT ? 'throughput' : 'latency'} point has no \`name\`; expected name=<progress point>`);
    }
    let measurement: PointMeasurement;
    if (kind === THROUGHPUT) {
      const delta = fields.num(K.delta);
      if (delta === undefined || !Number.isFinite(delta)) {
        return this.malformed(`throughput point has ${this.describe(fields, K.delta)}; expected delta=<visits>`);
      }
      measurement = { kind: 'throughput', name, delta };
    } else {
      const arrivals = fields.num(K.arrivals);
      const departures = fields.num(K.departures);
      const difference = fields.num(K.difference);
      for (const key of [K.arrivals, K.departures, K.difference]) {
        const value = fields.num(key);
        if (value === undefined || !Number.isFinite(value)) {
          return this.malformed(`latency point has ${this.describe(fields, key)}; expected ${KEY_NAMES[key]}=<count>`);
        }
      }
      measurement = { kind: 'latency', name, arrivals: arrivals!, departures: departures!, difference: difference! };
    }
    this.run();
    const experiment = this.current;
    if (experiment) {
      // Nearly every experiment has one point: an exact one-element array saves the
      // spare capacity a push onto [] would reserve.
      if (experiment.points.length === 0) experiment.points = [measurement];
      else experiment.points.push(measurement);
    } else if (this.droppedReason) {
      bump(this.pointsDropped[this.droppedReason], this.lineNo);
    } else {
      this.skipped.orphanPoints++;
      bump(this.orphans, this.lineNo);
    }
  }

  private runtime(fields: RecordFields): void {
    this.inSamplesBlock = false;
    const time = fields.num(K.time);
    if (time === undefined || !Number.isFinite(time)) {
      return this.malformed(`runtime has ${this.describe(fields, K.time)}; expected time=<ns>`);
    }
    // Mid-run `runtime` values are ns since the current experiment began (a shadowed
    // start_time in COZ); only the last one of a run is its length, so keep overwriting.
    this.run().runtimeNs = time;
  }

  private samples(fields: RecordFields): void {
    const location = fields.str(K.location);
    if (location === undefined) return this.malformed('samples record has no `location`; expected location=<file:line>');
    const count = fields.num(K.count);
    if (count === undefined || !Number.isFinite(count)) {
      return this.malformed(`samples record has ${this.describe(fields, K.count)}; expected count=<samples>`);
    }
    this.run();
    // Counts are cumulative since the process started: each block replaces the one before.
    if (!this.inSamplesBlock) {
      this.blockLocations.length = 0;
      this.blockCounts.length = 0;
      this.inSamplesBlock = true;
    }
    this.blockLocations.push(location);
    this.blockCounts.push(count);
  }

  /** Gives the current run (if any) its last samples block. */
  private endRun(): void {
    const run = this.runs[this.runs.length - 1];
    if (run === undefined) return;
    for (let i = 0; i < this.blockLocations.length; i++) run.samples.set(this.blockLocations[i], this.blockCounts[i]);
    this.blockLocations.length = 0;
    this.blockCounts.length = 0;
  }

  private unknownRecord(type: string): void {
    // An identifier-like type is a record from a newer or foreign writer; anything
    // else is not a record at all.
    if (!/^[A-Za-z][\w-]{0,39}$/.test(type)) {
      return this.malformed('not a COZ record; expected `<type>\\t<key>=<value>…` or a JSON object');
    }
    if (this.unterminated) return this.truncated();
    this.skipped.malformed++;
    const name = this.unknownTypes.has(type) || this.unknownTypes.size < MAX_UNKNOWN_TYPES ? this.interner.string(type) : '';
    let entry = this.unknownTypes.get(name);
    if (entry === undefined) this.unknownTypes.set(name, (entry = tally()));
    bump(entry, this.lineNo);
  }

  /** "no `duration`" or "`duration=abc`", for messages. */
  private describe(fields: RecordFields, key: Key): string {
    const raw = fields.raw(key);
    if (raw === undefined) return `no \`${KEY_NAMES[key]}\``;
    return `\`${KEY_NAMES[key]}=${raw.length > 40 ? raw.slice(0, 40) + '…' : raw}\``;
  }

  private malformed(message: string): void {
    if (this.unterminated) return this.truncated();
    this.skipped.malformed++;
    this.problem('error', message);
  }

  private truncated(): void {
    this.skipped.truncatedTail++;
    this.truncatedLine = this.lineNo;
  }

  private problem(severity: ProfileProblem['severity'], message: string): void {
    if (this.problems.length < MAX_LISTED_PROBLEMS) {
      // Messages quote the line; they must not keep its whole chunk alive.
      this.problems.push({ file: this.source, line: this.lineNo, severity, message: detached(message) });
      return;
    }
    if (this.unlisted.count++ === 0) this.unlisted.firstLine = this.lineNo;
    if (severity === 'error') this.unlisted.errors++;
  }

  finish(lineCount: number): Profile {
    this.endRun();
    const summary = (severity: ProfileProblem['severity'], line: number, message: string) =>
      this.problems.push({ file: this.source, line, severity, message });
    const andPoints = (experiments: Tally, points: Tally) =>
      points.count === 0 ? '' : ` and the ${plural(points.count, 'point record')} after ${experiments.count === 1 ? 'it' : 'them'}`;

    if (this.unlisted.count > 0) {
      summary(this.unlisted.errors > 0 ? 'error' : 'warning', this.unlisted.firstLine,
        `${plural(this.unlisted.count, 'more problem')} not listed (first at line ${this.unlisted.firstLine})`);
    }
    if (this.underflow.count > 0) {
      summary('warning', this.underflow.firstLine,
        `skipped ${plural(this.underflow.count, 'experiment')}${andPoints(this.underflow, this.pointsDropped.durationUnderflow)}: ` +
          `duration of 2^63 ns or more, or negative (a size_t underflow in COZ); first at line ${this.underflow.firstLine}`);
    }
    if (this.cozHeader.count > 0) {
      summary('warning', this.cozHeader.firstLine,
        `skipped ${plural(this.cozHeader.count, 'experiment')}${andPoints(this.cozHeader, this.pointsDropped.cozHeader)} on coz.h itself, ` +
          `as COZ's viewer does; first at line ${this.cozHeader.firstLine}`);
    }
    const afterMalformed = this.pointsDropped.malformed;
    if (afterMalformed.count > 0) {
      summary('warning', afterMalformed.firstLine,
        `skipped ${plural(afterMalformed.count, 'point record')} after unreadable experiment records; first at line ${afterMalformed.firstLine}`);
    }
    if (this.orphans.count > 0) {
      summary('warning', this.orphans.firstLine,
        `skipped ${plural(this.orphans.count, 'point record')} with no experiment before ${this.orphans.count === 1 ? 'it' : 'them'} in the run; first at line ${this.orphans.firstLine}`);
    }
    for (const [type, entry] of this.unknownTypes) {
      const what = type === '' ? 'of further unknown types' : `of unknown type \`${type}\``;
      summary('warning', entry.firstLine, `skipped ${plural(entry.count, 'record')} ${what}; first at line ${entry.firstLine}`);
    }
    if (this.skipped.truncatedTail > 0) {
      summary('warning', this.truncatedLine, 'partial last line (COZ may still be writing); skipped');
    }
    if (this.experiments.length === 0 && this.skipped.durationUnderflow + this.skipped.cozHeader === 0 && lineCount > 0) {
      // COZ's viewer just says "Empty Profile"; the usual causes are worth naming.
      summary('warning', 1,
        'no experiments in this profile: COZ writes them only after the program reaches a progress point ' +
          '(COZ_PROGRESS) and only if it could read the debug info (DWARF 4)');
    }

    return {
      source: this.source,
      format: 'coz',
      runs: this.runs,
      experiments: this.experiments,
      problems: this.problems,
      skipped: this.skipped,
    };
  }
}
