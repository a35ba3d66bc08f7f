// Every custom LSP request and notification of Causal Lens, declared once and
// imported by both the client (client/src) and the server (server/src/server.ts).
// Like rust-analyzer's lsp_ext.ts: the wire contract lives in one file.
//
// Declared as typed method names rather than vscode-jsonrpc RequestType objects: the two
// sides pin different jsonrpc versions, and the client must not load the protocol
// library before the server is needed (activation time).

/** A request: its method name, with its parameter and result types attached. */
export interface Request<P, R> {
  readonly method: string;
  /** Never set; carries the types. */
  readonly types?: (params: P) => R;
}

/** A notification: its method name, with its parameter type attached. */
export interface Notification<P> {
  readonly method: string;
  readonly types?: (params: P) => void;
}

function request<P, R>(method: string): Request<P, R> {
  return { method };
}

function notification<P>(method: string): Notification<P> {
  return { method };
}

/** One highlighted line of a source file. */
export interface LineHeat {
  /** 0-based line in the document. */
  line: number;
  /** Fraction of all samples in the loaded profiles that landed on this line. */
  share: number;
  /** 0..1, the share relative to the hottest line shown: picks the shade. */
  heat: number;
  /** perf/bperf lines: the fraction of the line's sampled time spent off the CPU (picks the colour family). */
  offCpu?: number;
  /** The short annotation shown after the line, or undefined when there is nothing to claim. */
  annotation?: string;
  /** One-line explanation shown when hovering the annotation. */
  annotationTooltip?: string;
}

export interface FileHeatParams {
  uri: string;
}

export interface FileHeatResult {
  lines: LineHeat[];
}

/** Heat and annotations for one open document; the client draws them as decorations. */
export const fileHeat = request<FileHeatParams, FileHeatResult>('causalLens/fileHeat');

/** One ranked (line, progress point) entry, the tree view's row. */
export interface RankedLine {
  /** The location string as written in the profile. */
  location: string;
  progressPoint: string;
  /** Resolved workspace document, if the path could be mapped. */
  uri?: string;
  /** 0-based line in that document. */
  line?: number;
  /** Short label, e.g. `prog.c:30`. */
  label: string;
  impact: number;
  impactLow: number;
  impactHigh: number;
  maxSpeedup: number;
  /** Present when the line does not have enough experiments for a curve yet. */
  insufficient?: string;
  /** Present when the profile's path maps to no workspace file (and no path mapping). */
  unresolved?: string;
  profile: string;
}

export interface RankingResult {
  lines: RankedLine[];
}

/** All lines with causal data, ranked by impact (curves first, then lines still collecting). */
export const ranking = request<void, RankingResult>('causalLens/ranking');

export interface LoadProfileParams {
  /** Absolute file system path. */
  path: string;
}

export interface LoadProfileResult {
  experiments: number;
  lines: number;
  problems: number;
}

/** Loads (or reloads) one profile file chosen by the user. */
export const loadProfile = request<LoadProfileParams, LoadProfileResult>('causalLens/loadProfile');

/** Forgets every loaded profile until the next file change or reload. */
export const clearProfiles = request<void, void>('causalLens/clearProfiles');

export interface HotLineParams {
  uri: string;
  /** 0-based line of the cursor. */
  line: number;
  direction: 'next' | 'previous';
}

export interface HotLineResult {
  uri: string;
  line: number;
}

/** The next or previous hot line, by position across files ordered by impact then share. */
export const hotLine = request<HotLineParams, HotLineResult | null>('causalLens/hotLine');

export interface StatusParams {
  state: 'idle' | 'loading' | 'loaded' | 'stale' | 'error';
  profiles: number;
  experiments: number;
  curves: number;
  problems: number;
  /** One line for the status bar tooltip. */
  detail: string;
}

/** Sent by the server whenever the set of loaded profiles changes. */
export const status = notification<StatusParams>('causalLens/status');

