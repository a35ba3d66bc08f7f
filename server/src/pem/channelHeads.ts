// A receiver's channels with messages held, ordered by when their first message arrives, for
// the PEM engine's MPI_ANY_SOURCE receives (mailboxes.ts): a master of thousands of workers
// finds the message that reaches it first without asking every sender. A binary heap whose
// entries go stale rather than being removed: an entry is a channel's first message when it
// was pushed, and stands while that message is still first.

/** What the heap reads of a message: when it arrives, its place among the messages held. */
export interface HeldMessage {
  seq: number;
}

/** A channel as the heap sees it: its messages, first sent first. */
export interface HeldChannel<M extends HeldMessage> {
  sends: M[];
}

interface Head<M extends HeldMessage, C extends HeldChannel<M>> {
  arrival: number;
  msg: M;
  /** The message's seq when pushed, the key's tie-breaker: fixed, as the engine reuses a received message's object (a new seq). */
  seq: number;
  channel: C;
}

/** Entries kept before the stale ones are dropped; then twice the live ones. */
const COMPACT_AT = 64;

export class ChannelHeads<M extends HeldMessage, C extends HeldChannel<M>> {
  private heap: Head<M, C>[] = [];
  /** A receiver that posted one MPI_ANY_SOURCE receive and then named its sources never visits: its stale entries are dropped here. */
  private compactAt = COMPACT_AT;

  /**
   * `arrivalOf` may only grow for a message once it is held (a race on a link delays eager data,
   * engine.ts decideRace): an entry whose message now arrives later is pushed again at its new time.
   */
  constructor(private readonly arrivalOf: (msg: M) => number) {}

  /** The channel's first message changed (a message held on an empty channel, or the first taken). */
  headChanged(channel: C): void {
    const msg = channel.sends[0];
    if (!msg) return;
    this.push({ arrival: this.arrivalOf(msg), msg, seq: msg.seq, channel });
    if (this.heap.length >= this.compactAt) this.compact();
  }

  private compact(): void {
    const live = this.heap.filter(stands);
    this.heap = [];
    for (const head of live) this.push(head);
    this.compactAt = Math.max(COMPACT_AT, 2 * live.length);
  }

  /** Visits the channels in the order their first messages arrive (ties: the first sent), until `visit` returns true. */
  visit(visit: (channel: C, msg: M, arrival: number) => boolean): void {
    const passed: Head<M, C>[] = [];
    while (this.heap.length > 0) {
      const top = this.heap[0];
      if (!stands(top)) {
        this.pop();
        continue;
      }
      const arrival = this.arrivalOf(top.msg);
      if (arrival > top.arrival) {
        this.pop();
        top.arrival = arrival;
        this.push(top);
        continue;
      }
      if (visit(top.channel, top.msg, arrival)) break;
      passed.push(this.pop());
    }
    for (const head of passed) this.push(head);
  }

  private push(head: Head<M, C>): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(head);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(head, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = head;
  }

  private pop(): Head<M, C> {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    const n = heap.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(heap[child + 1], heap[child])) child++;
      if (!earlier(heap[child], last)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

const earlier = <M extends HeldMessage>(a: Head<M, HeldChannel<M>>, b: Head<M, HeldChannel<M>>) => a.arrival < b.arrival || (a.arrival === b.arrival && a.seq < b.seq);

/** Whether the entry's message is still its channel's first (and still the message it was). */
const stands = <M extends HeldMessage>(head: Head<M, HeldChannel<M>>) => head.channel.sends[0] === head.msg && head.msg.seq === head.seq;
