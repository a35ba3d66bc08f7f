// The measured communication-time table: the ping-pong (calibrate/pingpong.c) run with mpirun,
// its lines turned into the table of server/src/network/commTable.ts.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CLOCK_READS_MIN, COMM_TABLE_SCHEMA, CommPoint, CommTable, SharedCorePoint } from '../network/commTable';
import { PINGPONG, builtFile } from './artifacts';
import { mpirunArgv, runMpi } from './launch';
import { recordTrace } from './recordTrace';
import { OpKind } from '../pem/ops';
import { cpuTimeMetrics, Otf2RankStream } from '../pem/otf2Ops';
import { communicatorRanks, openOtf2Archive } from '../trace/otf2Archive';

const execFileAsync = promisify(execFile);

/** Open MPI's shared-memory (vader) eager limit, when ompi_info cannot be asked. */
const FALLBACK_EAGER_LIMIT = 4096;

export class PingPongError extends Error {}

/** Reads "size <bytes> <round trips> <median one-way s> <min one-way s>" lines. */
export function parsePingPong(text: string, source: string): CommPoint[] {
  const points: CommPoint[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith('size ')) return;
    const [, bytes, samples, median] = line.trim().split(/\s+/).map(Number);
    if (![bytes, samples, median].every(Number.isFinite) || bytes < 0 || samples <= 0 || median < 0) {
      throw new PingPongError(`${source}: line ${index + 1}: expected "size BYTES ROUNDTRIPS SECONDS SECONDS", got "${line}"`);
    }
    if (points.length && bytes <= points[points.length - 1].bytes) {
      throw new PingPongError(`${source}: line ${index + 1}: size ${bytes} is not larger than the one before`);
    }
    points.push({ bytes, seconds: median, samples });
  });
  if (points.length === 0) throw new PingPongError(`${source}: no "size" lines: the ping-pong printed nothing usable`);
  return points;
}

/**
 * Point by point, the median seconds of several measurements of the same points (the same
 * sizes, or the same ranks per core; the other fields are the first measurement's), with their
 * fastest and slowest as `low` and `high`: one short calibration moves with a VM's speed as much
 * as a run does (1.68–2.67 µs one-way within minutes here). Throws when the points differ.
 */
export function medianPoints<P extends { seconds: number; bytes?: number; ranksPerCore?: number }>(runs: readonly (readonly P[])[]): P[] {
  const [first] = runs;
  const where = (point: P) => point.bytes ?? point.ranksPerCore;
  if (!first || runs.some((run) => run.length !== first.length || run.some((point, i) => where(point) !== where(first[i])))) {
    throw new PingPongError('the calibrations measured different points; they cannot be combined');
  }
  if (runs.length === 1) return [...first];
  return first.map((point, i) => {
    const seconds = runs.map((run) => run[i].seconds);
    return { ...point, seconds: medianSeconds(seconds), low: Math.min(...seconds), high: Math.max(...seconds) };
  });
}

