// A node of the PEM engine (engine.ts): its cores, the CPU each running rank has received since
// a fixed origin, and its running ranks in a heap by the CPU at which each finishes, so the next
// to finish is found in O(log n) however many share the node, and its ranks polling in a loop
// with the CPU at which each one's traced polls end. Generic over the engine's rank.

import { DOUBLE_ZERO, widenFields } from '../doubleFields';

/** A node: its cores and the CPU share handed out so far, with a heap of running ranks by finish. */
export class NodeState<Rank> {
  running = 0;
  /**
   * The weights of its ranks polling in a loop (PemOp.pollInterval), beside its running ranks'
   * 1 each: round robin gives a poller one poll per turn, while a computing rank keeps the core
   * for its computation up to its next blocking call, so a poller's weight is its poll over that
   * computation: the CPU seconds of its ranks' finished computations (`computedSeconds`) over
   * their blocking calls (`blockedCalls`) so far.
   */
  pollShares = DOUBLE_ZERO;
  /** Its ranks waiting in a wait their trace polled for (PemOp.pollInterval set, 0 included): they poll between computations of their own, not in MPI. */
  pollers = 0;
  computedSeconds = DOUBLE_ZERO;
  blockedCalls = 0;
  /** Of the running ranks, those whose burst is the work of completed receives (the engine's RankState.resuming): inside a call. */
  resuming = 0;
  /** Its ranks: those not running and not off the core wait in a call (MPI_Finalize's too), polling. */
  ranks = 0;
  offCpu = 0;
  /** CPU seconds each running rank has received since the origin. */
  served = DOUBLE_ZERO;
  lastTime = DOUBLE_ZERO;
  version = 0;
  /** Its next finish is to be queued once the event being processed is done (see scheduleNode). */
  rescheduled = false;
  /** Until when one core does the network stack's work (or its waiting ranks' turns, engine.ts completeBursts). */
  stackUntil = DOUBLE_ZERO;
  /** CPU a rank spends taking a core back after a wait (EngineNetwork.switchIn). */
  switchIn = DOUBLE_ZERO;
  /** Its ranks polling in a loop, and the CPU served at which each one's polls end (the trace's polls taken). */
  private readonly pollerRanks: Rank[] = [];
  private readonly pollEnds: number[] = [];
  /** The CPU served at which the first of its pollers' polls end; Infinity with none. */
  firstPollEnd = Infinity;
  readonly heapRank: Rank[] = [];
  readonly heapServed: number[] = [];
  /** Taking turns: ranks with a computation and no core, in the order they will get one. */
  readonly ready: Rank[] = [];
  constructor(
    readonly index: number,
    readonly cores: number,
  ) {}

  /** Each running rank's CPU per second at `at` (by default the node's present), with what runs now. */
  rate(at = this.lastTime): number {
    const cores = at < this.stackUntil ? this.cores - 1 : this.cores;
    if (cores <= 0) return 0;
    const demand = this.running + this.pollShares;
    return demand <= cores ? 1 : cores / demand;
  }

  advance(time: number): void {
    if (time <= this.lastTime) return;
    if (this.running > 0 && this.lastTime < this.stackUntil && this.stackUntil < time) {
      this.served += (this.stackUntil - this.lastTime) * this.rate();
      this.lastTime = this.stackUntil;
    }
    if (this.running > 0) this.served += (time - this.lastTime) * this.rate();
    this.lastTime = time;
  }

  push(rank: Rank, finishServed: number): void {
    const hr = this.heapRank;
    const hs = this.heapServed;
    let i = hr.length;
    hr.push(rank);
    hs.push(finishServed);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (hs[parent] <= finishServed) break;
      hr[i] = hr[parent];
      hs[i] = hs[parent];
      i = parent;
    }
    hr[i] = rank;
    hs[i] = finishServed;
    this.running++;
  }

  addPoller(rank: Rank, endServed: number): void {
    this.pollerRanks.push(rank);
    this.pollEnds.push(endServed);
    this.firstPollEnd = Math.min(this.firstPollEnd, endServed);
  }

  removePoller(rank: Rank): void {
    const at = this.pollerRanks.indexOf(rank);
    if (at < 0) return;
    this.pollerRanks.splice(at, 1);
    this.pollEnds.splice(at, 1);
    this.firstPollEnd = Infinity;
    for (const end of this.pollEnds) if (end < this.firstPollEnd) this.firstPollEnd = end;
  }

  /** A poller whose polls end by `served`, if any. */
  pollerAt(served: number): Rank | undefined {
    if (this.firstPollEnd > served) return undefined;
    const ends = this.pollEnds;
    for (let i = 0; i < ends.length; i++) if (ends[i] <= served) return this.pollerRanks[i];
    return undefined;
  }

  pop(): Rank {
    const top = this.heapRank[0];
    this.takeAt(0);
    return top;
  }

  nextFinish(): number {
    return this.heapServed[0];
  }

  /** Takes `rank` off the heap (taking turns: its slice is over); returns its finish (CPU served since the origin). */
  remove(rank: Rank): number {
    const at = this.heapRank.indexOf(rank);
    const finish = this.heapServed[at];
    this.takeAt(at);
    return finish;
  }

  /** Removes the heap's entry at `at`: the last entry takes its place and moves up or down. */
  private takeAt(at: number): void {
    const hr = this.heapRank;
    const hs = this.heapServed;
    const lastRank = hr.pop()!;
    const lastServed = hs.pop()!;
    this.running--;
    const n = hr.length;
    if (at === n) return;
    let i = at;
    while (i > 0 && hs[(i - 1) >> 1] > lastServed) {
      hr[i] = hr[(i - 1) >> 1];
      hs[i] = hs[(i - 1) >> 1];
      i = (i - 1) >> 1;
    }
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && hs[child + 1] < hs[child]) child++;
      if (hs[child] >= lastServed) break;
      hr[i] = hr[child];
      hs[i] = hs[child];
      i = child;
    }
    hr[i] = lastRank;
    hs[i] = lastServed;
  }
}

// As the engine's ranks (RankState): some fields are first set again late in a replay.
widenFields(new NodeState(0, 1));
