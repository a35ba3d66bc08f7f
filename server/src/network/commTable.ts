// The communication-time table: how long a message of a given size takes one way, inside a node
// and between nodes. `causal-lens calibrate` measures one (ping-pong, one-way = half the round
// trip); presets and latency/bandwidth models stand in for networks nobody measured here. The
// what-if engine (server/src/pem/) swaps tables to predict other networks (seed 000, N-PEM).
//
// JSON (schema "causal-lens/comm-table@1"):
//   {
//     "schema": "causal-lens/comm-table@1",
//     "name": "measured on <hostname> (Open MPI 4.1.4, TCP/shared memory)",
//     "host": "<hostname>",
//     "source": "measured" | "model",
//     "createdAt": "ISO date",
//     "eagerLimitBytes": 65536,
//     "intraNode": [{"bytes": 0, "seconds": 1.2e-6, "samples": 1000}, ...],
//     "interNode": [{"bytes": 0, "seconds": 2.5e-5, "samples": 1000}, ...],
//     "model": {"latencySeconds": 5e-5, "bandwidthBytesPerSecond": 1.25e8},
//     "sharedCore": [{"ranksPerCore": 2, "seconds": 7.7e-7}, {"ranksPerCore": 4, "seconds": 1.6e-6}, ...],
//     "relayTurn": [{"ranksPerCore": 2, "seconds": 8.4e-7}, {"ranksPerCore": 4, "seconds": 9.7e-7}, ...],
//     "recorderCallSeconds": 1.5e-7,
//     "recorderTurn": [{"ranksPerCore": 2, "seconds": 0}, {"ranksPerCore": 4, "seconds": 8e-8}, {"ranksPerCore": 8, "seconds": 1.4e-7}],
//     "clockReadSeconds": 5.3e-7,
//     "stackCpu": {"perMessageSeconds": 2e-5, "perByteSeconds": 1.5e-9},
//     "connectSeconds": 0.012,
//     "schedulerTickSeconds": 0.004,
//     "schedulerSliceSeconds": 0.0014,
//     "interNodeSharedMemory": true
//   }
// Any point of intraNode, interNode, sharedCore, relayTurn and recorderTurn may carry "low" and
// "high": the fastest and slowest of the repeated measurements whose median "seconds" is
// (`calibrate --repeat`); PEM predicts with each bound for the spread of its prediction.
// Sizes are strictly increasing (calibration uses 0, 1, 2, 4 … 16 MiB). Either list may be
// absent (a one-node measurement has no interNode), not both; "model" is required when
// source = "model". "sharedCore" (optional, increasing ranksPerCore) is the 0-byte one-way time
// inside a node when that many ranks share one core: a pair ping-pongs while the others wait in
// an MPI call, yielding the core (mpi_yield_when_idle). Every message then waits for its
// receiver's turn, which the 2-rank intra-node list does not hold (docs/pem.md, "Ranks sharing a
// core"). "relayTurn" (optional, same form) is the turn of each rank when that many share one core
// and all relay messages (k/2 pairs ping-ponging at once: a round trip over k), what a rank spends
// taking the core back after a wait ("Taking a shared core back"). "recorderCallSeconds"
// (optional) is the recorder's cost per MPI call on this machine (traced minus untraced relaying
// turns of two ranks on a core, over their two calls), which `--event-cost-ns auto` removes at
// least. "recorderTurn" (optional, same form as relayTurn) is the recorder's CPU per turn of a
// rank on a shared core that its trace does not show, beyond what it shows at 2 ranks per core
// (its CPU-clock reads, real system calls once waits last 5 µs or more): PEM adds it to the turn
// when the tracer stays in the prediction. "clockReadSeconds" (optional) is the recorder's real
// read of a thread's CPU clock during the calibration (the median its relaying traces timed): a
// system call, whose time follows the kernel's speed; a trace that timed its own reads slower ran
// its turns slower by as much (docs/pem.md, "The kernel's speed"). "stackCpu" (optional) is the
// CPU a message between nodes costs outside the ranks (the network stack, or a link emulator such as the validation's
// nfqdelay): it is inside the one-way times, where the cores were idle, but takes CPU from ranks
// that compute. "connectSeconds" (optional) is how much longer the first message between two
// ranks on different nodes takes than later ones: Open MPI's TCP BTL opens a connection at the
// first message (a few round trips).
// "schedulerTickSeconds" (optional) is the operating system's scheduler tick as a rank waiting in
// an MPI call sees it when a computing process holds its core: it yields, and gets the core back
// at the next tick (calibrate reads it as the coarse monotonic clock's step).
// "schedulerSliceSeconds" (optional) is how long a process that has just waited keeps its core
// against one that wants it: its slice (Linux's EEVDF base slice), then the next tick takes it.
// With it PEM lets a node's ranks take its cores in turns rather than share them with infinitely
// small quanta (docs/pem.md, "Taking turns").
// "interNodeSharedMemory" (optional) says the nodes share memory (nodes emulated on one machine by
// pinning ranks to cores): a message between them is the receiver's copy, CPU work as inside a
// node, and there is no link to queue for; absent, the network moves the data (a NIC's DMA).

