// Several replays of one trace read it once. Each rank's operations are read from the trace when
// the first replay asks for them and held until the last has taken them, and each replay but the
// last to take an operation gets a copy: an engine writes into the operations it runs (a matched
// message's payload, dealing's marks, computations scaled to another run). The replays run side
// by side (predictScenarios gives each a turn of the same number of operations), so what is held
// is what lies between the furthest and the least advanced replay on each rank. Past HELD_OPERATIONS_MAX held, the least
// advanced replays read the trace on their own from then on (each opens it anew and skips what it
// had taken) until half as many are held, so memory stays bounded whatever the placements make
// of the ranks' pace. The skipping is left to catchUp, which takes turns of the event loop
// (a replay sent back late in a long trace has millions of operations to skip); a rank not
// caught up when the replay asks for its next operation skips there.

import { ClosableStream, PemOp, RankStream } from './ops';
import { Pace } from './pace';

/**
 * Ranks of a trace whose replays share its reads, at most. Side by side, the replays of a halo
 * drift apart on each rank by up to an iteration per rank between (18 k operations held at 16
 * ranks, 35 k at 32, the most allowed at 64), and each engine's state is cold by its next turn:
 * placements of a 10⁷-event trace took a quarter less time at 8 ranks, 0–27% less at 16 and 32
 * (20–50 MiB more memory), and up to 13% more at 64 to 1,024 (80–185 MiB more; docs/pem.md,
 * Performance).
 */
export const SHARED_RANKS_MAX = 32;

/** Operations held for the replays behind, at most (with their engines' copies, a few hundred bytes each): past it the last replay reads on its own. */
export const HELD_OPERATIONS_MAX = 1 << 16;

/** A rank's held operations are trimmed (those every replay took dropped) at most once per this many reads. */
const TRIM_EVERY = 1024;

/** One replay's place in each rank's operations, or its own streams once it reads on its own. */
interface Reader {
  taken: number[];
  own?: ClosableStream[];
  /** With `own`: the operations of each rank its own streams have still to skip. */
  toSkip?: number[];
}

export class SharedReads<S extends ClosableStream> {
  /** The streams every replay that has not gone its own way reads through. */
  readonly streams: S[];
  private readonly held: PemOp[][];
  /** Index in the rank's whole stream of held[rank][0]. */
  private readonly heldFrom: number[];
  private readonly trimAt: number[];
  private heldCount = 0;
  private mostHeld = 0;
  private readonly readers: Reader[] = [];

  constructor(
    private readonly open: () => S[],
    private readonly heldMax = HELD_OPERATIONS_MAX,
  ) {
    this.streams = open();
    this.held = this.streams.map(() => []);
    this.heldFrom = this.streams.map(() => 0);
    this.trimAt = this.streams.map(() => TRIM_EVERY);
  }

  /** The most operations held at once so far. */
  get mostHeldOperations(): number {
    return this.mostHeld;
  }

  /** Streams for one more replay: the trace's operations from the start. Every replay's are made before the first read. */
  reader(): RankStream[] {
    if (this.mostHeld > 0) throw new Error('SharedReads: a reader made after the first read would miss operations given away');
    const reader: Reader = { taken: this.streams.map(() => 0) };
    this.readers.push(reader);
    return this.streams.map((_, rank) => ({ next: () => this.next(reader, rank) }));
  }

  close(): void {
    for (const stream of this.streams) stream.close();
    for (const reader of this.readers) for (const stream of reader.own ?? []) stream.close();
  }

  /** Whether a replay sent back has operations left to skip (catchUp skips them). */
  get behind(): boolean {
    return this.readers.some((reader) => reader.toSkip?.some((count) => count > 0));
  }

  /** Skips what the replays sent back had taken, giving the event loop turns. */
  async catchUp(pace: Pace): Promise<void> {
    for (const reader of this.readers) {
      const { own, toSkip } = reader;
      if (!own || !toSkip) continue;
      for (let rank = 0; rank < own.length; rank++) {
        while (toSkip[rank] > 0) {
          own[rank].next();
          toSkip[rank]--;
          if (pace.counted()) await pace.pause();
        }
      }
    }
  }

