// Computation taken from another trace of the same program, so that a prediction judges only
// scheduling and communication. This VM's speed changes under it by 14–130% between runs
// (shared/reference/placement.md §2 and §7), so validating a placement against a target run is
// only fair with that run's own compute times; users with a trace of the target machine's
// computation (another CPU, another compiler) get the same what-if.
// A rank that sent, received and joined collectives in the same order in both traces takes the
// other trace's computations segment by segment, a segment being the waits before one such call
// and the call: one by one where the segment has the same operations, else the other segment's
// total shared in proportion to this one's (a pipeline stage calls MPI_Waitsome only when its
// send slots are full, which depends on timing: scaling its whole stream by the ratio of the
// totals carried the traced placement's copies into the target, 8.9% short at 4/1 -> 4/2).
// A rank whose messages differ (MPI_ANY_SOURCE task assignment) keeps its own computations,
// scaled by the ratio of the two traces' totals for that rank. The receive copies the traces
// measured (PemOp.copySeconds) are CPU work on the same cores and follow the computations: the
// other's, or scaled. So does the time off the core (PemOp.offCpuSeconds), taken from the other
// segment; a rank whose messages differ keeps its own, which is not CPU to scale.
// Workers whose tasks are dealt in the replay (dealing.ts) run each other's tasks, so they share
// one scale, the ratio of their totals: a task's computation stays the task's.

import { Otf2Archive } from '../trace/otf2Archive';
import { OpKind, PemOp, RankStream } from './ops';
import { factorList, rankList } from './rankList';
import { Pace } from './pace';

/** How one rank's computations are replaced. */
export interface RankComputeMatch {
  /** The same sends, receives and collectives in the same order (waits may differ): computations are taken segment by segment. */
  aligned: boolean;
  /** Other trace's total computation over this trace's (used when not aligned). */
  scale: number;
  /** The two totals, CPU seconds. */
  ownSeconds: number;
  otherSeconds: number;
}

/** A segment of a rank's stream: the waits before one other operation, and that operation (the last; absent at the stream's end). */
function nextSegment(stream: RankStream): PemOp[] {
  const ops: PemOp[] = [];
  for (let op = stream.next(); op; op = stream.next()) {
    ops.push(op);
    if (op.kind !== OpKind.Wait) break;
  }
  return ops;
}

const segmentCompute = (ops: readonly PemOp[]): number => ops.reduce((sum, op) => sum + op.compute, 0);

/**
 * Compares a rank's operations in the two traces (a first pass over both, as long as the traces):
 * it gives the event loop turns (`pace`), and a cancellation stops it there.
 */
export async function matchRankCompute(own: RankStream, other: RankStream, pace: Pace): Promise<RankComputeMatch> {
  let aligned = true;
  let ownTotal = 0;
  let otherTotal = 0;
  for (;;) {
    const a = nextSegment(own);
    const b = nextSegment(other);
    if (a.length === 0 && b.length === 0) break;
    if (a.length === 0 || b.length === 0 || a[a.length - 1].kind !== b[b.length - 1].kind) aligned = false;
    ownTotal += segmentCompute(a);
    otherTotal += segmentCompute(b);
    if (pace.counted()) await pace.pause();
  }
  return { aligned, scale: ownTotal > 0 ? otherTotal / ownTotal : 1, ownSeconds: ownTotal, otherSeconds: otherTotal };
}

/** One scale for `ranks` (workers whose tasks move between them), from their totals together. */
export function poolComputeMatches(matches: RankComputeMatch[], ranks: Iterable<number>): void {
  const pooled = [...ranks];
  const own = pooled.reduce((sum, rank) => sum + matches[rank].ownSeconds, 0);
  const other = pooled.reduce((sum, rank) => sum + matches[rank].otherSeconds, 0);
  for (const rank of pooled) matches[rank] = { aligned: false, scale: own > 0 ? other / own : 1, ownSeconds: matches[rank].ownSeconds, otherSeconds: matches[rank].otherSeconds };
}