import * as fs from 'node:fs';
import { jsonSyntaxProblem, quotedValue } from '../jsonSyntax';
import { readErrorReason } from '../readError';

export const COMM_TABLE_SCHEMA = 'causal-lens/comm-table@1';

/** The fewest timed reads of the CPU clock whose median says a rank's kernel speed (clockReadSeconds): a relaying run at 2 ranks per core times a few, at 8 one per turn. */
export const CLOCK_READS_MIN = 100;

export interface CommPoint extends MeasuredSpread {
  bytes: number;
  /** One-way time of a message of `bytes`. */
  seconds: number;
  samples: number;
}

export interface SharedCorePoint extends MeasuredSpread {
  ranksPerCore: number;
  seconds: number;
}

/** A point measured several times: `seconds` is their median, these their extremes. */
export interface MeasuredSpread {
  low?: number;
  high?: number;
}

export type SpreadBound = 'low' | 'high';

/** The lists whose points may carry a spread (MeasuredSpread). */
const SPREAD_LISTS = ['intraNode', 'interNode', 'sharedCore', 'relayTurn', 'recorderTurn'] as const;

/**
 * The table with every point at its fastest ('low') or slowest ('high') measurement; undefined
 * when no point's bound differs from its median (measured once, or its repeats agreed). A
 * machine whose speed moves between calibrations (a VM's, in phases) moves its predictions as
 * much: predicting with both bounds shows how much.
 */
export function tableAtBound(table: CommTable, bound: SpreadBound): CommTable | undefined {
  let spread = false;
  const bounded: CommTable = { ...table };
  for (const key of SPREAD_LISTS) {
    const points = table[key];
    if (!points) continue;
    (bounded[key] as MeasuredSpread[]) = points.map((point: CommPoint | SharedCorePoint) => {
      const seconds = point[bound];
      if (seconds === undefined || seconds === point.seconds) return point;
      spread = true;
      return { ...point, seconds };
    });
  }
  return spread ? bounded : undefined;
}

export interface CommModel {
  latencySeconds: number;
  bandwidthBytesPerSecond: number;
}

export interface CommTable {
  schema: typeof COMM_TABLE_SCHEMA;
  name: string;
  /** The machine a measured table was measured on (its host name, as traces record theirs). */
  host?: string;
  source: 'measured' | 'model';
  createdAt: string;
  /** Messages up to this size are sent eagerly; larger ones wait for the receiver (rendezvous). */
  eagerLimitBytes: number;
  intraNode?: CommPoint[];
  interNode?: CommPoint[];
  model?: CommModel;
  sharedCore?: SharedCorePoint[];
  relayTurn?: SharedCorePoint[];
  recorderCallSeconds?: number;
  recorderTurn?: SharedCorePoint[];
  clockReadSeconds?: number;
  stackCpu?: StackCpu;
  connectSeconds?: number;
  schedulerTickSeconds?: number;
  schedulerSliceSeconds?: number;
  interNodeSharedMemory?: boolean;
}

export interface StackCpu {
  perMessageSeconds: number;
  perByteSeconds: number;
}

export class CommTableError extends Error {}

export type CommTablePreset = 'ethernet-10m' | 'gbe' | '10gbe' | 'ib-100g';