/** The program a virtual speedup runs, with `${workspaceFolder}` already expanded by the client. */
export interface VirtualSpeedupRunConfig {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface VirtualSpeedupStartParams {
  uri: string;
  /** 0-based line in the document. */
  line: number;
  run: VirtualSpeedupRunConfig;
  /** The schedule; the server's defaults where absent. */
  speedupsPercent?: number[];
  experimentsPerSpeedup?: number;
  timeBudgetSeconds?: number;
}

/** One program run under COZ, to be started by the client as a task (argv, never a shell). */
export interface VirtualSpeedupRun {
  speedupPercent: number;
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

/** What to do next: run, stop because the schedule is complete, or stop because a run failed. */
export type VirtualSpeedupStep =
  | { kind: 'run'; run: VirtualSpeedupRun; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'failed'; message: string; fix: string };

export type VirtualSpeedupStartResult =
  | { ok: true; session: string; label: string; profilePath: string; step: VirtualSpeedupStep }
  | { ok: false; message: string; fix: string };

/** Plans a virtual speedup of a line (checks COZ and the program first) and says what to run. */
export const virtualSpeedupStart = request<VirtualSpeedupStartParams, VirtualSpeedupStartResult>('causalLens/virtualSpeedup/start');

export interface VirtualSpeedupNextParams {
  session: string;
  elapsedMs: number;
  runsCompleted: number;
  /** How the run just finished went, as the client saw it. */
  outcome: { exitCode: number | null; signal: string | null; stderr: string; cancelled: boolean };
}

/** After each run: reads the profile, explains a failure, or says what to run next. */
export const virtualSpeedupNext = request<VirtualSpeedupNextParams, VirtualSpeedupStep>('causalLens/virtualSpeedup/next');

// ---- The side panel (webview/): what-if predictions, causal curves, scaling fits ----

/** An OTF2 trace archive found in the workspace (its anchor file). */
export interface TraceEntry {
  /** Absolute path of the `.otf2` anchor file. */
  path: string;
  /** Workspace-relative label. */
  label: string;
  /** From the trace's definitions, when they could be read. */
  ranks?: number;
  /** The `NetworkEntry.id` of a workspace table measured on the host the trace was recorded on: the panel's default "Recorded with". */
  recordedWith?: string;
}

/** A network the what-if tab can choose: a preset, or a calibration table in the workspace. */
export interface NetworkEntry {
  /** What `whatIf` takes: a preset name, or an absolute path to a calibration JSON. */
  id: string;
  label: string;
  description: string;
}

export interface WhatIfOptionsResult {
  traces: TraceEntry[];
  networks: NetworkEntry[];
  /** The table a trace is taken to be recorded with when `WhatIfParams.tracedNetwork` is absent. */
  assumedTracedNetwork: string;
}

/** The workspace's traces and the networks to predict for. */
export const whatIfOptions = request<void, WhatIfOptionsResult>('causalLens/whatIf/options');

/** One scenario: where ranks run and over which network; absent parts keep the traced configuration. */
export interface WhatIfScenarioSpec {
  /** The trace's ranks spread over this many nodes (block, or cyclic), or undefined for the traced placement. */
  nodes?: number;
  cyclic?: boolean;
  /** An explicit rank→node map (node index per rank); wins over `placement`. */
  map?: number[];
  /** Where `map` came from, named in its messages. */
  mapSource?: string;
  /** A NetworkEntry id, or a custom latency/bandwidth network. */
  network?: string | { latencySeconds: number; bandwidthBytesPerSecond: number };
}

export interface WhatIfParams {
  /** Absolute path of the trace's anchor file. */
  trace: string;
  scenarios: WhatIfScenarioSpec[];
  coresPerNode?: number;
  /**
   * The NetworkEntry id of the table the trace was recorded with (this machine's calibration: its
   * shared-core turns and scheduler slice); absent: an assumed shared memory of 2 µs and 3 GB/s.
   */
  tracedNetwork?: string;
  /** Also predict with the tables' points at their fastest and slowest measurements (WhatIfScenarioResult.tableSpread). */
  tableSpread?: boolean;
  /** Correlates `whatIfProgress` notifications with this request. */
  progressId: string;
}

export interface WhatIfScenarioResult {
  placement: string;
  network: string;
  predictedSeconds: number;
  perRank: { rank: number; finishSeconds: number; computeCpuSeconds: number; callCpuSeconds: number }[];
  criticalPath: { computeSeconds: number; commSeconds: number; waitSeconds: number };
  /** The least and most predicted with the tables' points at their median, fastest and slowest measurement, when measured more than once. */
  tableSpread?: { lowSeconds: number; highSeconds: number };
}

export type WhatIfResult =
  | {
      ok: true;
      measuredSeconds: number;
      scenarios: WhatIfScenarioResult[];
      /** How the trace was replayed where a reader would not guess it (tasks dealt anew). */
      notes: string[];
      /** Why the predictions may be far off (the traced configuration replayed far from its run, ranks that moved between cores). */
      warnings: string[];
      /** What could not be read or replayed (a file and byte offset, or a rank and reason): the prediction used the rest. */
      problems: string[];
    }
  | { ok: false; message: string };

/** Predicts each scenario from one trace (PEM); cancellable with the request. */
export const whatIf = request<WhatIfParams, WhatIfResult>('causalLens/whatIf');

export interface WhatIfProgressParams {
  progressId: string;
  /** 0..1 of the trace's events processed. */
  fraction: number;
  message: string;
}

/** Sent while a `whatIf` request runs. */
export const whatIfProgress = notification<WhatIfProgressParams>('causalLens/whatIf/progress');

export interface CurveParams {
  uri: string;
  /** 0-based line. */
  line: number;
}

export interface PanelCurvePoint {
  x: number;
  y: number;
  low: number | null;
  high: number | null;
  experiments: number;
}

export interface PanelCurve {
  progressPoint: string;
  profile: string;
  /** A claim when there is a curve, or why there is none yet. */
  summary: string;
  points: PanelCurvePoint[];
}

export interface CurveResult {
  uri: string;
  line: number;
  label: string;
  curves: PanelCurve[];
}

/** The causal curves of one source line, for the panel's chart. */
export const lineCurves = request<CurveParams, CurveResult>('causalLens/lineCurves');

export interface ScalingFilesResult {
  /** Absolute paths of the workspace's scaling CSVs. */
  files: { path: string; label: string }[];
}

export const scalingFiles = request<void, ScalingFilesResult>('causalLens/scaling/files');

export interface FitParams {
  /** Absolute path of a scaling CSV (x, y[, component]). */
  csv: string;
  /** Where to extrapolate; the chart also gets a dense curve up to the largest. */
  predictAt: number[];
}

export interface FitComponent {
  component: string;
  model: string;
  points: { x: number; y: number }[];
}

export type FitResult =
  | {
      ok: true;
      model: string;
      components: FitComponent[];
      /** The summed model on a dense grid from the smallest x to the largest asked for. */
      curve: { x: number; y: number; low: number; high: number }[];
      predictions: { x: number; y: number; low: number; high: number }[];
      problems: string[];
    }
  | { ok: false; message: string };

/** Fits the scaling model of a CSV (seed 003) and extrapolates. */
export const fitScaling = request<FitParams, FitResult>('causalLens/scaling/fit');

// ---- Sampled time (perf, bperf): the "Sampled Time" tree, grouped as bperf report groups it ----

export interface SampledLineRow {
  /** Short label, e.g. `blocking.c:42`. */
  label: string;
  uri?: string;
  /** 0-based. */
  line?: number;
  ms: number;
  /** Share of the profile's sampled time. */
  share: number;
}

export interface SampledThreadRow {
  thread: string;
  ms: number;
  share: number;
  lines: SampledLineRow[];
}

export interface SampledClassRow {
  /** `onCpu`, `io`, `sync`, `sched` or `other`. */
  cls: string;
  label: string;
  /** What time of this class is, for the row's tooltip. */
  meaning: string;
  ms: number;
  share: number;
  threads: SampledThreadRow[];
}

export interface SampledTreeResult {
  profiles: { profile: string; label: string; totalMs: number; classes: SampledClassRow[] }[];
}

/** Sampled time of every loaded perf/bperf profile by class, then thread, then line. */
export const sampledTree = request<void, SampledTreeResult>('causalLens/sampledTree');
