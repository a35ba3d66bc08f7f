// The what-if API used by the CLI (`causal-lens whatif`) and the side panel: predict, from one
// OTF2 trace, the run time of other placements and networks. Each scenario streams the trace
// again through the engine, so memory stays bounded by the operations in flight.

import * as fs from 'node:fs';
import { CLOCK_READS_MIN, CommTable, isCommTablePreset, loadCommTable, modelCommTable, presetCommTable, SpreadBound, tableAtBound } from '../network/commTable';
import { communicatorRanks, openOtf2Archive, Otf2Archive } from '../trace/otf2Archive';
import { CollectiveCosts } from './collectives';
import { CriticalPath, EngineResult, PemEngine } from './engine';
import { computeTraceMismatch, describeComputeMatches, matchRankCompute, poolComputeMatches, RankComputeMatch, scaledCompute, timedComputeScales, withComputeFrom } from './computeSource';
import { dealTasks, findDealers } from './dealing';
import { SHARED_RANKS_MAX, SharedReads } from './sharedReads';
import { cpuTimeMetrics, Otf2RankStream, TraceOpsOptions } from './otf2Ops';
import { OPERATIONS_PER_TURN, Pace } from './pace';
import { OpKind, PemOp, RankStream } from './ops';
import { engineNetwork, mapPlacement, parseMapText, Placement, placementRanksPerCore, samePlacement, ScenarioError, spreadPlacement, tracedPlacement, unpinnedOversubscribed } from './scenario';
import { readErrorReason } from '../readError';

/** One scenario; absent parts keep the traced configuration (same shape as the panel's WhatIfScenarioSpec). */
export interface ScenarioSpec {
  /** Spread the ranks over this many nodes (block, or cyclic). */
  nodes?: number;
  cyclic?: boolean;
  /** Explicit rank → node map; wins over `nodes`. */
  map?: number[];
  /** Where `map` came from (a file), named in its messages. */
  mapSource?: string;
  /** A preset name, a path to a calibration JSON, or a latency/bandwidth model. */
  network?: string | { latencySeconds: number; bandwidthBytesPerSecond: number };
}

export interface PredictOptions {
  /** Cores per node for spread and mapped placements (default: the traced nodes' cores, else 1). */
  coresPerNode?: number;
  /** The network the trace was recorded on (default: DEFAULT_TRACED_NETWORK). */
  tracedNetwork?: CommTable;
  /**
   * Tracing cost per MPI call removed from the computation, seconds; 'auto' takes, per rank, the
   * 1% quantile of the computations between two of its MPI calls (back-to-back calls, the
   * shortest: nothing but the recorder's own work), found in a first pass over the trace.
   */
  eventCostSeconds?: number | 'auto';
  /**
   * Another trace of the same ranks whose computations replace this trace's (computeSource.ts):
   * the prediction then judges scheduling and communication only.
   */
  computeFrom?: string;
  /**
   * The network `computeFrom`'s trace was recorded on (default: tracedNetwork). Its calls are read
   * as the trace's are: a collective's CPU beyond the rounds it cannot avoid on that network is work.
   */
  computeFromNetwork?: CommTable;
  /**
   * Per rank, the CPU seconds of the same compute sections as the program itself timed them in
   * the run the computations come from (computeFrom's, else the trace's) and in a target run that
   * was not traced: the computations are scaled to the target's speed (computeSource.ts,
   * timedComputeScales). The validation's untraced targets, whose runs' speed this VM changes.
   */
  timedCompute?: { source: readonly number[]; target: readonly number[] };
  /**
   * Also predict each scenario with its tables' points at their fastest and at their slowest
   * measurement (CommTable points' low and high, from `calibrate --repeat`), where they have them:
   * ScenarioResult.tableSpread. Three replays instead of one.
   */
  tableSpread?: boolean;
}

export interface ScenarioResult {
  placement: string;
  network: string;
  predictedSeconds: number;
  /** Each rank's finish, and the CPU the replay gave its computations and its MPI calls (EngineResult). */
  perRank: { rank: number; finishSeconds: number; computeCpuSeconds: number; callCpuSeconds: number }[];
  criticalPath: CriticalPath;
  /**
   * With PredictOptions.tableSpread, when the tables were measured more than once: the least and
   * the most of the predictions with every point at its median, fastest and slowest measurement.
   */
  tableSpread?: { lowSeconds: number; highSeconds: number };
  /** Present when the simulation could not use every event (counted reasons). */
  problems?: string[];
}

export interface WhatIfPrediction {
  measuredSeconds: number;
  scenarios: ScenarioResult[];
  /** Problems reading the trace, each naming the file and byte offset. */
  traceProblems: string[];
  /** How the trace was replayed where a reader would not guess it (tasks dealt by MPI_ANY_SOURCE). */
  notes: string[];
  /** Why these predictions may be far off: the traced configuration replayed far from its run, ranks that moved between cores. */
  warnings: string[];
}

/** Everything a prediction could not use, for a user: the trace's problems, then each scenario's, named by its placement and network. */
export function predictionProblems(prediction: WhatIfPrediction): string[] {
  return [...prediction.traceProblems, ...prediction.scenarios.flatMap((s) => (s.problems ?? []).map((p) => `${s.placement}, ${s.network}: ${p}`))];
}