/** The median of measurements (the mean of the middle two of an even number). */
export function medianSeconds(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The "first <one-way seconds>" line: the very first round trip, which opened the connection. */
export function parseFirstOneWay(text: string): number | undefined {
  const match = /^first (\S+)$/m.exec(text);
  const seconds = match ? Number(match[1]) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

async function ompiInfo(args: string[]): Promise<string> {
  try {
    return (await execFileAsync('ompi_info', args)).stdout;
  } catch {
    return '';
  }
}

async function openMpiFacts(): Promise<{ version: string; eagerLimit: number }> {
  const version = /v(\d[\w.]*)/.exec(await ompiInfo(['--parsable', '--version']))?.[1] ?? 'unknown version';
  const eager = /btl_vader_eager_limit:value:(\d+)/.exec(await ompiInfo(['--parsable', '--param', 'btl', 'vader', '--level', '9']))?.[1];
  return { version, eagerLimit: eager ? Number(eager) : FALLBACK_EAGER_LIMIT };
}

export interface CalibrationOptions {
  np: number;
  /** Seconds of round trips per message size. */
  targetSeconds: number;
  onOutput?: (text: string) => void;
}

/** Measures one-way times between two ranks on this node. */
export async function measureIntraNode(options: CalibrationOptions): Promise<CommTable> {
  const argv = mpirunArgv({ np: options.np, program: builtFile(PINGPONG), args: [String(options.targetSeconds)] });
  const result = await runMpi(argv, options.onOutput ?? (() => undefined));
  if (result.code !== 0) throw new PingPongError(`the ping-pong failed (mpirun status ${result.code ?? result.signal})`);
  const points = parsePingPong(result.stdout, 'ping-pong output');
  const facts = await openMpiFacts();
  return {
    schema: COMM_TABLE_SCHEMA,
    name: `measured on ${os.hostname()} (Open MPI ${facts.version}, shared memory)`,
    host: os.hostname(),
    source: 'measured',
    createdAt: new Date().toISOString(),
    eagerLimitBytes: facts.eagerLimit,
    intraNode: points,
  };
}

/**
 * The 0-byte one-way time with k ranks on one core, for each k of `ranksPerCore` (each ≥ 2): the
 * ping-pong with k ranks all pinned to `core` by taskset, its other ranks waiting in a barrier.
 */
export async function measureSharedCore(ranksPerCore: readonly number[], targetSeconds: number, core = 0, onOutput?: (text: string) => void): Promise<SharedCorePoint[]> {
  const points: SharedCorePoint[] = [];
  for (const k of ranksPerCore) {
    const argv = mpirunArgv({ np: k, program: 'taskset', args: ['-c', String(core), builtFile(PINGPONG), String(targetSeconds), '0'] });
    const result = await runMpi(argv, onOutput ?? (() => undefined));
    if (result.code !== 0) throw new PingPongError(`the ping-pong with ${k} ranks on core ${core} failed (mpirun status ${result.code ?? result.signal})`);
    points.push({ ranksPerCore: k, seconds: parsePingPong(result.stdout, `ping-pong with ${k} ranks on core ${core}`)[0].seconds });
  }
  return points;
}

/** Round trips of each pair in a relaying measurement (0.13 s with 8 ranks on a core here). */
const RELAY_ROUND_TRIPS = 10_000;

/** The `relay <ranks> <seconds per turn>` line of the ping-pong's relay mode. */
export function parseRelayTurn(text: string, source: string): number {
  const match = /^relay \d+ (\S+)$/m.exec(text);
  const seconds = match ? Number(match[1]) : NaN;
  if (!(Number.isFinite(seconds) && seconds > 0)) throw new PingPongError(`${source}: no "relay <ranks> <seconds>" line`);
  return seconds;
}

/** The relaying ping-pong pinned to `core`, as the program and arguments mpirun starts per rank. */
export function relayCommand(core: number): { program: string; args: string[] } {
  return { program: 'taskset', args: ['-c', String(core), builtFile(PINGPONG), 'relay', String(RELAY_ROUND_TRIPS)] };
}

/**
 * The relaying turn with k ranks on one core, for each even k of `ranksPerCore`: k/2 pairs all
 * pinned to `core` bounce a 0-byte message at once, a round trip over k (each rank takes one
 * turn per round trip, and in it takes the message in and sends the reply).
 */
export async function measureRelayTurns(ranksPerCore: readonly number[], core = 0, onOutput?: (text: string) => void): Promise<SharedCorePoint[]> {
  const points: SharedCorePoint[] = [];
  for (const k of ranksPerCore.filter((n) => n % 2 === 0)) {
    const result = await runMpi(mpirunArgv({ np: k, ...relayCommand(core) }), onOutput ?? (() => undefined));
    if (result.code !== 0) throw new PingPongError(`the relaying ping-pong with ${k} ranks on core ${core} failed (mpirun status ${result.code ?? result.signal})`);
    points.push({ ranksPerCore: k, seconds: parseRelayTurn(result.stdout, `relaying ping-pong with ${k} ranks on core ${core}`) });
  }
  return points;
}

/** The "tick <seconds>" line of the ping-pong's tick mode. */
export function parseTick(text: string, source: string): number {
  const match = /^tick (\S+)$/m.exec(text);
  const seconds = match ? Number(match[1]) : NaN;
  if (!(Number.isFinite(seconds) && seconds > 0)) throw new PingPongError(`${source}: no "tick <seconds>" line`);
  return seconds;
}

/**
 * The scheduler's tick (CommTable.schedulerTickSeconds): the ping-pong's tick mode, the median step
 * of the coarse monotonic clock, which the kernel advances once per tick (4.0 ms here: HZ 250). A
 * ping-pong against a thread spinning beside the receiver measured it until 2026-11-26: under
 * EEVDF about half of its round trips took a tick and half 10 µs (the yielding receiver got its
 * core straight back), so its median came out 10 µs in 5 to 7 of 12–20 runs.
 */
export async function measureSchedulerTick(onOutput?: (text: string) => void): Promise<number> {
  const result = await runMpi(mpirunArgv({ np: 1, program: builtFile(PINGPONG), args: ['tick'] }), onOutput ?? (() => undefined));
  if (result.code !== 0) throw new PingPongError(`the tick probe failed (mpirun status ${result.code ?? result.signal})`);
  return parseTick(result.stdout, 'tick probe');
}

/**
 * The scheduler's slice from the ping-pong's slice mode (CommTable.schedulerSliceSeconds): woken at
 * random moments beside a yielding thread, the prober keeps its core for a slice and loses it at
 * the tick after, so its mean time there is the slice plus half a tick.
 */
export function parseSlice(text: string, tickSeconds: number, source: string): number {
  const match = /^slice (\S+) (\d+)$/m.exec(text);
  const mean = match ? Number(match[1]) : NaN;
  if (!(Number.isFinite(mean) && mean > 0 && Number(match![2]) > 0)) throw new PingPongError(`${source}: no "slice <seconds> <samples>" line with samples`);
  return Math.max(0, mean - tickSeconds / 2);
}

/** The scheduler's slice (parseSlice), 200 samples on CPU 0 (about 1.5 s), given its tick (measureSchedulerTick). */
export async function measureSchedulerSlice(tickSeconds: number, onOutput?: (text: string) => void): Promise<number> {
  const result = await runMpi(mpirunArgv({ np: 1, program: builtFile(PINGPONG), args: ['slice', '200'] }), onOutput ?? (() => undefined));
  if (result.code !== 0) throw new PingPongError(`the slice probe beside a yielding thread failed (mpirun status ${result.code ?? result.signal})`);
  return parseSlice(result.stdout, tickSeconds, 'slice probe beside a yielding thread');
}

/** The recorder's cost per call from a relaying turn traced and untraced: a turn is two calls. */
export function recorderCallCost(tracedTurn: number, untracedTurn: number): number {
  return Math.max(0, (tracedTurn - untracedTurn) / 2);
}

/** One traced relaying turn: its time, and per turn the computations its trace shows (the recorder's work between two calls) and its real reads of the CPU clock (how many of its waits lasted 5 µs or more). */
export interface TracedRelayTurn {
  ranksPerCore: number;
  seconds: number;
  gapSeconds: number;
  realReads: number;
}

/**
 * The recorder's hidden cost per turn (CommTable.recorderTurn): how much more a traced relaying
 * turn costs with k ranks on a core than with 2, beyond the untraced turn's growth and the growth
 * of the computations the trace shows. What the trace shows at 2 ranks is already charged (the
 * calls' smallest CPU, the gaps), and PEM reproduces 2-rank traces; what grows with k and the
 * trace does not show is not: with 2 ranks a wait lasts one turn and the recorder estimates its
 * CPU-clock reads, with 8 every wait lasts seven and ends in a real read (a system call, part of
 * whose cost falls inside the call). Never below 0.
 */
export function recorderTurnCosts(traced: readonly TracedRelayTurn[], untraced: readonly SharedCorePoint[]): SharedCorePoint[] {
  const base = traced.find((t) => t.ranksPerCore === 2);
  const baseUntraced = untraced.find((p) => p.ranksPerCore === 2);
  if (!base || !baseUntraced) return [];
  return traced.flatMap((t) => {
    const plain = untraced.find((p) => p.ranksPerCore === t.ranksPerCore);
    if (!plain) return [];
    const hidden = t.seconds - base.seconds - (plain.seconds - baseUntraced.seconds) - (t.gapSeconds - base.gapSeconds);
    return [{ ranksPerCore: t.ranksPerCore, seconds: Math.max(0, hidden) }];
  });
}

/** Untraced and traced relaying runs, one after the other, per k and per pair (measureRecorderCosts). */
const RECORDER_COST_PAIRS = 3;

/**
 * The relaying turn untraced (CommTable.relayTurn) and traced by the recorder for each k of
 * `ranksPerCore` (which must hold 2), and from them the recorder's cost per call
 * (CommTable.recorderCallSeconds: the 2-rank turn traced less untraced, over its two calls; on a
 * shared core the whole call is on the path, so this is its full cost, which the gaps between
 * calls show only in part) and per turn (recorderTurnCosts). Each traced run follows an untraced
 * one of the same k, RECORDER_COST_PAIRS times; the untraced turn is the pairs' median and the
 * costs come from the medians of the pairs' differences: this VM's speed moves a relaying turn by
 * 3–4% from one run to the next, as much as the recorder's cost per turn at 8 ranks, and runs
 * seconds apart (the untraced turns measured first, then the traced ones) gave 0 to 0.28 µs for
 * it in ten calibrations in a row; a pair's runs see the same speed.
 */
export async function measureRecorderCosts(
  ranksPerCore: readonly number[],
  core = 0,
  onOutput?: (text: string) => void,
  keepDir?: string,
): Promise<{ relayTurn: SharedCorePoint[]; recorderCallSeconds: number; recorderTurn: SharedCorePoint[]; clockReadSeconds?: number; traced: TracedRelayTurn[] }> {
  if (!ranksPerCore.includes(2)) throw new PingPongError("the recorder's cost needs the relaying turn of 2 ranks");
  const traced: TracedRelayTurn[] = [];
  const relayTurn: SharedCorePoint[] = [];
  const clockReadSeconds: number[] = [];
  for (const k of ranksPerCore) {
    const pairs: { untraced: number; traced: TracedRelayTurn }[] = [];
    for (let pair = 0; pair < RECORDER_COST_PAIRS; pair++) {
      const [untraced] = await measureRelayTurns([k], core, onOutput);
      // With keepDir the last pair's trace stays (keepDir/relay-K) for a replay: validation/pem/relay-replay.mjs.
      const keep = keepDir !== undefined && pair === RECORDER_COST_PAIRS - 1;
      const dir = keep ? path.join(keepDir, `relay-${k}`) : fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-recorder-cost-'));
      try {
        const summary = await recordTrace({ np: k, outDir: dir, ...relayCommand(core), onOutput });
        if (summary.exitCode !== 0) throw new PingPongError(`the traced relaying ping-pong with ${k} ranks on core ${core} failed (mpirun status ${summary.exitCode ?? summary.signal})`);
        const seconds = parseRelayTurn(summary.stdout, `traced relaying ping-pong with ${k} ranks on core ${core}`);
        const { gapSeconds, realReads, clockReads } = perTurn(summary.archive);
        pairs.push({ untraced: untraced.seconds, traced: { ranksPerCore: k, seconds, gapSeconds, realReads } });
        clockReadSeconds.push(...clockReads);
      } finally {
        if (!keep) fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    const turns = pairedRelayTurns(k, pairs);
    relayTurn.push(turns.untraced);
    traced.push(turns.traced);
  }
  const pair = relayTurn.find((p) => p.ranksPerCore === 2)!;
  return {
    relayTurn,
    recorderCallSeconds: recorderCallCost(traced.find((t) => t.ranksPerCore === 2)!.seconds, pair.seconds),
    recorderTurn: recorderTurnCosts(traced, relayTurn),
    ...(clockReadSeconds.length > 0 ? { clockReadSeconds: medianSeconds(clockReadSeconds) } : {}),
    traced,
  };
}

/**
 * One k's relaying runs in pairs, untraced then traced: the untraced turn is their median, and
 * the traced one that plus the median of the pairs' differences (its gaps and real reads their
 * medians), so that a change of the machine's speed between pairs cancels.
 */
export function pairedRelayTurns(ranksPerCore: number, pairs: readonly { untraced: number; traced: TracedRelayTurn }[]): { untraced: SharedCorePoint; traced: TracedRelayTurn } {
  const untraced = medianSeconds(pairs.map((p) => p.untraced));
  return {
    untraced: { ranksPerCore, seconds: untraced },
    traced: {
      ranksPerCore,
      seconds: untraced + medianSeconds(pairs.map((p) => p.traced.seconds - p.untraced)),
      gapSeconds: medianSeconds(pairs.map((p) => p.traced.gapSeconds)),
      realReads: medianSeconds(pairs.map((p) => p.traced.realReads)),
    },
  };
}

/**
 * Per turn of a relaying trace (two calls: a receive and a send), its computations and its real
 * clock reads, over all ranks (the first computation, the start-up, left out); and the ranks'
 * median real read (RankLocation.clockRead) where they timed enough of them (CommTable.clockReadSeconds).
 */
function perTurn(trace: string): { gapSeconds: number; realReads: number; clockReads: number[] } {
  const archive = openOtf2Archive(trace);
  if (archive.fatal) throw new PingPongError(`${trace}: ${archive.fatal}`);
  const communicators = communicatorRanks(archive.defs);
  const cpuMetrics = cpuTimeMetrics(archive);
  let seconds = 0;
  let calls = 0;
  let realReads = 0;
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, communicators, cpuMetrics, archive.defs.clock.globalOffset, { sampleGaps: true });
    for (let op = stream.next(), first = true; op; op = stream.next(), first = false) {
      if (first || op.kind === OpKind.End) continue;
      seconds += op.compute;
      calls++;
    }
    realReads += stream.facts.gapsAfterRealRead;
    stream.close();
  }
  const clockReads = archive.ranks.flatMap((rank) => (rank.clockRead && rank.clockRead.count >= CLOCK_READS_MIN ? [rank.clockRead.seconds] : []));
  return calls > 0 ? { gapSeconds: (2 * seconds) / calls, realReads: (2 * realReads) / calls, clockReads } : { gapSeconds: 0, realReads: 0, clockReads };
}