/** Beyond an hour a table's time describes no network or machine: a typo or a broken measurement. */
const MAX_SECONDS = 3600;

/** Open MPI's TCP BTL eager limit (btl_tcp_eager_limit), the default for tables without a measurement. */
const DEFAULT_EAGER_LIMIT = 65536;

const PRESET_MODELS: Record<CommTablePreset, CommModel & { description: string }> = {
  'ethernet-10m': { latencySeconds: 1e-3, bandwidthBytesPerSecond: 10e6 / 8, description: '10 Mbit/s Ethernet, 1 ms latency' },
  gbe: { latencySeconds: 50e-6, bandwidthBytesPerSecond: 1e9 / 8, description: '1 Gbit/s Ethernet, 50 µs latency' },
  '10gbe': { latencySeconds: 10e-6, bandwidthBytesPerSecond: 10e9 / 8, description: '10 Gbit/s Ethernet, 10 µs latency' },
  'ib-100g': { latencySeconds: 1.5e-6, bandwidthBytesPerSecond: 100e9 / 8, description: 'InfiniBand 100 Gbit/s (EDR), 1.5 µs latency' },
};

export const COMM_TABLE_PRESETS: readonly { name: CommTablePreset; description: string }[] = (
  Object.keys(PRESET_MODELS) as CommTablePreset[]
).map((name) => ({ name, description: PRESET_MODELS[name].description }));

/** The sizes calibration measures: 0, then powers of two from 1 B to 16 MiB. */
export const CALIBRATION_SIZES: readonly number[] = [0, ...Array.from({ length: 25 }, (_, i) => 2 ** i)];

export function isCommTablePreset(name: string): name is CommTablePreset {
  return Object.prototype.hasOwnProperty.call(PRESET_MODELS, name);
}

/**
 * Why a latency and bandwidth describe no network, or undefined: the table made of them (sizes up
 * to 16 MiB, CALIBRATION_SIZES) must keep every time within the hour a table may hold.
 */
function modelProblem(latencySeconds: number, bandwidthBytesPerSecond: number): string | undefined {
  if (!(latencySeconds >= 0 && latencySeconds <= MAX_SECONDS)) return `latency must be from 0 to ${MAX_SECONDS} s, got ${latencySeconds}`;
  if (!(bandwidthBytesPerSecond > 0 && Number.isFinite(bandwidthBytesPerSecond))) return `bandwidth must be a finite number > 0, got ${bandwidthBytesPerSecond}`;
  const largest = CALIBRATION_SIZES[CALIBRATION_SIZES.length - 1];
  if (latencySeconds + largest / bandwidthBytesPerSecond > MAX_SECONDS) return `a ${largest >> 20} MiB message would take more than ${MAX_SECONDS} s at ${latencySeconds} s and ${bandwidthBytesPerSecond} bytes/s`;
  return undefined;
}

/** A table for a network described only by latency and bandwidth (between nodes; no intra-node list). */
export function modelCommTable(name: string, latencySeconds: number, bandwidthBytesPerSecond: number): CommTable {
  const problem = modelProblem(latencySeconds, bandwidthBytesPerSecond);
  if (problem) throw new CommTableError(`${name}: ${problem}`);
  return {
    schema: COMM_TABLE_SCHEMA,
    name,
    source: 'model',
    createdAt: new Date(0).toISOString(),
    eagerLimitBytes: DEFAULT_EAGER_LIMIT,
    interNode: CALIBRATION_SIZES.map((bytes) => ({ bytes, seconds: latencySeconds + bytes / bandwidthBytesPerSecond, samples: 0 })),
    model: { latencySeconds, bandwidthBytesPerSecond },
  };
}

export function presetCommTable(name: CommTablePreset): CommTable {
  const preset = PRESET_MODELS[name];
  if (!preset) throw new CommTableError(`unknown network preset "${name}" (known: ${Object.keys(PRESET_MODELS).join(', ')})`);
  return modelCommTable(name, preset.latencySeconds, preset.bandwidthBytesPerSecond);
}

/**
 * Seconds per byte a message occupies the link between nodes: the inverse of the bandwidth (the
 * model's, or the slope between the two largest measured sizes); 0 when unknown.
 */