export { CancelledError } from './pace';

/**
 * The traced network when none is given: shared memory on one host, Open MPI 4.1 vader/TCP
 * loopback, measured on the development VM by `causal-lens calibrate` (2-core Xeon): one-way
 * ≈ 2 µs and ≈ 3 GB/s. Pass the trace's own calibration for better numbers.
 */
export const DEFAULT_TRACED_NETWORK = modelCommTable('traced: shared memory (assumed, 2 µs, 3 GB/s)', 2e-6, 3e9);

export function resolveNetwork(network: NonNullable<ScenarioSpec['network']>): CommTable {
  if (typeof network === 'object') return modelCommTable(`${network.latencySeconds * 1e6} µs, ${(network.bandwidthBytesPerSecond * 8) / 1e9} Gbit/s`, network.latencySeconds, network.bandwidthBytesPerSecond);
  if (isCommTablePreset(network)) return presetCommTable(network);
  return loadCommTable(network);
}

/** Reads the trace's definitions; throws a ScenarioError naming the file when nothing can be read. */
export function openTrace(tracePath: string): Otf2Archive {
  const archive = openOtf2Archive(tracePath);
  if (archive.fatal) throw new ScenarioError(archive.fatal);
  return archive;
}

function scenarioPlacement(spec: ScenarioSpec, archive: Otf2Archive, options: PredictOptions): Placement {
  const ranks = archive.ranks.length;
  const traced = tracedPlacement(archive.ranks);
  const uniform = traced.coresPerNode.every((c) => c === traced.coresPerNode[0]) ? traced.coresPerNode[0] : 1;
  const cores = options.coresPerNode ?? uniform;
  if (spec.map) return mapPlacement(spec.map, ranks, cores, spec.mapSource ?? 'the map');
  if (spec.nodes !== undefined) return spreadPlacement(ranks, spec.nodes, spec.cyclic ?? false, cores);
  return options.coresPerNode !== undefined ? tracedPlacement(archive.ranks, options.coresPerNode) : traced;
}

/** A stream whose first operation is read when it is made (a rank's start is its first event's time). */
class PrimedStream implements RankStream {
  private first: PemOp | undefined;
  constructor(private readonly stream: RankStream) {
    this.first = stream.next();
  }

  next(): PemOp | undefined {
    const first = this.first;
    if (!first) return this.stream.next();
    this.first = undefined;
    return first;
  }
}

/** Reads a map file for `ScenarioSpec.map`. */
export function readMapFile(file: string): number[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScenarioError(`${file}: cannot read the map (${readErrorReason(error)})`);
  }
  return parseMapText(text, file);
}


