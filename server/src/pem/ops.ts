// What the PEM engine consumes: per rank, a stream of operations, each preceded by the CPU time
// the rank computed since the previous one ended. These are seed 000's PAG events (send,
// startRecv, endRecv) widened to MPI: non-blocking operations, waits and collectives.

import { DOUBLE_MINUS_ONE, DOUBLE_ZERO, widenFields } from '../doubleFields';

export const enum OpKind {
  /** Blocking send (MPI_Send): eager below the table's eager limit, rendezvous above. */
  Send,
  /** Non-blocking send; completes in a later Wait naming its request. */
  Isend,
  /** Blocking receive (endRecv in seed 000). */
  Recv,
  /** Posting a non-blocking receive (startRecv); completes in a later Wait naming its request. */
  Irecv,
  /** Waits until every request in `requests` completed. */
  Wait,
  Collective,
  /** Seed 000's keep-alive: computation with no communication, dropped from the result. */
  KeepAlive,
  /** The rank's last computation; nothing follows. */
  End,
  /**
   * A collective round with one partner (collectives.ts): an eager send of `bytes` to `peer`,
   * then a blocking receive from it. The send is done as it starts, so the two are one operation.
   */
  Exchange,
}

const NO_REQUESTS: readonly number[] = [];

/**
 * A wait at least this long is a real one (PemOp.resumeSeconds): the rank left its core and other
 * work took it, with its caches. Shorter waits are a relay's: the rank's turn came back in the
 * calibrated switch (a wait of a few microseconds while its core-mates took theirs).
 */
export const RESUMED_WAIT_SECONDS = 200e-6;

export class PemOp {
  declare kind: OpKind;
  /** CPU seconds computed between the end of the previous operation and this one. */
  declare compute: number;
  /**
   * Seconds the rank spent off its core after that computation, neither computing nor waiting
   * for a core: blocked in a system call (writing output, reading a file) or asleep. It takes
   * as long in every placement and uses no CPU. Undefined on most operations: a number on every
   * one cost the whole pipeline 2.5% of its speed.
   */
  declare offCpuSeconds?: number;
  /** Partner as a world rank (Send, Isend, Recv, Irecv). */
  declare peer: number;
  declare comm: number;
  declare tag: number;
  declare bytes: number;
  /** Request id (Isend, Irecv). */
  declare request: number;
  /** Requests completed by a Wait (shared and empty for every other kind: no array per operation). */
  declare requests: readonly number[];
  /** OTF2_CollectiveOp (Collective). */
  declare collective: number;
  /** Root as a world rank, or -1. */
  declare root: number;
  declare sizeSent: number;
  declare sizeReceived: number;
  /**
   * Recv, Irecv: CPU seconds the traced calls spent on this receive beyond their kind's smallest
   * (copying the message in, at the speed the run's caches gave it): the posting, and the poll
   * (MPI_Test family) that completed it; −1: not measured.
   */
  declare copySeconds: number;
  /**
   * Recv, Irecv: posted with MPI_ANY_SOURCE / MPI_ANY_TAG (the recorder's `causal_lens:wildcards`
   * attribute); `peer` and `tag` are what matched in the trace. In a replay the message that
   * reaches the rank first matches. Undefined on most operations, as offCpuSeconds.
   */
  declare anySource?: boolean;
  declare anyTag?: boolean;
  /**
   * Wait: the trace polled for it in a loop (MPI_Test-family calls failing, computation between
   * them): the CPU seconds of one poll and what follows it; 0 when the trace's first poll found it
   * done (a poll, not a wait inside MPI, should it wait in a replay). Undefined on most operations, as offCpuSeconds.
   */
  declare pollInterval?: number;
  /**
   * Wait, with pollInterval above 0: the CPU seconds its trace's failed polls took (their tests
   * and the computation between them), which the engine charges the wait at most: a poller polls
   * once per round of its core, and the rounds of the trace's run are what its polls counted.
   * Undefined on most operations, as offCpuSeconds.
   */
  declare polledSeconds?: number;
  /**
   * Recv, Wait: CPU a resumption after a real wait costs on a shared core, from the trace (the
   * median of its kind's calls that were off their core for most of a wait of RESUMED_WAIT_SECONDS
   * or more, less the kind's smallest: TraceOpsOptions.resumeCost); the engine charges it to a
   * replayed wait as long, and at least its switch to any. Undefined on most operations, as offCpuSeconds.
   */
  declare resumeSeconds?: number;
  /** Send, Isend: goes to the source the rank's last wildcard receive matched in the replay, not to `peer` (dealing.ts). */
  declare toWildcardSource?: boolean;
  /** Send, Isend: what the message carries to its receiver's stream; Recv, Irecv: set by the engine to what the matched message carried (dealing.ts). */
  declare payload?: unknown;
  // Every field set here, in one order, rather than by class field initializers, after which each
  // `new` went through V8's generic construct stub: the whole pipeline −0.9% in instructions.
  constructor(kind: OpKind) {
    this.kind = kind;
    this.compute = DOUBLE_ZERO;
    this.offCpuSeconds = undefined;
    this.peer = -1;
    this.comm = DOUBLE_ZERO;
    this.tag = DOUBLE_ZERO;
    this.bytes = DOUBLE_ZERO;
    this.request = DOUBLE_MINUS_ONE;
    this.requests = NO_REQUESTS;
    this.collective = DOUBLE_ZERO;
    this.root = -1;
    this.sizeSent = DOUBLE_ZERO;
    this.sizeReceived = DOUBLE_ZERO;
    this.copySeconds = DOUBLE_MINUS_ONE;
    this.anySource = undefined;
    this.anyTag = undefined;
    this.pollInterval = undefined;
    this.polledSeconds = undefined;
    this.resumeSeconds = undefined;
    this.toWildcardSource = undefined;
    this.payload = undefined;
  }
}

// An operation's fields are set again after its construction, its optional ones take a number, a
// boolean or an object on a few operations, and a wait's requests are an array of another kind
// than NO_REQUESTS: the first such store made the field mutable or widened its type for every
// operation, which threw away the optimized code that relied on it (the constructor, the
// conversion's, the engine's). Done here once, before any code is optimized (doubleFields.ts).
const widened = new PemOp(OpKind.End);
widenFields(widened);
widened.requests = [0.5];

/** One rank's operations, pulled one at a time; undefined after the End. */
export interface RankStream {
  next(): PemOp | undefined;
}

/** A rank's stream over a trace file, closed when done with. */
export type ClosableStream = RankStream & { close(): void };

/** A stream over an array, for tests and generated workloads. */
export function arrayStream(ops: PemOp[]): RankStream {
  let i = 0;
  return { next: () => ops[i++] };
}

/** Builds an operation; fields not given keep their defaults. */
export function op(kind: OpKind, fields: Partial<Omit<PemOp, 'kind'>> = {}): PemOp {
  return Object.assign(new PemOp(kind), fields);
}