/** Lays the other segment's computations, copy and time off the core on this one's (aligned: their last operations match). */
function takeSegment(own: PemOp[], other: readonly PemOp[]): void {
  if (own.length === other.length) {
    own.forEach((op, i) => {
      const theirs = other[i];
      op.compute = theirs.compute;
      if (theirs.offCpuSeconds || op.offCpuSeconds) op.offCpuSeconds = theirs.offCpuSeconds ?? 0;
      if (theirs.copySeconds >= 0) op.copySeconds = theirs.copySeconds;
    });
    return;
  }
  const ownTotal = segmentCompute(own);
  const otherTotal = segmentCompute(other);
  const last = own[own.length - 1];
  const theirs = other[other.length - 1];
  for (const op of own) {
    op.compute = ownTotal > 0 ? (otherTotal * op.compute) / ownTotal : op === last ? otherTotal : 0;
    if (op.offCpuSeconds) op.offCpuSeconds = 0;
  }
  const offCpu = other.reduce((sum, op) => sum + (op.offCpuSeconds ?? 0), 0);
  if (offCpu > 0) last.offCpuSeconds = offCpu;
  if (theirs.copySeconds >= 0) last.copySeconds = theirs.copySeconds;
}

/** `stream` with its computations and receive copies `scale` times as long. */
export function scaledCompute(stream: RankStream, scale: number): RankStream {
  return {
    next: (): PemOp | undefined => {
      const op = stream.next();
      if (!op) return op;
      op.compute *= scale;
      if (op.copySeconds > 0) op.copySeconds *= scale;
      return op;
    },
  };
}

/** `own`'s operations with the computations of `other` (a stream over the same rank of the other trace). */
export function withComputeFrom(own: RankStream, other: RankStream, match: RankComputeMatch): RankStream {
  if (!match.aligned) return scaledCompute(own, match.scale);
  let segment: PemOp[] = [];
  let at = 0;
  return {
    next: (): PemOp | undefined => {
      if (at === segment.length) {
        segment = nextSegment(own);
        at = 0;
        if (segment.length === 0) return undefined;
        takeSegment(segment, nextSegment(other));
      }
      return segment[at++];
    },
  };
}

/**
 * PredictOptions.timedCompute's factor per rank: the target run's timed compute over the
 * computations' run's, 1 where either timed none; workers whose tasks are dealt in the replay
 * share one factor, the ratio of their totals (a worker's own total follows the tasks it got).
 */
export function timedComputeScales(timed: { source: readonly number[]; target: readonly number[] }, ranks: number, dealtWorkers: readonly Iterable<number>[]): number[] {
  const ratio = (source: number, target: number) => (source > 0 && target > 0 ? target / source : 1);
  const scales = Array.from({ length: ranks }, (_, rank) => ratio(timed.source[rank] ?? 0, timed.target[rank] ?? 0));
  for (const workers of dealtWorkers) {
    const pooled = [...workers];
    const scale = ratio(
      pooled.reduce((sum, rank) => sum + (timed.source[rank] ?? 0), 0),
      pooled.reduce((sum, rank) => sum + (timed.target[rank] ?? 0), 0),
    );
    for (const rank of pooled) scales[rank] = scale;
  }
  return scales;
}

/** Describes what was replaced, for the prediction's notes. */
export function describeComputeMatches(matches: readonly RankComputeMatch[], otherTrace: string, pooled: ReadonlySet<number> = new Set()): string[] {
  const notes: string[] = [];
  if (pooled.size > 0) {
    const ranks = [...pooled].sort((a, b) => a - b);
    notes.push(`computation from ${otherTrace}: ranks ${rankList(ranks)} run each other's tasks, so their own computations were scaled by one factor, ${matches[ranks[0]].scale.toFixed(3)}`);
  }
  const scaled = matches.map((m, rank) => ({ m, rank })).filter(({ m, rank }) => !m.aligned && !pooled.has(rank));
  if (scaled.length === 0) return notes;
  return [
    ...notes,
    `computation from ${otherTrace}: rank${scaled.length > 1 ? 's' : ''} ${rankList(scaled.map(({ rank }) => rank))} sent, received or joined collectives otherwise there, so ${scaled.length > 1 ? 'their' : 'its'} own computations were scaled by ${factorList(scaled.map(({ m }) => m.scale))}`,
  ];
}

/** Rank counts must agree; returns an explanation when they do not. */
export function computeTraceMismatch(own: Otf2Archive, other: Otf2Archive, otherTrace: string): string | undefined {
  if (other.ranks.length !== own.ranks.length) return `${otherTrace}: has ${other.ranks.length} ranks, the trace ${own.ranks.length}; computation can only come from a trace of the same ranks`;
  return undefined;
}