export async function predictScenarios(
  tracePath: string,
  scenarios: readonly ScenarioSpec[],
  options: PredictOptions = {},
  progress?: (fraction: number) => void,
  cancel?: () => boolean,
): Promise<WhatIfPrediction> {
  const archive = openTrace(tracePath);
  const specs = scenarios.length > 0 ? scenarios : [{}];
  const traced = options.tracedNetwork ?? DEFAULT_TRACED_NETWORK;
  const communicators = communicatorRanks(archive.defs);
  const traceProblems: string[] = archive.problems.map((p) => `${p.file} @${p.offset}: ${p.message}`);
  // Each scenario is replayed once, or three times with its tables' spread.
  // Networks and placements are resolved first, so that a bad one stops nothing half done.
  const tables = specs.map((spec) => (spec.network === undefined ? traced : resolveNetwork(spec.network)));
  const placements = specs.map((spec) => scenarioPlacement(spec, archive, options));
  const tracedAt = new Map((['low', 'high'] as SpreadBound[]).map((bound) => [bound, tableAtBound(traced, bound)]));
  const bounds = tables.map((table) => (options.tableSpread ? spreadBounds(table, traced, tracedAt) : []));
  const replays = bounds.reduce((sum, b) => sum + 1 + b.length, 0);
  const computeArchive = options.computeFrom !== undefined ? openTrace(options.computeFrom) : undefined;
  // Progress counts the first passes over the trace (and over the computations' trace, and the
  // matching of the two) and the replays, one unit each.
  const passes = computeArchive ? 3 : 1;
  const units = passes + replays;
  const pace = new Pace(cancel);
  const { open: streamsOf, openRank, anySourceRanks } = await rankStreamFactory(archive, options.eventCostSeconds, traced, pace, (fraction) => progress?.(fraction / units));
  const computeStreamsOf = computeArchive ? (await rankStreamFactory(computeArchive, options.eventCostSeconds, options.computeFromNetwork ?? traced, pace, (fraction) => progress?.((1 + fraction) / units))).open : undefined;
  const notes: string[] = [];
  const warnings = unpinnedOversubscribed(archive.ranks).map(unpinnedWarning);
  const dealers = await findDealers(openRank, anySourceRanks, notes, pace);
  const computeMatches: RankComputeMatch[] = [];
  // The other trace's ranks' first events: its run's start, which comes with its computations.
  let computeFirstSeconds: number[] | undefined;
  if (computeArchive && options.computeFrom !== undefined && computeStreamsOf) {
    const mismatch = computeTraceMismatch(archive, computeArchive, options.computeFrom);
    if (mismatch) throw new ScenarioError(mismatch);
    const own = streamsOf();
    const other = computeStreamsOf();
    try {
      for (let i = 0; i < own.length; i++) {
        computeMatches.push(await matchRankCompute(own[i], other[i], pace));
        progress?.((2 + (i + 1) / own.length) / units);
      }
    } finally {
      for (const stream of [...own, ...other]) stream.close();
    }
    computeFirstSeconds = other.map((stream) => stream.facts.firstSeconds);
    const dealtWorkers = new Set(dealers.flatMap((dealer) => [...dealer.workers]));
    for (const dealer of dealers) poolComputeMatches(computeMatches, dealer.workers);
    traceProblems.push(...describeComputeMatches(computeMatches, options.computeFrom, dealtWorkers));
  }
  const timedScales = options.timedCompute ? timedComputeScales(options.timedCompute, archive.ranks.length, dealers.map((dealer) => dealer.workers)) : undefined;
  let measuredSeconds = NaN;
  // A run under this trace's recorder opens no connection inside the trace when it preconnected.
  const preconnected = archive.ranks.length > 0 && archive.ranks.every((rank) => rank.preconnected === true);
  const asTraced = tracedPlacement(archive.ranks);
  // The run whose first events start the ranks: the computations' trace, or this one.
  const startsFrom = computeArchive ? tracedPlacement(computeArchive.ranks) : asTraced;
  // The kernel's speed comes with the computations: from their trace.
  const slowness = computeArchive ? kernelSlowness(computeArchive, options.computeFromNetwork ?? traced) : kernelSlowness(archive, traced);
  const slownessSaid = slownessNote(slowness);
  if (slownessSaid) notes.push(slownessSaid);
  // The traced configuration's own prediction, when asked for: how far the replay is from the run.
  let identity: number | undefined;
  const results: ScenarioResult[] = [];
  // A trace is read with the network it was recorded on: a bound of that network reads it anew.
  const readers = new Map<CommTable, () => Otf2RankStream[]>([[traced, streamsOf]]);
  const streamsRecordedOn = async (network: CommTable) => {
    let open = readers.get(network);
    if (!open) readers.set(network, (open = (await rankStreamFactory(archive, options.eventCostSeconds, network, pace)).open));
    return open;
  };
  const computeReaders = new Map<CommTable, () => Otf2RankStream[]>(computeStreamsOf ? [[options.computeFromNetwork ?? traced, computeStreamsOf]] : []);
  const computeStreamsRecordedOn = async (network: CommTable) => {
    const recordedOn = options.computeFromNetwork ?? network;
    let open = computeReaders.get(recordedOn);
    if (!open) computeReaders.set(recordedOn, (open = (await rankStreamFactory(computeArchive!, options.eventCostSeconds, recordedOn, pace)).open));
    return open;
  };
  /** A replay: a placement and network, with the trace read as recorded on `recordedOn`; `keepFacts`: the run's time and the trace's problems come from it. */
  interface Replay {
    placement: Placement;
    network: CommTable;
    recordedOn: CommTable;
    keepFacts: boolean;
  }
  const plan: Replay[] = [];
  /** Per scenario, its replay's index in `plan`, then its bounds'. */
  const replaysOf = specs.map((_, s) => {
    const indices = [plan.push({ placement: placements[s], network: tables[s], recordedOn: traced, keepFacts: s === 0 }) - 1];
    for (const bound of bounds[s]) indices.push(plan.push({ placement: placements[s], network: bound.table, recordedOn: bound.traced, keepFacts: false }) - 1);
    return indices;
  });
  // On few ranks the replays of one reading of the trace run side by side and read it once (sharedReads.ts); else one by one.
  const groups = new Map<CommTable | number, number[]>();
  const shareReads = archive.ranks.length <= SHARED_RANKS_MAX;
  plan.forEach((r, i) => {
    const key = shareReads ? r.recordedOn : i;
    const members = groups.get(key);
    if (members) members.push(i);
    else groups.set(key, [i]);
  });
  const engineResults: EngineResult[] = [];
  let replayed = 0;
  /** Opens the trace's (or the computations' trace's) streams for the replays of `members`: shared when there are several. */
  const openFor = (open: () => Otf2RankStream[], members: number) => {
    const shared = members > 1 ? new SharedReads(open) : undefined;
    const streams = shared ? shared.streams : open();
    return {
      streams,
      reader: (): RankStream[] => (shared ? shared.reader() : streams),
      // A replay sent back to its own reading skips what it had taken, between the engines' turns.
      catchUp: async () => {
        if (shared?.behind) await shared.catchUp(pace);
      },
      close: () => (shared ? shared.close() : streams.forEach((stream) => stream.close())),
    };
  };
  for (const members of groups.values()) {
    const recordedOn = plan[members[0]].recordedOn;
    const trace = openFor(await streamsRecordedOn(recordedOn), members.length);
    const compute = computeArchive ? openFor(await computeStreamsRecordedOn(recordedOn), members.length) : undefined;
    const streams = trace.streams;
    try {
      // Every replay's streams before the first is read: the last to take an operation takes it itself.
      const views = members.map(() => ({ streams: trace.reader(), computeStreams: compute?.reader() ?? [] }));
      const engines = members.map((i, k) => startReplay(plan[i], views[k].streams, views[k].computeStreams, streams));
      // Each engine in turn runs as many operations, so that the shared reads hold little.
      const running = new Set(engines);
      // The first turns run unoptimized code (the first 4,096 operations took 81 ms): they start
      // short and double up to OPERATIONS_PER_TURN, the same for every engine.
      for (let turn = FIRST_TURN_OPERATIONS; running.size > 0; turn = Math.min(OPERATIONS_PER_TURN, 2 * turn)) {
        for (const engine of running) {
          if (engine.run(turn)) running.delete(engine);
          await trace.catchUp();
          await compute?.catchUp();
          // Looked at after each engine's turn, not each round of them all.
          if (running.size === 0 || !pace.due()) continue;
          const done = streams.reduce((sum, st) => sum + st.fraction, 0) / streams.length;
          progress?.((passes + replayed + done * members.length) / units);
          await pace.pause();
        }
      }
      members.forEach((i, k) => (engineResults[i] = engines[k].result()));
      if (members.some((i) => plan[i].keepFacts)) {
        const origin = Math.min(...streams.map((st) => st.facts.firstSeconds).filter(Number.isFinite));
        measuredSeconds = Math.max(...streams.map((st) => st.facts.lastSeconds - st.facts.suspendedSeconds)) - origin;
        for (const stream of streams) {
          for (const p of stream.problems) traceProblems.push(`${p.file} @${p.offset}: ${p.message}`);
          for (const [reason, count] of stream.skipped) traceProblems.push(`rank ${stream.rank.rank}: ${reason}${count > 1 ? ` (${count} times)` : ''}`);
        }
      }
    } finally {
      trace.close();
      compute?.close();
      replayed += members.length;
      progress?.((passes + replayed) / units);
    }
  }
  /** An engine for `replay` over its own streams of the trace (and of the computations' trace); `facts`: the trace's streams, which say where each rank starts. */
  function startReplay(replay: Replay, streams: RankStream[], computeStreams: RankStream[], facts: readonly Otf2RankStream[]): PemEngine {
    const { placement, network, recordedOn } = replay;
    let opStreams: RankStream[] = computeArchive ? streams.map((stream, i) => withComputeFrom(stream, computeStreams[i], computeMatches[i])) : streams;
    if (timedScales) opStreams = opStreams.map((stream, i) => scaledCompute(stream, timedScales[i]));
    for (const dealer of dealers) opStreams = dealTasks(opStreams, dealer);
    // The first operation of every rank is read before the run, which fixes each rank's start.
    const primed = opStreams.map((stream) => new PrimedStream(stream));
    const engineNet = engineNetwork(network, recordedOn, options.eventCostSeconds === undefined, preconnected);
    // Seed 000's sharing is the documented default; turns are said where ranks share a core.
    if (engineNet.schedulerSliceSeconds && placementRanksPerCore(placement).some((k) => k > 1)) {
      const note = turnsNote(engineNet.schedulerSliceSeconds, engineNet.schedulerTickSeconds);
      if (!notes.includes(note)) notes.push(note);
    }
    return new PemEngine({
      streams: primed,
      nodeOf: placement.nodeOf,
      coresPerNode: placement.coresPerNode,
      network: engineNet,
      communicators,
      startSeconds: rankStartSeconds(computeFirstSeconds ?? facts.map((st) => st.facts.firstSeconds), samePlacement(placement, startsFrom)),
      kernelSlowness: slowness,
    });
  }
  for (let s = 0; s < specs.length; s++) {
    const spec = specs[s];
    const placement = placements[s];
    const [result, ...boundResults] = replaysOf[s].map((i) => engineResults[i]);
    if (isReplayOfTrace(spec, options) && samePlacement(placement, asTraced)) identity = result.predictedSeconds;
    const spread = [result.predictedSeconds, ...boundResults.map((bound) => bound.predictedSeconds)];
    results.push({
      placement: placement.label,
      network: spec.network === undefined ? traced.name : tables[s].name,
      predictedSeconds: result.predictedSeconds,
      perRank: result.finishSeconds.map((finishSeconds, rank) => ({ rank, finishSeconds, computeCpuSeconds: result.computeCpuSeconds[rank], callCpuSeconds: result.callCpuSeconds[rank] })),
      criticalPath: result.criticalPath,
      ...(spread.length > 1 ? { tableSpread: { lowSeconds: Math.min(...spread), highSeconds: Math.max(...spread) } } : {}),
      ...(result.problems.length > 0 ? { problems: result.problems } : {}),
    });
  }
  if (options.tableSpread && bounds.some((b, s) => b.length === 0 && (tables[s].source === 'measured' || traced.source === 'measured'))) notes.push(NO_SPREAD_NOTE);
  const mismatch = identity !== undefined ? identityWarning(identity, measuredSeconds, traced.name) : undefined;
  if (mismatch) warnings.push(mismatch);
  return { measuredSeconds, scenarios: results, traceProblems, notes, warnings };
}

