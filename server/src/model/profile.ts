// The normalized profile model. Every importer (server/src/import/*) produces a
// Profile; every view (LSP features, CLI, benches) reads only this model, never a
// format's raw records.

/** Where a problem was found: the profile file and a 1-based line in it. */
export interface ProfileProblem {
  file: string;
  line: number;
  severity: 'error' | 'warning';
  message: string;
}

/** BCOZ's blocked-sample subclasses, usable as experiment targets (`selected=IO`). */
export const BLOCKED_CLASSES = ['ON_CPU', 'IO', 'LOCK', 'SCHEDULING', 'BLOCKED', 'OFF_CPU'] as const;
export type BlockedClass = (typeof BLOCKED_CLASSES)[number];

/**
 * BCOZ "relational" experiments: the target was measured while another line or
 * blocked class was virtually sped up by a fixed amount (`(IO,0.25%|)` suffix).
 */
export interface BasedOn {
  what: string;
  speedup: number;
}

/** What an experiment virtually sped up. */
export type CausalTarget =
  | { kind: 'line'; path: string; line: number; based?: BasedOn }
  | { kind: 'blocked'; blockedClass: BlockedClass; based?: BasedOn }
  | { kind: 'function'; name: string; based?: BasedOn };

export type PointMeasurement =
  | { kind: 'throughput'; name: string; delta: number }
  | { kind: 'latency'; name: string; arrivals: number; departures: number; difference: number };

export interface Experiment {
  /** The `selected` string exactly as written in the profile; the grouping key. */
  selected: string;
  target: CausalTarget;
  /** Virtual line speedup as a fraction, 0..1. */
  speedup: number;
  /** Experiment length with inserted delays already removed by the profiler, ns. */
  durationNs: number;
  selectedSamples: number;
  /** BCOZ only: total virtual delay inserted during the experiment, ns. */
  delayNs?: number;
  points: PointMeasurement[];
  /** Index into Profile.runs. */
  run: number;
  /** 1-based line of the experiment record in the profile file. */
  recordLine: number;
}

export interface ProfileRun {
  startTimeNs?: number;
  /** Length of the run: the last `runtime` record before the next startup. */
  runtimeNs?: number;
  /** Samples per location from the last `samples` block of the run (they are cumulative). */
  samples: Map<string, number>;
}

/** Records read but not used, by reason; reported to the user, never dropped silently. */
export interface SkipCounts {
  /** duration >= 2^63 ns: a size_t underflow inside COZ. */
  durationUnderflow: number;
  /** Point records with no experiment before them in the same run. */
  orphanPoints: number;
  /** Lines that could not be parsed at all. */
  malformed: number;
  /** Experiments on COZ's own header (coz.h), which COZ's viewer drops too. */
  cozHeader: number;
  /** A partial last line, typical while COZ is still writing. */
  truncatedTail: number;
}

export interface Profile {
  /** Absolute path (or a caller-chosen name) of the file read. */
  source: string;
  format: string;
  runs: ProfileRun[];
  experiments: Experiment[];
  problems: ProfileProblem[];
  skipped: SkipCounts;
  /** Sampled on-/off-CPU time by stack: perf and bperf profiles only. */
  samples?: SampleData;
}

export function emptySkipCounts(): SkipCounts {
  return { durationUnderflow: 0, orphanPoints: 0, malformed: 0, cozHeader: 0, truncatedTail: 0 };
}

/** Samples per location over all runs of a profile (each run's last block, added). */
export function totalSamples(profile: Profile): Map<string, number> {
  const total = new Map<string, number>();
  for (const run of profile.runs) {
    for (const [location, count] of run.samples) total.set(location, (total.get(location) ?? 0) + count);
  }
  return total;
}

/** Splits `path:line` at the last colon; line 0 is kept (COZ emits it for code with no line). */
export function splitLocation(location: string): { path: string; line: number } | undefined {
  const colon = location.lastIndexOf(':');
  if (colon <= 0 || colon === location.length - 1) return undefined;
  const digits = location.slice(colon + 1);
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return { path: location.slice(0, colon), line: Number(digits) };
}

/**
 * Where sampled time went (perf, bperf): on the CPU, or blocked off it for I/O, for a
 * lock or condition (sync), for a CPU while runnable (sched), or for anything else
 * (sleep, poll). bperf's tags [I] [L] [S] [B] map to io, sync, sched, other.
 */
export const SAMPLE_CLASSES = ['onCpu', 'io', 'sync', 'sched', 'other'] as const;
export type SampleClass = (typeof SAMPLE_CLASSES)[number];
export type OffCpuClass = Exclude<SampleClass, 'onCpu'>;

/** One distinct frame of the profile's stacks, already symbolized. */
export interface SampleFrame {
  /** Function name, or `symbol+0x1a` when the binary has no line information. */
  function: string;
  /** The binary or library (`[kernel.kallsyms]` for the kernel), when known. */
  dso?: string;
  /** Source file as the debug information names it (absolute when the CU gave comp_dir). */
  file?: string;
  line?: number;
  /** A frame inlined into the next one (the same instruction). */
  inlined?: boolean;
}

/** Sampled time with one stack, thread and class, summed over every sample that had them. */
export interface SampleStack {
  /** `comm tid`. */
  thread: string;
  cls: SampleClass;
  /** Indices into SampleData.frames, innermost first. */
  frames: number[];
  ms: number;
}

/**
 * Sample data of a perf or bperf profile, kept compact: distinct frames once, and one
 * entry per distinct (stack, thread, class). Line and function summaries are derived
 * from it for given workspace roots (server/src/samples/attribution.ts).
 */
export interface SampleData {
  frames: SampleFrame[];
  stacks: SampleStack[];
  /** Records read but not used, by reason (e.g. `malformedLines`, `unpairedSwitchOut`). */
  skipped: Record<string, number>;
}
