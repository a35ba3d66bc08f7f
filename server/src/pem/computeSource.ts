// Computation taken from another trace of the same program, so that a prediction judges only
// scheduling and communication. This VM's speed changes under it by 14–130% between runs
// (shared/reference/placement.md §2 and §7), so validating a placement against a target run is
// only fair with that run's own compute times; users with a trace of the target machine's
// computation (another CPU, another compiler) get the same what-if.
// A rank that made the same calls in both traces takes the other trace's computations one by
// one; a rank whose calls differ (MPI_ANY_SOURCE task assignment, timing-dependent MPI_Test
// polls) keeps its own, scaled by the ratio of the two traces' totals for that rank. The receive
// copies the traces measured (PemOp.copySeconds) are CPU work on the same cores and follow the
// computations: taken one by one, or scaled. So does the time off the core (PemOp.offCpuSeconds),
// taken one by one; a rank whose calls differ keeps its own, which is not CPU to scale.
// Workers whose tasks are dealt in the replay (dealing.ts) run each other's tasks, so they share
// one scale, the ratio of their totals: a task's computation stays the task's.

import { Otf2Archive } from '../trace/otf2Archive';
import { PemOp, RankStream } from './ops';

/** How one rank's computations are replaced. */
export interface RankComputeMatch {
  /** Same operation kinds in the same order: computations are taken one by one. */
  sameCalls: boolean;
  /** Other trace's total computation over this trace's (used when the calls differ). */
  scale: number;
  /** The two totals, CPU seconds. */
  ownSeconds: number;
  otherSeconds: number;
}

/** Compares a rank's operations in the two traces (a first pass over both). */
export function matchRankCompute(own: RankStream, other: RankStream): RankComputeMatch {
  let sameCalls = true;
  let ownTotal = 0;
  let otherTotal = 0;
  for (;;) {
    const a = own.next();
    const b = other.next();
    if (!a && !b) break;
    if (!a || !b || a.kind !== b.kind) sameCalls = false;
    ownTotal += a?.compute ?? 0;
    otherTotal += b?.compute ?? 0;
  }
  return { sameCalls, scale: ownTotal > 0 ? otherTotal / ownTotal : 1, ownSeconds: ownTotal, otherSeconds: otherTotal };
}

/** One scale for `ranks` (workers whose tasks move between them), from their totals together. */
export function poolComputeMatches(matches: RankComputeMatch[], ranks: Iterable<number>): void {
  const pooled = [...ranks];
  const own = pooled.reduce((sum, rank) => sum + matches[rank].ownSeconds, 0);
  const other = pooled.reduce((sum, rank) => sum + matches[rank].otherSeconds, 0);
  for (const rank of pooled) matches[rank] = { sameCalls: false, scale: own > 0 ? other / own : 1, ownSeconds: matches[rank].ownSeconds, otherSeconds: matches[rank].otherSeconds };
}

/** `own`'s operations with the computations of `other` (a stream over the same rank of the other trace). */
export function withComputeFrom(own: RankStream, other: RankStream, match: RankComputeMatch): RankStream {
  return {
    next: (): PemOp | undefined => {
      const op = own.next();
      if (!op) return op;
      if (match.sameCalls) {
        const theirs = other.next();
        op.compute = theirs?.compute ?? op.compute;
        if (theirs && (theirs.offCpuSeconds || op.offCpuSeconds)) op.offCpuSeconds = theirs.offCpuSeconds ?? 0;
        if (theirs && theirs.copySeconds >= 0) op.copySeconds = theirs.copySeconds;
      } else {
        op.compute *= match.scale;
        if (op.copySeconds > 0) op.copySeconds *= match.scale;
      }
      return op;
    },
  };
}

/** Describes what was replaced, for the prediction's notes. */
export function describeComputeMatches(matches: readonly RankComputeMatch[], otherTrace: string, pooled: ReadonlySet<number> = new Set()): string[] {
  const notes: string[] = [];
  if (pooled.size > 0) {
    const ranks = [...pooled].sort((a, b) => a - b);
    notes.push(`computation from ${otherTrace}: ranks ${ranks.join(', ')} run each other's tasks, so their own computations were scaled by one factor, ${matches[ranks[0]].scale.toFixed(3)}`);
  }
  const scaled = matches.map((m, rank) => ({ m, rank })).filter(({ m, rank }) => !m.sameCalls && !pooled.has(rank));
  if (scaled.length === 0) return notes;
  return [
    ...notes,
    `computation from ${otherTrace}: rank${scaled.length > 1 ? 's' : ''} ${scaled.map(({ rank }) => rank).join(', ')} made other calls there, so ${scaled.length > 1 ? 'their' : 'its'} own computations were scaled by ${scaled.map(({ m }) => m.scale.toFixed(3)).join(', ')}`,
  ];
}

/** Rank counts must agree; returns an explanation when they do not. */
export function computeTraceMismatch(own: Otf2Archive, other: Otf2Archive, otherTrace: string): string | undefined {
  if (other.ranks.length !== own.ranks.length) return `${otherTrace}: has ${other.ranks.length} ranks, the trace ${own.ranks.length}; computation can only come from a trace of the same ranks`;
  return undefined;
}