/** Said when the spread was asked for and a measured table has none: no range is not a range of zero. */
export const NO_SPREAD_NOTE =
  "a measured table of these predictions has no spread (its points were measured once, or their repeats agreed), so they have no range over it; causal-lens calibrate --repeat 2 or more keeps each point's fastest and slowest";

/**
 * A scenario's tables at their fastest and at their slowest measurements, where one of them (the
 * scenario's network, or the traced one it falls back on) was measured more than once.
 * `tracedAt`: the traced table at each bound, made once, so that every scenario's replay at a
 * bound reads the trace as recorded on the same table (and with the others, once).
 */
function spreadBounds(table: CommTable, traced: CommTable, tracedAt: ReadonlyMap<SpreadBound, CommTable | undefined>): { table: CommTable; traced: CommTable }[] {
  return (['low', 'high'] as SpreadBound[]).flatMap((bound) => {
    const boundTraced = tracedAt.get(bound);
    const boundTable = table === traced ? boundTraced : tableAtBound(table, bound);
    return boundTable || boundTraced ? [{ table: boundTable ?? table, traced: boundTraced ?? traced }] : [];
  });
}

/** A replay of the traced run as it ran: the trace's own computations, tracer, network and placement. */
function isReplayOfTrace(spec: ScenarioSpec, options: PredictOptions): boolean {
  return spec.network === undefined && options.eventCostSeconds === undefined && options.computeFrom === undefined && options.timedCompute === undefined;
}