export function linkSecondsPerByte(table: CommTable): number {
  const points = table.interNode;
  if (!points || points.length < 2) return table.model ? 1 / table.model.bandwidthBytesPerSecond : 0;
  const a = points[points.length - 2];
  const b = points[points.length - 1];
  return Math.max(0, (b.seconds - a.seconds) / (b.bytes - a.bytes));
}

/**
 * One-way time of a `bytes` message: piecewise linear between measured sizes, linear
 * extrapolation past the last two (flat below the first), from the intra- or inter-node list,
 * falling back to the other when one is absent.
 */
export function oneWaySeconds(table: CommTable, bytes: number, sameNode: boolean): number {
  const points = sameNode ? table.intraNode ?? table.interNode : table.interNode ?? table.intraNode;
  if (!points || points.length === 0) {
    const model = table.model!;
    return model.latencySeconds + bytes / model.bandwidthBytesPerSecond;
  }
  if (points.length === 1 || bytes <= points[0].bytes) return points[0].seconds;
  let hi = 1;
  // Tables have ~26 points; a linear scan from the small end is as fast as a bisection here.
  while (hi < points.length - 1 && points[hi].bytes < bytes) hi++;
  const a = points[hi - 1];
  const b = points[hi];
  const t = a.seconds + ((b.seconds - a.seconds) * (bytes - a.bytes)) / (b.bytes - a.bytes);
  return Math.max(0, t);
}

/**
 * How much longer a message waits for its receiver's turn when `ranksPerCore` ranks share the
 * receiver's core than when 2 do (the intra-node list's own setting): piecewise linear in the
 * number of ranks over the sharedCore points, extrapolated past the last two; 0 at 2 ranks or
 * fewer and without points.
 */
export function receiverTurnSeconds(table: CommTable, ranksPerCore: number): number {
  const points = table.sharedCore;
  if (!points || points.length < 2 || ranksPerCore <= 2) return 0;
  return Math.max(0, sharedCoreSeconds(points, ranksPerCore) - sharedCoreSeconds(points, 2));
}

/**
 * The CPU a rank spends taking back a core that `ranksPerCore` ranks share, after a wait: the
 * relaying turn (relayTurn, piecewise linear in the ranks per core) when the table has two or
 * more of them; else the sharedCore one-way time at 2 ranks (with two ranks on one core a
 * message is one turn, all of it CPU: the receiver's switch and poll, its receive, its reply)
 * or, with more, the calibration's polling turn 2·(L(k) − L(2))/(k − 2) (k − 2 ranks poll in one
 * round trip) when longer. 0 below 2 ranks per core or without points.
 */
export function switchInSeconds(table: CommTable, ranksPerCore: number): number {
  if (ranksPerCore < 2) return 0;
  if (table.relayTurn && table.relayTurn.length >= 2) return sharedCoreSeconds(table.relayTurn, ranksPerCore);
  const points = table.sharedCore;
  if (!points || points.length < 2) return 0;
  const poll = ranksPerCore > 2 ? (2 * receiverTurnSeconds(table, ranksPerCore)) / (ranksPerCore - 2) : 0;
  return Math.max(sharedCoreSeconds(points, 2), poll);
}

/** The recorder's hidden CPU per turn at `ranksPerCore` (CommTable.recorderTurn); 0 without it or below 2 ranks per core. */
export function recorderTurnSeconds(table: CommTable, ranksPerCore: number): number {
  if (ranksPerCore < 2 || !table.recorderTurn?.length) return 0;
  if (table.recorderTurn.length === 1) return table.recorderTurn[0].seconds;
  return Math.max(0, sharedCoreSeconds(table.recorderTurn, ranksPerCore));
}

/** A sharedCore, relayTurn or recorderTurn time at `ranksPerCore`: piecewise linear, extrapolated past the last two points. */
function sharedCoreSeconds(points: readonly SharedCorePoint[], ranksPerCore: number): number {
  let hi = 1;
  while (hi < points.length - 1 && points[hi].ranksPerCore < ranksPerCore) hi++;
  const a = points[hi - 1];
  const b = points[hi];
  if (ranksPerCore <= a.ranksPerCore) return a.seconds;
  return a.seconds + ((b.seconds - a.seconds) * (ranksPerCore - a.ranksPerCore)) / (b.ranksPerCore - a.ranksPerCore);
}