  private next(reader: Reader, rank: number): PemOp | undefined {
    const own = reader.own;
    if (own) {
      const toSkip = reader.toSkip!;
      for (; toSkip[rank] > 0; toSkip[rank]--) own[rank].next();
      return own[rank].next();
    }
    const held = this.held[rank];
    const at = reader.taken[rank] - this.heldFrom[rank];
    if (at === held.length) {
      const op = this.streams[rank].next();
      if (!op) return undefined;
      held.push(op);
      if (++this.heldCount > this.mostHeld) this.mostHeld = this.heldCount;
      if (held.length >= this.trimAt[rank]) this.trim(rank);
      if (this.heldCount > this.heldMax) {
        this.makeRoom();
        // Sent back, it reads this operation from its own streams.
        if (reader.own) return this.next(reader, rank);
      }
    }
    const index = reader.taken[rank]++;
    const op = held[index - this.heldFrom[rank]];
    // The last shared replay to take an operation takes the trace's own: no one reads it after.
    for (const other of this.readers) if (other !== reader && !other.own && other.taken[rank] <= index) return copyOp(op);
    return op;
  }

  /** Drops the rank's operations every shared replay has taken. */
  private trim(rank: number): void {
    let least = Infinity;
    for (const reader of this.readers) if (!reader.own) least = Math.min(least, reader.taken[rank]);
    const drop = Math.min(least, this.heldFrom[rank] + this.held[rank].length) - this.heldFrom[rank];
    if (drop > 0) {
      this.held[rank].splice(0, drop);
      this.heldFrom[rank] += drop;
      this.heldCount -= drop;
    }
    this.trimAt[rank] = this.held[rank].length + TRIM_EVERY;
  }

  /**
   * Too much held: every rank is trimmed, and while more than half the most is still held, the
   * shared replay furthest behind opens the trace anew, to skip to where it is.
   */
  private makeRoom(): void {
    this.streams.forEach((_, rank) => this.trim(rank));
    for (;;) {
      const shared = this.readers.filter((reader) => !reader.own);
      if (this.heldCount <= this.heldMax / 2 || shared.length < 2) return;
      const behind = shared.reduce((a, b) => (sum(b.taken) < sum(a.taken) ? b : a));
      behind.own = this.open();
      behind.toSkip = behind.taken.slice();
      this.streams.forEach((_, rank) => this.trim(rank));
    }
  }
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** A copy of `op` with the same fields set (optional ones only where present, which keeps V8's few shapes of PemOp). */
export function copyOp(op: PemOp): PemOp {
  const copy = new PemOp(op.kind);
  copy.compute = op.compute;
  if (op.offCpuSeconds !== undefined) copy.offCpuSeconds = op.offCpuSeconds;
  copy.peer = op.peer;
  copy.comm = op.comm;
  copy.tag = op.tag;
  copy.bytes = op.bytes;
  copy.request = op.request;
  copy.requests = op.requests;
  copy.collective = op.collective;
  copy.root = op.root;
  copy.sizeSent = op.sizeSent;
  copy.sizeReceived = op.sizeReceived;
  copy.copySeconds = op.copySeconds;
  if (op.anySource !== undefined) copy.anySource = op.anySource;
  if (op.anyTag !== undefined) copy.anyTag = op.anyTag;
  if (op.pollInterval !== undefined) copy.pollInterval = op.pollInterval;
  if (op.polledSeconds !== undefined) copy.polledSeconds = op.polledSeconds;
  if (op.resumeSeconds !== undefined) copy.resumeSeconds = op.resumeSeconds;
  if (op.toWildcardSource !== undefined) copy.toWildcardSource = op.toWildcardSource;
  if (op.payload !== undefined) copy.payload = op.payload;
  return copy;
}