/**
 * Beyond this the traced configuration's replay is worth a word: the validation's traces replay
 * within about 10% with this machine's table (docs/pem.md, Accuracy), the default assumed table
 * replays this VM's 4/2 pipeline 37–48% long.
 */
const IDENTITY_MISMATCH = 0.1;

/** Says when the traced configuration replays far from the measured time: the other predictions may be as far off. */
export function identityWarning(predictedSeconds: number, measuredSeconds: number, tableName: string): string | undefined {
  const off = predictedSeconds / measuredSeconds - 1;
  if (!Number.isFinite(off) || Math.abs(off) <= IDENTITY_MISMATCH) return undefined;
  const ms = (seconds: number) => `${(seconds * 1e3).toFixed(1)} ms`;
  return `the traced configuration replays to ${ms(predictedSeconds)}, ${Math.abs(off * 100).toFixed(1)}% ${off > 0 ? 'above' : 'below'} the ${ms(measuredSeconds)} measured, so the other predictions may be off by as much; if the traced network "${tableName}" is not the machine the trace was recorded on, a table calibrated there (causal-lens calibrate, or the command "Calibrate This Machine's Network") is better`;
}

/** Why a trace of ranks that outnumbered their cores unpinned predicts short (docs/pem.md, "The traced configuration"). */
function unpinnedWarning(node: { cpuSet: string; ranks: number; cores: number }): string {
  return `${node.ranks} ranks shared cores ${node.cpuSet} without being pinned to one each: Linux moved them between the cores, which PEM does not model (it runs a node's ranks in turns from one queue), so predictions from this trace come out short; pin each rank to a core when recording a trace to predict from`;
}

/** How ranks sharing a core run when the table has the scheduler's slice (docs/pem.md, "Taking turns"). */
function turnsNote(sliceSeconds: number, tickSeconds: number | undefined): string {
  const ms = (seconds: number) => (seconds * 1e3).toFixed(2);
  return `ranks sharing a core take it in turns: each keeps it for a slice of ${ms(sliceSeconds)} ms and up to the scheduler's next tick${tickSeconds ? ` (every ${ms(tickSeconds)} ms)` : ''}, or until it waits`;
}

/**
 * Each rank's start, seconds after the earliest first event (0 for a rank without events), when
 * `samePlacement` (the run whose first events these are had the predicted placement); else every
 * rank starts at once. Ranks sharing a core leave MPI_Init apart, as the scheduler hands the core
 * over (one 4 ms tick after another for halo, up to 37 ms with 8 ranks on a core; a few ms for
 * the pipeline), with or without the tracer: untraced runs print their starts (`started`), and
 * they spread as far as the traced runs' first events. So the starts belong to the placement:
 * a prediction of the run's own placement keeps them, with the tracer or without; another
 * placement's are not known.
 */
export function rankStartSeconds(firstSeconds: readonly number[], samePlacement: boolean): number[] {
  const origin = Math.min(...firstSeconds.filter(Number.isFinite));
  return firstSeconds.map((first) => (samePlacement && Number.isFinite(first) ? first - origin : 0));
}