export function loadCommTable(path: string): CommTable {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (error) {
    throw new CommTableError(`${path}: cannot read the communication table (${readErrorReason(error)})`);
  }
  return parseCommTable(text, path);
}

/** Parses and checks a table; `source` names the file in every message. */
export function parseCommTable(text: string, source: string): CommTable {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CommTableError(`${source}: not JSON (${jsonSyntaxProblem(error)})`);
  }
  const fail = (where: string, what: string): never => {
    throw new CommTableError(`${source}: ${where}: ${what}`);
  };
  if (!isObject(raw)) return fail('$', 'expected an object');
  if (raw.schema !== COMM_TABLE_SCHEMA) fail('$.schema', `expected "${COMM_TABLE_SCHEMA}", got ${JSON.stringify(raw.schema)}`);
  if (typeof raw.name !== 'string') fail('$.name', 'expected a string');
  if (raw.source !== 'measured' && raw.source !== 'model') fail('$.source', `expected "measured" or "model", got ${JSON.stringify(raw.source)}`);
  if (typeof raw.createdAt !== 'string') fail('$.createdAt', 'expected an ISO date string');
  const eager = raw.eagerLimitBytes;
  if (typeof eager !== 'number' || !Number.isInteger(eager) || eager < 0) fail('$.eagerLimitBytes', 'expected a whole number ≥ 0');
  const table: CommTable = {
    schema: COMM_TABLE_SCHEMA,
    name: raw.name as string,
    source: raw.source as CommTable['source'],
    createdAt: raw.createdAt as string,
    eagerLimitBytes: eager as number,
  };
  if (raw.host !== undefined) {
    if (typeof raw.host !== 'string' || raw.host === '') fail('$.host', 'expected a host name');
    table.host = raw.host as string;
  }
  for (const key of ['intraNode', 'interNode'] as const) {
    if (raw[key] !== undefined) table[key] = parsePoints(raw[key], `$.${key}`, fail);
  }
  if (raw.sharedCore !== undefined) table.sharedCore = parseRanksPerCorePoints(raw.sharedCore, '$.sharedCore', fail);
  if (raw.relayTurn !== undefined) {
    table.relayTurn = parseRanksPerCorePoints(raw.relayTurn, '$.relayTurn', fail);
    // One point gives no dependence on the ranks per core: refused rather than ignored.
    if (table.relayTurn.length < 2) fail('$.relayTurn', `needs two or more points (ranks per core), got ${table.relayTurn.length}`);
  }
  if (raw.recorderTurn !== undefined) table.recorderTurn = parseRanksPerCorePoints(raw.recorderTurn, '$.recorderTurn', fail);
  for (const key of ['recorderCallSeconds', 'clockReadSeconds', 'connectSeconds', 'schedulerTickSeconds', 'schedulerSliceSeconds'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value >= 0 && value <= MAX_SECONDS)) fail(`$.${key}`, `expected seconds from 0 to ${MAX_SECONDS}`);
    table[key] = value as number;
  }
  if (raw.stackCpu !== undefined) table.stackCpu = parseStackCpu(raw.stackCpu, fail);
  if (raw.interNodeSharedMemory !== undefined) {
    if (typeof raw.interNodeSharedMemory !== 'boolean') fail('$.interNodeSharedMemory', 'expected true or false');
    table.interNodeSharedMemory = raw.interNodeSharedMemory as boolean;
  }
  if (raw.model !== undefined) {
    const model = raw.model;
    if (!isObject(model)) return fail('$.model', 'expected an object');
    const latency = model.latencySeconds;
    const bandwidth = model.bandwidthBytesPerSecond;
    if (typeof latency !== 'number' || typeof bandwidth !== 'number') return fail('$.model', 'expected numbers latencySeconds and bandwidthBytesPerSecond');
    const problem = modelProblem(latency, bandwidth);
    if (problem) fail('$.model', problem);
    table.model = { latencySeconds: latency as number, bandwidthBytesPerSecond: bandwidth as number };
  } else if (table.source === 'model') {
    fail('$.model', 'required when source is "model"');
  }
  if (!table.intraNode?.length && !table.interNode?.length && !table.model) fail('$', 'needs intraNode or interNode points (or a model)');
  return table;
}

