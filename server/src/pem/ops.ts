// What the PEM engine consumes: per rank, a stream of operations, each preceded by the CPU time
// the rank computed since the previous one ended. These are seed 000's PAG events (send,
// startRecv, endRecv) widened to MPI: non-blocking operations, waits and collectives.

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
  /** CPU seconds computed between the end of the previous operation and this one. */
  compute = 0;
  /**
   * Seconds the rank spent off its core after that computation, neither computing nor waiting
   * for a core: blocked in a system call (writing output, reading a file) or asleep. It takes
   * as long in every placement and uses no CPU. Absent (0) on most operations: a field on every
   * one cost the whole pipeline 2.5% of its speed.
   */
  offCpuSeconds?: number;
  /** Partner as a world rank (Send, Isend, Recv, Irecv). */
  peer = -1;
  comm = 0;
  tag = 0;
  bytes = 0;
  /** Request id (Isend, Irecv). */
  request = -1;
  /** Requests completed by a Wait (shared and empty for every other kind: no array per operation). */
  requests: readonly number[] = NO_REQUESTS;
  /** OTF2_CollectiveOp (Collective). */
  collective = 0;
  /** Root as a world rank, or -1. */
  root = -1;
  sizeSent = 0;
  sizeReceived = 0;
  /**
   * Recv, Irecv: CPU seconds the traced calls spent on this receive beyond their kind's smallest
   * (copying the message in, at the speed the run's caches gave it): the posting, and the poll
   * (MPI_Test family) that completed it; −1: not measured.
   */
  copySeconds = -1;
  /**
   * Recv, Irecv: posted with MPI_ANY_SOURCE / MPI_ANY_TAG (the recorder's `causal_lens:wildcards`
   * attribute); `peer` and `tag` are what matched in the trace. In a replay the message that
   * reaches the rank first matches. Absent on most operations, as offCpuSeconds.
   */
  anySource?: boolean;
  anyTag?: boolean;
  /**
   * Wait: the trace polled for it in a loop (MPI_Test-family calls failing, computation between
   * them): the CPU seconds of one poll and what follows it; 0 when the trace's first poll found it
   * done (a poll, not a wait inside MPI, should it wait in a replay). Absent on most operations, as offCpuSeconds.
   */
  pollInterval?: number;
  /**
   * Wait, with pollInterval above 0: the CPU seconds its trace's failed polls took (their tests
   * and the computation between them), which the engine charges the wait at most: a poller polls
   * once per round of its core, and the rounds of the trace's run are what its polls counted.
   * Absent on most operations, as offCpuSeconds.
   */
  polledSeconds?: number;
  /**
   * Recv, Wait: CPU a resumption after a real wait costs on a shared core, from the trace (the
   * median of its kind's calls that were off their core for most of a wait of RESUMED_WAIT_SECONDS
   * or more, less the kind's smallest: TraceOpsOptions.resumeCost); the engine charges it to a
   * replayed wait as long, and at least its switch to any. Absent on most operations, as offCpuSeconds.
   */
  resumeSeconds?: number;
  /** Send, Isend: goes to the source the rank's last wildcard receive matched in the replay, not to `peer` (dealing.ts). */
  toWildcardSource?: boolean;
  /** Send, Isend: what the message carries to its receiver's stream; Recv, Irecv: set by the engine to what the matched message carried (dealing.ts). */
  payload?: unknown;
  constructor(public kind: OpKind) {}
}

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