/**
 * Per rank, how much slower its kernel ran than when `table` was calibrated: the median of its
 * recorder's real reads of the CPU clock over the table's (clockReadSeconds); 1 where either is
 * not known, or where the two are within SLOWNESS_SPREAD of each other. On a VM the kernel's
 * speed may change from run to run while user-space work does not: in slow phases a CPU-clock
 * read and a relaying turn both take up to 40% longer (docs/pem.md, "The kernel's speed"). The
 * computations come from the trace and keep the run's speed already.
 * Only a rank that read the clock in a steady rhythm says the speed: CLOCK_READS_MIN reads, one
 * per READ_EVERY_EVENTS of its events or more, and STEADY_READS_PER_SECOND of the trace's span or
 * more. Reads that follow other work on the core pay for the caches it took: after the rare long
 * waits of a pair that mostly waits less than 5 µs (a tick, a barrier) they took 655–715 ns in
 * fast runs whose steady reads take 595–625, and between the pipeline's 512 KiB copies 1.0–1.4 µs.
 */
export function kernelSlowness(archive: Otf2Archive, table: CommTable): number[] {
  const calibrated = table.clockReadSeconds;
  const slowness = new Array<number>(archive.ranks.length).fill(1);
  if (!calibrated) return slowness;
  const spanSeconds = archive.defs.clock.traceLength / archive.defs.clock.ticksPerSecond;
  for (const rank of archive.ranks) {
    const read = rank.clockRead;
    const events = archive.defs.locations.get(rank.location)?.events ?? Infinity;
    const steady = read !== undefined && read.count >= CLOCK_READS_MIN && read.count * READ_EVERY_EVENTS >= events && read.count >= spanSeconds * STEADY_READS_PER_SECOND;
    if (!steady || rank.rank >= slowness.length) continue;
    // Within the reads' spread in one phase the table's speed stands: charging that noise took the
    // latency program's N/2 targets a few points lower where their turns were no faster.
    const ratio = read.seconds / calibrated;
    if (Math.abs(ratio - 1) > SLOWNESS_SPREAD) slowness[rank.rank] = ratio;
  }
  return slowness;
}

/** Events per real read of the CPU clock, at most, for its reads to say a rank's kernel speed (kernelSlowness): about one per four MPI calls. */
const READ_EVERY_EVENTS = 20;
/** Reads per second of the trace, at least, for a rank's reads to come in a steady rhythm (kernelSlowness): one per 50 µs, as a rank relaying messages makes them. */
const STEADY_READS_PER_SECOND = 20_000;

/** The steady reads of one phase spread about 5%: within it a rank's kernel runs at the table's speed (kernelSlowness). */
const SLOWNESS_SPREAD = 0.05;

/** Says how far the run's kernel was from the calibration's, when any rank's slowness is charged. */
function slownessNote(slowness: readonly number[]): string | undefined {
  if (slowness.every((s) => s === 1)) return undefined;
  const low = Math.min(...slowness);
  const high = Math.max(...slowness);
  const range = high - low < 0.005 ? high.toFixed(2) : `${low.toFixed(2)}–${high.toFixed(2)}`;
  return `the run's system calls took ${range} times as long as when the table was calibrated (the recorder's timed reads of the CPU clock): turns and switches on shared cores are charged that much`;
}

/** Operations of an engine's first turn in a replay (see predictScenarios). */
const FIRST_TURN_OPERATIONS = 256;

/** Operations per rank read by the first pass: enough for the smallest values, long before the end. */
const FIRST_PASS_OPS = 5_000;
/** Short gaps of each kind (after a real and after an estimated CPU-clock read) needed to tell their costs apart. */
const REAL_READ_MIN_SAMPLES = 100;

/**
 * Opens a fresh stream per rank of `archive`. A first pass over each rank's first operations
 * finds the costs inside its calls: with 'auto', the tracer's work between two calls (lowQuantile
 * of the computations) and its extra cost after a real read of the CPU clock (a system call the
 * recorder makes after 5 µs or more: the low quantile of the short gaps that follow one, less
 * that of the others; at 4 or 8 ranks per core every wait is followed by one), at least the traced
 * table's recorderCallSeconds per call when it was measured (the recorder's whole cost, of which a
 * gap shows only part), and, over all ranks, the smallest CPU time of each kind
 * of call less the communication it cannot avoid on the traced network (its own work when it
 * waits for nothing; a collective's is its last members' median, collectiveWork; the smallest
 * of all kinds is the tracer's). By default each blocking call
 * is charged its kind's work, so the traced run is reproduced; with `eventCostSeconds` (a
 * number, or 'auto') that much is removed from every computation
 * and blocking calls are charged their work less the tracer's, which predicts the run without
 * the tracer. The first pass also finds the ranks that receive with MPI_ANY_SOURCE.
 */