function parsePoints(value: unknown, where: string, fail: (where: string, what: string) => never): CommPoint[] {
  if (!Array.isArray(value)) return fail(where, 'expected an array of {bytes, seconds, samples}');
  const points: CommPoint[] = [];
  value.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(item)) fail(at, 'expected an object {bytes, seconds, samples}');
    const { bytes, seconds, samples } = item as Record<string, unknown>;
    if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0) fail(`${at}.bytes`, 'expected a whole number ≥ 0');
    if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= MAX_SECONDS)) fail(`${at}.seconds`, `expected seconds from 0 to ${MAX_SECONDS}`);
    if (samples !== undefined && (typeof samples !== 'number' || !Number.isInteger(samples) || samples < 0)) fail(`${at}.samples`, 'expected a whole number ≥ 0');
    if (i > 0 && (bytes as number) <= points[i - 1].bytes) fail(`${at}.bytes`, `sizes must increase (${bytes} after ${points[i - 1].bytes})`);
    points.push({ bytes: bytes as number, seconds: seconds as number, samples: (samples as number | undefined) ?? 0, ...parseSpread(item as Record<string, unknown>, seconds as number, at, fail) });
  });
  return points;
}

function parseRanksPerCorePoints(value: unknown, where: string, fail: (where: string, what: string) => never): SharedCorePoint[] {
  if (!Array.isArray(value)) return fail(where, 'expected an array of {ranksPerCore, seconds}');
  const points: SharedCorePoint[] = [];
  value.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(item)) fail(at, 'expected an object {ranksPerCore, seconds}');
    const { ranksPerCore, seconds } = item as Record<string, unknown>;
    if (typeof ranksPerCore !== 'number' || !Number.isInteger(ranksPerCore) || ranksPerCore < 1) fail(`${at}.ranksPerCore`, 'expected a whole number ≥ 1');
    if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= MAX_SECONDS)) fail(`${at}.seconds`, `expected seconds from 0 to ${MAX_SECONDS}`);
    if (i > 0 && (ranksPerCore as number) <= points[i - 1].ranksPerCore) fail(`${at}.ranksPerCore`, `must increase (${ranksPerCore} after ${points[i - 1].ranksPerCore})`);
    points.push({ ranksPerCore: ranksPerCore as number, seconds: seconds as number, ...parseSpread(item as Record<string, unknown>, seconds as number, at, fail) });
  });
  return points;
}

/** A point's optional low and high: finite, around its median (low ≤ seconds ≤ high). */
function parseSpread(item: Record<string, unknown>, seconds: number, at: string, fail: (where: string, what: string) => never): MeasuredSpread {
  const spread: MeasuredSpread = {};
  const { low, high } = item;
  if (low !== undefined) {
    if (typeof low !== 'number' || !Number.isFinite(low) || low < 0 || low > seconds) fail(`${at}.low`, `expected a finite number from 0 to the point's seconds (${seconds}), got ${quotedValue(low)}`);
    spread.low = low as number;
  }
  if (high !== undefined) {
    if (typeof high !== 'number' || !(high >= seconds && high <= MAX_SECONDS)) fail(`${at}.high`, `expected a number from the point's seconds (${seconds}) to ${MAX_SECONDS}, got ${quotedValue(high)}`);
    spread.high = high as number;
  }
  return spread;
}

function parseStackCpu(value: unknown, fail: (where: string, what: string) => never): StackCpu {
  if (!isObject(value)) return fail('$.stackCpu', 'expected an object {perMessageSeconds, perByteSeconds}');
  const { perMessageSeconds, perByteSeconds } = value;
  for (const [key, v] of [['perMessageSeconds', perMessageSeconds], ['perByteSeconds', perByteSeconds]] as const) {
    if (typeof v !== 'number' || !(v >= 0 && v <= MAX_SECONDS)) fail(`$.stackCpu.${key}`, `expected seconds from 0 to ${MAX_SECONDS}`);
  }
  return { perMessageSeconds: perMessageSeconds as number, perByteSeconds: perByteSeconds as number };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