async function rankStreamFactory(
  archive: Otf2Archive,
  eventCostSeconds: PredictOptions['eventCostSeconds'],
  tracedNetwork: CommTable,
  pace: Pace,
  passed?: (fraction: number) => void,
): Promise<{ open: () => Otf2RankStream[]; openRank: (index: number) => Otf2RankStream; anySourceRanks: number[] }> {
  const communicators = communicatorRanks(archive.defs);
  const cpuMetrics = cpuTimeMetrics(archive);
  const placement = tracedPlacement(archive.ranks);
  const ranksPerCore = placementRanksPerCore(placement);
  const openStream = (i: number, options: TraceOpsOptions) => new Otf2RankStream(archive, archive.ranks[i], communicators, cpuMetrics, archive.defs.clock.globalOffset, options);
  const network = engineNetwork(tracedNetwork, tracedNetwork);
  const rounds = new CollectiveCosts(placement.nodeOf, (bytes, same) => network.oneWay(bytes, same));
  // A collective's last member to arrive waits for no round (collectives.ts; collectiveWork):
  // alone on its core its CPU is its own work and its rounds' copies, which the engine charges as
  // the rounds' receives. On a shared core the rounds' zero-byte times come off too, as the
  // engine's switch back onto the core after each round (EngineNetwork.switchIn) holds the
  // library's receive and send.
  // Two functions, not one per rank: a call site that met a new function of the same code deoptimized.
  const unavoidableSeconds = [false, true].map((sharesCore) => (op: PemOp) => {
    const members = op.kind === OpKind.Collective ? communicators.get(op.comm) : undefined;
    if (!members) return 0;
    const bytes = Math.max(op.sizeSent, op.sizeReceived);
    return sharesCore ? rounds.cost(op.comm, members, op.collective, bytes) : rounds.copies(op.comm, members, op.collective, bytes);
  });
  const inCall = new Map<number, number>();
  const collectiveRegions = new Set<number>();
  const collectiveCalls = new Map<number, { work: number[]; members: number[] }>();
  const resumedCalls = new Map<number, number[]>();
  const realRead: number[] = [];
  const anySourceRanks: number[] = [];
  /** Reads a rank's first operations, merges what they show into the run's costs; its tracer's gap. */
  async function firstPassGap(stream: Otf2RankStream, index: number): Promise<number> {
    const gaps: number[] = [];
    for (let op = stream.next(), count = 0; op && count < FIRST_PASS_OPS; op = stream.next(), count++) {
      // The first computation is the program's start-up, not a gap between calls.
      if (eventCostSeconds === 'auto' && count > 0 && op.kind !== OpKind.End) gaps.push(op.compute);
      if (!pace.counted()) continue;
      passed?.(index / firstPass.length);
      await pace.pause();
    }
    stream.close();
    // The recorder counts them for the whole run; the first pass sees those of other tools' traces early on.
    if (stream.facts.anySourceReceives > 0 || stream.rank.anySourceReceives !== undefined) anySourceRanks.push(stream.rank.rank);
    for (const [region, seconds] of stream.facts.smallestCallCpu) inCall.set(region, Math.min(seconds, inCall.get(region) ?? Infinity));
    for (const region of stream.facts.collectiveRegions) collectiveRegions.add(region);
    for (const [region, calls] of stream.facts.collectiveCalls) {
      const merged = collectiveCalls.get(region);
      if (merged) {
        merged.work.push(...calls.work);
        merged.members.push(...calls.members);
      } else collectiveCalls.set(region, calls);
    }
    for (const [region, cpu] of stream.facts.resumedCallCpu) {
      const merged = resumedCalls.get(region);
      if (merged) merged.push(...cpu);
      else resumedCalls.set(region, cpu);
    }
    const samples = stream.facts.shortGapsAfterRead;
    const sampled = samples && samples.real.length >= REAL_READ_MIN_SAMPLES && samples.estimated.length >= REAL_READ_MIN_SAMPLES;
    realRead.push(sampled ? Math.max(0, lowQuantile(samples.real) - lowQuantile(samples.estimated)) : 0);
    return lowQuantile(gaps);
  }
  const tracerGaps: number[] = [];
  const firstPass = archive.ranks.map((rank, i) => openStream(i, { unavoidableSeconds: unavoidableSeconds[ranksPerCore[rank.rank] > 1 ? 1 : 0], ranksPerCore: ranksPerCore[rank.rank], sampleGaps: eventCostSeconds === 'auto' }));
  try {
    for (let i = 0; i < firstPass.length; i++) tracerGaps.push(await firstPassGap(firstPass[i], i));
  } finally {
    for (const stream of firstPass) stream.close();
  }
  for (const [region, calls] of collectiveCalls) inCall.set(region, collectiveWork(calls.work, calls.members));
  takeRecordedSmallest(archive, inCall, collectiveRegions);
  shareWaitWork(archive.defs.regions, inCall);
  const resumeCost = resumeCosts(resumedCalls, inCall);
  const tracer = Math.min(...[...inCall.values()].filter((seconds) => seconds > 0));
  const work = new Map([...inCall].map(([region, seconds]) => [region, Math.max(0, seconds - tracer)]));
  const optionsOf = (i: number): TraceOpsOptions =>
    eventCostSeconds === undefined
      ? { inCallCost: inCall, smallestCallCpu: inCall, resumeCost, ranksPerCore: ranksPerCore[archive.ranks[i].rank] }
      : {
          inCallCost: work,
          smallestCallCpu: inCall,
          resumeCost,
          eventCostSeconds: eventCostSeconds === 'auto' ? Math.max(tracerGaps[i], tracedNetwork.recorderCallSeconds ?? 0) : eventCostSeconds,
          realReadCostSeconds: eventCostSeconds === 'auto' ? realRead[i] : 0,
          ranksPerCore: ranksPerCore[archive.ranks[i].rank],
        };
  const openRank = (i: number) => openStream(i, optionsOf(i));
  return { open: () => archive.ranks.map((_, i) => openRank(i)), openRank, anySourceRanks };
}

/**
 * Lowers each region's smallest CPU time of one call (`inCall`, from the first pass) to the
 * recorder's over the whole run. The smallest falls the longer one looks where calls rarely find
 * nothing to wait for: in a latency 2/2 trace every receive polls, and the smallest MPI_Recv was
 * 0.209, 0.077 and 0.028 µs after 1,000, 5,000 and 10,000 operations. Collectives keep the
 * first pass's, which is less their rounds on the traced network, and so do regions it did not see.
 */
export function takeRecordedSmallest(archive: Otf2Archive, inCall: Map<number, number>, collectiveRegions: ReadonlySet<number>): void {
  const regionIds = new Map([...archive.defs.regions].map(([id, name]) => [name, id]));
  for (const rank of archive.ranks) {
    for (const [name, seconds] of rank.smallestCallCpu ?? []) {
      const region = regionIds.get(name);
      const found = region === undefined ? undefined : inCall.get(region);
      // A region the first pass did not see may be a collective's, whose rounds it could not take off.
      if (found === undefined || collectiveRegions.has(region!)) continue;
      inCall.set(region!, Math.min(seconds, found));
    }
  }
}

/** The calls that block until requests complete: one completion path in the library, whatever the name. */
const WAIT_CALL = /^MPI_Wait(all|any|some)?$/;

/**
 * Gives every kind of wait the smallest work of all of them (`inCall`, by region). A kind's work
 * is its smallest call, the one that found its requests done; where every call of a kind waited,
 * its smallest holds a wait. In the pipeline's 2/1 trace each MPI_Waitsome yielded to the rank
 * its rendezvous sends needed (wall 258 µs and more): its smallest took 6.49 µs of CPU, where at
 * 2/2 it took 1.21 µs and that trace's MPI_Waitany 2.08 µs, so a 2/2 prediction from the 2/1
 * trace was charged 5 µs too much per call (on 19 kept runs, +3.4% on average; docs/pem.md,
 * Accuracy, 2026-11-26 16:00).
 */
export function shareWaitWork(regions: ReadonlyMap<number, string>, inCall: Map<number, number>): void {
  const waits = [...inCall.keys()].filter((region) => WAIT_CALL.test(regions.get(region) ?? ''));
  const work = Math.min(...waits.map((region) => inCall.get(region)!));
  for (const region of waits) inCall.set(region, work);
}

/**
 * A collective's work when it waits for no round: its last member's. In each collective one of
 * its P members comes last, so such calls are about 1/P of them, and the cheapest, since a call
 * that waited polled as well (CPU less the rounds, `work`; `members`: each call's P). Their
 * median, at quantile Σ(1/P) / 2n of all calls, not the smallest call: that is the luckiest of
 * hundreds (cache, this VM's speed) and falls the more calls a run makes (the unshaped halo's
 * MPI_Allreduce less its rounds: smallest 13.9 and 19.7 µs in two runs, the last members'
 * median 19.1 and 30.5 µs; docs/pem.md, "Work inside MPI calls").
 */
export function collectiveWork(work: number[], members: readonly number[]): number {
  const lastShare = members.reduce((sum, p) => sum + 1 / Math.max(1, p), 0) / members.length;
  return quantile(work, lastShare / 2);
}

/** Resumed calls of a kind needed before their median says what a resumption costs. */
const RESUMED_MIN_CALLS = 20;

/**
 * What a resumption after a real wait costs a receive or wait of each kind on a shared core,
 * from the calls of that kind that resumed (`resumed`, their CPU; otf2Ops.isResumedCall): their
 * median less the kind's work (`inCall`, charged apart), for kinds with RESUMED_MIN_CALLS of them
 * or more. The engine charges it where it is more than the table's switch (EngineNetwork.switchIn,
 * the calibrated relaying turn, one 0-byte message in a hot loop): in the unshaped network's halo
 * a rank resuming reads the two or three messages that came while its core-mate computed, with
 * the caches the computation left, 19–27 µs against a turn of 6–7.5 µs (docs/pem.md, "Taking a
 * shared core back").
 */
export function resumeCosts(resumed: ReadonlyMap<number, number[]>, inCall: ReadonlyMap<number, number>): Map<number, number> {
  const costs = new Map<number, number>();
  for (const [region, cpu] of resumed) {
    if (cpu.length < RESUMED_MIN_CALLS) continue;
    costs.set(region, Math.max(0, quantile([...cpu], 0.5) - (inCall.get(region) ?? 0)));
  }
  return costs;
}

/** The value at quantile `q` of `values` (sorted in place): the q·(n − 1)-th smallest, rounded down. */
function quantile(values: number[], q: number): number {
  values.sort((a, b) => a - b);
  return values[Math.floor(q * (values.length - 1))];
}

/**
 * The 1% quantile (0 without values), sorting `values` in place: the CPU clock sometimes does not
 * advance across a gap (seen: one 0 among 19,000 gaps of 0.02–0.03 µs), so the very smallest is
 * no measure of the tracer's work.
 */
export function lowQuantile(values: number[]): number {
  if (values.length === 0) return 0;
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length * 0.01)];
}
