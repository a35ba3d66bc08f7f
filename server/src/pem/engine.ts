// The PEM engine: seed 000's online algorithm (§2.2, Figure 3), extended to MPI.
//
// Seed 000 builds the group activity graph (GAG) incrementally: each process's next event is
// queued (read, its predecessor not reported), current (a candidate: the process computes
// toward it), pending (an endRecv whose send is not reported yet) or reported (its time is
// fixed; it is added to the GAG and forgotten once its successors are reported). A group (the
// processes sharing a processor in the target configuration) has a clock, the group time; its
// non-blocked processes share the processor round-robin with infinitely small quanta, so a
// current event with `procTime` left is reached after procTime × |CNER events in the group|
// of group time (Figure 3, line 18). The event with the earliest event time is reported next.
//
// Here the same quantities, with a node of C cores for a group of one processor:
// - a node's running ranks each progress at min(1, C / running) CPU seconds per second; the
//   node keeps the CPU each running rank has received since a fixed origin (`served`), so the
//   current event that completes first is the one with the least CPU left, reached at
//   `served` + left × running / C, Figure 3's earliest event time;
// - with a scheduler slice (EngineNetwork.schedulerSliceSeconds) the ranks take the cores in
//   turns instead, as Linux runs them: at most C run, each until its computation ends or until
//   the first tick after it has used its slice, and the others wait in the node's ready queue
//   (docs/pem.md, "Taking turns"); without one, the paper's sharing;
// - one global queue orders every node's next completion and every known completion time, so
//   an event is reported only when no other event can still come before it (Figure 3 reports
//   the smallest earliest event time over all groups; in a trace every process's next event is
//   always available, so Figure 3's wait for "each process has a current or pending event" and
//   its keep-alive events are not needed to make progress; keep-alive operations in a stream
//   only advance their node's clock and are dropped, as in the paper);
// - a rank blocked in a receive or a wait is pending; it gets no CPU share; nor does a rank off
//   its core between calls (PemOp.offCpuSeconds: blocking I/O, sleep), for as long as the trace says.
// - inside a node a message is a copy through shared memory, done by the receiver's CPU: the
//   size-dependent part of the one-way time, T(b) − T(0), is CPU work the receiver does when
//   the message has arrived (sharing its node's cores like computation), or the copy the trace
//   measured for that receive when it took longer (PemOp.copySeconds); only T(0) is delay.
//   Between nodes the one-way time is the network's (DMA, no CPU), unless the nodes share
//   memory (emulated on one machine: the receiver copies as inside a node); a traced copy
//   beyond the network's size-dependent time is the receiver's work (receiveWork).
// - messages leaving a node queue for its link (one FIFO per node and direction out, as a NIC,
//   or the netns kit's emulated link): a message occupies it for bytes × linkSecondsPerByte
//   from when it starts to leave, and is delayed by the messages ahead of it. Eager messages
//   that reach the link within one round of turns of a shared core (raceWindow) race: which
//   rank of the core acts first is the scheduler's choice, which the round-robin sharing cannot
//   make, so they are served in random order: each waits for another as often as that one goes
//   first, half the time when both reached the link together, always once it was a window ahead.
//
// Extensions (the paper has PVM send/startRecv/endRecv only): eager sends (data leaves at the
// send; the sender goes on) up to the table's eager limit and rendezvous above it (data leaves
// when both sides are there: max(send + L₀, receive posted) + L₀ + T(bytes), which is the
// handshake's two extra one-way delays when the receive was posted first); non-blocking sends
// and receives completing in waits; collectives as the messages of their point-to-point rounds
// (collectives.ts), run like any other. The critical path is tracked forward: every rank carries the split
// (compute, communication, waiting for a CPU) of the longest path ending at its present, and a
// completion caused by another rank takes that rank's path plus the communication.
// Message matching (which receive takes which message, wildcard receives included) is mailboxes.ts's.
// Memory holds the operations in flight (unmatched messages, open requests), never the trace.

import { ROUND_TAG, collectiveName, collectiveRounds } from './collectives';
import { OpKind, PemOp, RankStream, RESUMED_WAIT_SECONDS } from './ops';
import { IdTable } from './idTable';
import { EventQueue } from './eventQueue';
import { NodeState } from './nodeCores';
import { Mailboxes, Posted, Sent } from './mailboxes';
import { DOUBLE_ZERO, widenFields } from '../doubleFields';

export interface EngineNetwork {
  oneWay(bytes: number, sameNode: boolean): number;
  eagerLimitBytes: number;
  /** Seconds per byte a message holds its node's outgoing link; 0 or absent: no contention. */
  linkSecondsPerByte?: number;
  /** Extra wait for the receiver's turn when this many ranks share its core; absent: none. */
  receiverTurn?(ranksPerCore: number): number;
  /**
   * CPU a rank spends taking its core back after a wait, when this many ranks share the core
   * (a switch, its poll that finds the message); 0 or absent: none. Where it is set, a message
   * between two ranks of such a node has no delay: on one core all of it is the ranks' CPU.
   */
  switchIn?(ranksPerCore: number): number;
  /**
   * CPU the network stack (or a link emulator) spends outside the ranks per message between
   * nodes: half on the receiving node when the data arrives, half on the sending node one
   * latency later (the acknowledgement). It takes one core of that node from the ranks.
   */
  stackCpu?: { perMessageSeconds: number; perByteSeconds: number };
  /** Extra one-way time of the first message between two ranks on different nodes (opening a connection). */
  connectSeconds?: number;
  /** The scheduler's tick, when a rank waiting in a call gets back a core that computing ranks hold (PemEngine.tickWait); absent: at once. */
  schedulerTickSeconds?: number;
  /**
   * The scheduler's slice: set, a node's ranks take its cores in turns (NodeState.ready) instead
   * of sharing them with infinitely small quanta: a rank keeps its core until its computation
   * ends, or until the first tick after it has computed this long since it last waited; absent: processor sharing (seed 000).
   */
  schedulerSliceSeconds?: number;
  /** Nodes share memory (emulated on one machine): a message between them is the receiver's copy, as inside a node. */
  interNodeSharedMemory?: boolean;
}

export interface EngineInput {
  streams: RankStream[];
  /** Node index per rank. */
  nodeOf: ArrayLike<number>;
  /** Cores per node. */
  coresPerNode: readonly number[];
  network: EngineNetwork;
  /** Communicator id → world ranks in communicator order. */
  communicators: Map<number, readonly number[]>;
  /** When each rank starts (launch skew), seconds; 0 when absent. */
  startSeconds?: readonly number[];
  /**
   * Per rank, how much slower than calibrated its kernel ran (its recorder's CPU-clock reads over
   * the table's, CommTable.clockReadSeconds); 1 when absent. A node's turns and switches, system
   * calls and scheduling, take its ranks' mean times the table's.
   */
  kernelSlowness?: readonly number[];
  /** Called when an operation is reported (its time is fixed), in time order per rank. */
  onReport?: (rank: number, op: PemOp, time: number) => void;
}

export interface CriticalPath {
  computeSeconds: number;
  commSeconds: number;
  waitSeconds: number;
}

export interface EngineResult {
  predictedSeconds: number;
  finishSeconds: number[];
  /**
   * Per rank, the CPU the replay gave its computations, and its calls (their work, switches back
   * onto the core, and what its polling loops took from the ranks computing beside them); the turns
   * its node's waiting ranks take when a computation ends belong to no one rank, and are in neither.
   */
  computeCpuSeconds: number[];
  callCpuSeconds: number[];
  criticalPath: CriticalPath;
  operations: number;
  /** Events that could not be simulated (deadlocks, unknown requests), counted and explained. */
  problems: string[];
  complete: boolean;
}

const COMPUTING = 1;
const BLOCKED = 2;
const DONE = 3;
/** Off its core before its operation (PemOp.offCpuSeconds): no CPU, no turn. */
const OFF_CPU = 4;
/** Not started yet (EngineInput.startSeconds): still in MPI_Init, polling like a waiting rank. */
const STARTING = 5;

/** Taking turns: the CPU a running rank has used of its slice, up to its node's present. */
const sliceUsedNow = (rank: RankState, node: Node) => rank.sliceUsed + node.served - rank.coreServed;

/** Waits in a call, polling its core's turns: neither computing nor off its core. */
const polls = (rank: RankState) => rank.status !== COMPUTING && rank.status !== OFF_CPU;

/** A completion: when, and the critical-path split of the path that leads to it. */
class Completion {
  resolved = false;
  time = DOUBLE_ZERO;
  /** CPU seconds the waiter spends once it completes (copying an intra-node message in). */
  work = DOUBLE_ZERO;
  pc = DOUBLE_ZERO;
  pm = DOUBLE_ZERO;
  pw = DOUBLE_ZERO;
  waiter: RankState | null = null;
}

/**
 * The completion of every eager send: it is done when it starts, so waiting for it changes
 * neither the waiter's time nor its path (no object per eager message).
 */
const EAGER_SENT: Completion = Object.assign(new Completion(), { resolved: true, time: -Infinity });

class RankState {
  status = 0;
  /** While it waits in a polling loop: the weight of its polls in its node's sharing (NodeState.pollShares), and NodeState.served when it started. */
  pollShare = DOUBLE_ZERO;
  pollServed = DOUBLE_ZERO;
  /** Blocked in a wait its trace polled for (NodeState.pollers). */
  pollWait = false;
  /** EngineResult.computeCpuSeconds and callCpuSeconds. */
  computeCpu = DOUBLE_ZERO;
  callCpu = DOUBLE_ZERO;
  op: PemOp | undefined;
  burstStart = DOUBLE_ZERO;
  burstCpu = DOUBLE_ZERO;
  /** The path ending at this rank's present: compute, communication, waiting for a CPU. */
  pc = DOUBLE_ZERO;
  pm = DOUBLE_ZERO;
  pw = DOUBLE_ZERO;
  /** Open requests by id. */
  readonly requests = new IdTable<Completion>();
  /** While blocked: completions still unknown and the latest known one. */
  unresolved = 0;
  readonly until = new Completion();
  /** Set while the burst is the work of completed receives, not computation before `op`. */
  resuming = false;
  /** When it last blocked in a call. */
  blockedAt = DOUBLE_ZERO;
  finish = NaN;
  /** Taking turns (EngineNetwork.schedulerSliceSeconds): CPU of its slice used before it last got a core, NodeState.served then, and its burst's CPU left while it waits for a core. */
  sliceUsed = DOUBLE_ZERO;
  coreServed = DOUBLE_ZERO;
  cpuLeft = DOUBLE_ZERO;
  constructor(
    readonly rank: number,
    readonly node: number,
    readonly stream: RankStream,
  ) {}
}

// Some fields are set again only late in a replay (a first wait off the core, a first slice):
// made mutable once, before the engine's code is optimized (doubleFields.ts).
widenFields(new RankState(0, 0, { next: () => undefined }));

/** A node of the engine, holding its ranks' states. */
type Node = NodeState<RankState>;

/**
 * A message in flight: what matching reads (Sent), and when its data arrives, at whose cost.
 * A class, its times begun as doubles (doubleFields.ts), and reused (PemEngine.freeMessages).
 */
class Message implements Sent {
  src = 0;
  time = DOUBLE_ZERO;
  eager = false;
  oneWay = DOUBLE_ZERO;
  zeroWay = DOUBLE_ZERO;
  payload: unknown = undefined;
  seq = 0;
  /** Receiver (world rank). */
  dst = 0;
  bytes = DOUBLE_ZERO;
  /** The table's size-dependent time, T(bytes) − T(0): see receiveWork. */
  copy = DOUBLE_ZERO;
  /** The receiver copies the data in (inside a node, or between nodes that share memory). */
  copied = false;
  /** The sender's node when the message crosses nodes, else −1. */
  node = -1;
  pc = DOUBLE_ZERO;
  pm = DOUBLE_ZERO;
  pw = DOUBLE_ZERO;
  sender: Completion | null = null;
  /** Eager data waiting for its node's link to decide its race (raceWindow): its queueing is not in `oneWay` yet. */
  racing = false;
  /** The receive that matched it while it raced, resolved when the race is decided. */
  matched: PostedRecv | null = null;
}

/** A receive posted: what matching reads (Posted), and when and on what path; a class, as Message. */
class PostedRecv implements Posted {
  time = DOUBLE_ZERO;
  seq = 0;
  /** The receive's traced copy (PemOp.copySeconds). */
  copy = DOUBLE_ZERO;
  pc = DOUBLE_ZERO;
  pm = DOUBLE_ZERO;
  pw = DOUBLE_ZERO;
  constructor(
    public op: PemOp,
    public done: Completion,
  ) {}
}

/**
 * Queue ids: a node's next finish is its index n, network-stack work arriving on it N + n, the
 * decision of the race on its link 2N + n (N nodes); a rank r whose blocking operation
 * completes, or who comes back to its core, is −1 − r.
 */
const rankEventId = (rank: number) => -1 - rank;

/**
 * How often a message that reached a link `gap` seconds before another (negative: after it) is
 * served first in their race: each leaves at a point of one race window (`window`) that the
 * scheduler's turns choose, uniformly and apart, so the difference of two departures is
 * triangular over ±window. Half at a gap of 0, all at a window or more: a message a hair inside
 * the window waits as if it were queued behind the other, and the prediction moves continuously
 * with the times (with half for every member, a few microseconds that moved a message in or out
 * of a window moved a 10 Mbit/s prediction by 8 points; docs/pem.md, Networks, 2026-11-28 15:05).
 */
function aheadInRace(gap: number, window: number): number {
  if (gap >= window) return 1;
  if (gap <= -window) return 0;
  const rest = (window - Math.abs(gap)) / window;
  return gap >= 0 ? 1 - (rest * rest) / 2 : (rest * rest) / 2;
}

export class PemEngine {
  private readonly ranks: RankState[];
  private readonly nodes: Node[];
  private readonly queue = new EventQueue();
  private readonly mailboxes: Mailboxes<Message, PostedRecv>;
  private readonly popped = [0, 0, 0];
  /** Nodes whose next finish changed while the current event was processed (the first `rescheduledCount`). */
  private readonly rescheduled: Node[] = [];
  private rescheduledCount = 0;
  private readonly problemCounts = new Map<string, number>();
  private readonly worldRanks: number[];
  private operations = 0;
  private started = false;
  /** When each node's outgoing link is free again. */
  private readonly linkFree: Float64Array;
  /**
   * Per node, how long eager messages reaching its link race each other: one round of turns of
   * its shared core (its ranks per core × the switch back, EngineNetwork.switchIn), at most a
   * message's zero-byte time so that the race is decided before any of them arrives; 0 (a FIFO in
   * the order the replay reaches the sends) without a shared core or without contention.
   */
  private readonly raceWindow: Float64Array;
  /** Per node, the eager messages racing for its link now, in the order they reached it. */
  private readonly racing: Message[][];
  /** Per node, its races so far: a race decided early (a later message took the link) leaves a stale queue entry. */
  private readonly races: Float64Array;
  /** When the connection of a pair of ranks on different nodes (lower × ranks + higher) is open. */
  private readonly connectedAt = new Map<number, number>();
  /** Per node, its kernel's time for a turn or a switch over the table's (EngineInput.kernelSlowness). */
  private readonly kernelSlowness: Float64Array;
  /** Per node, turn() by how many of its ranks poll: the table's interpolation, once, not at every message. */
  private readonly turnByPolling: Float64Array[];
  /** The table's zero-byte one-way times inside a node and between nodes. */
  private readonly zeroSame: number;
  private readonly zeroCross: number;
  /** EngineNetwork.schedulerTickSeconds, or 0. */
  private readonly tick: number;
  /** EngineNetwork.schedulerSliceSeconds, or 0 (processor sharing). */
  private readonly slice: number;
  /** The time of the event being processed. */
  private now = DOUBLE_ZERO;
  /** Messages and receives matched and done with, for reuse: at thousands of ranks they outlive V8's young generation. */
  private readonly freeMessages: Message[] = [];
  private readonly freePosted: PostedRecv[] = [];
  /** Completions a wait has taken once they were resolved, for reuse, as messages'. */
  private readonly freeCompletions: Completion[] = [];
  /** Scratch for turnsWait. */
  private readonly earliestFinishes: number[] = [];

  constructor(private readonly input: EngineInput) {
    const n = input.streams.length;
    this.nodes = input.coresPerNode.map((cores, index) => new NodeState<RankState>(index, Math.max(1, cores)));
    this.worldRanks = Array.from({ length: n }, (_, i) => i);
    const problem = (text: string) => this.problem(text);
    this.ranks = input.streams.map((stream, rank) => new RankState(rank, input.nodeOf[rank], collectiveRounds(stream, rank, input.communicators, this.worldRanks, input.network.eagerLimitBytes, problem)));
    this.mailboxes = new Mailboxes(n);
    this.linkFree = new Float64Array(input.coresPerNode.length);
    this.tick = input.network.schedulerTickSeconds ?? 0;
    this.slice = input.network.schedulerSliceSeconds ?? 0;
    const slowness = new Float64Array(this.nodes.length);
    for (let r = 0; r < n; r++) {
      this.nodes[input.nodeOf[r]].ranks++;
      slowness[input.nodeOf[r]] += input.kernelSlowness?.[r] ?? 1;
    }
    this.kernelSlowness = Float64Array.from(this.nodes, (node, i) => (node.ranks > 0 ? slowness[i] / node.ranks : 1));
    for (const node of this.nodes) node.switchIn = (input.network.switchIn?.(node.ranks / node.cores) ?? 0) * this.kernelSlowness[node.index];
    const contended = (input.network.linkSecondsPerByte ?? 0) > 0 && input.network.interNodeSharedMemory !== true;
    this.zeroSame = input.network.oneWay(0, true);
    this.zeroCross = input.network.oneWay(0, false);
    this.raceWindow = Float64Array.from(this.nodes, (node) => (contended ? Math.min((node.ranks / node.cores) * node.switchIn, this.zeroCross) : 0));
    this.racing = this.nodes.map(() => []);
    this.races = new Float64Array(this.nodes.length);
    const turnOf = input.network.receiverTurn;
    // The calibration's k ranks on one core are the pair and k − 2 polling: here the receiver and
    // the polling ranks share the node's cores.
    this.turnByPolling = this.nodes.map((node) =>
      Float64Array.from({ length: node.ranks + 1 }, (_, polling) => (turnOf && polling > 0 ? turnOf(1 + (polling + 1) / node.cores) * this.kernelSlowness[node.index] : 0)),
    );
  }

  /**
   * The extra wait of a message for `rank`'s turn on its node: every other rank of the node that
   * waits (in any call, MPI_Finalize's barrier included) polls and yields the core once before
   * the receiver's turn comes (mpi_yield_when_idle), as in the sharedCore calibration; those that
   * compute share the core at the node's rate instead. `other` (the sender or the receiver, busy
   * with this message) is not one of them.
   */
  private turn(rank: RankState, other: number): number {
    if (!this.input.network.receiverTurn) return 0;
    const node = this.nodes[rank.node];
    let polling = node.ranks - node.running - node.ready.length - node.offCpu;
    if (polls(rank)) polling--;
    const peer = this.ranks[other];
    if (peer.node === rank.node && polls(peer)) polling--;
    return polling > 0 ? this.turnByPolling[rank.node][polling] : 0;
  }

  /**
   * The extra wait of a message sent at `time` for `rank`, waiting in a call, whose node's cores
   * are all held by computing ranks: a polling rank yields its core and queues behind them, round
   * robin. A computing rank's turn ends at the scheduler's next tick
   * (EngineNetwork.schedulerTickSeconds) or when it reaches its next call, and the waiting rank
   * gets a core once every computing rank beyond the node's cores has had its turn (at least one
   * turn: a sender on the same node hands over its own when it waits next). Measured in 8/2 traces
   * of master_worker: a reply reaching a core where three ranks compute waits through up to three
   * of their calls (docs/pem.md). Ticks fall at multiples of the tick from the run's start,
   * on every core at once: a reply sent by a rank that just got its core at a tick reaches a
   * busy core right after one and waits a whole tick, as in the runs (a ping-pong against a
   * spinning process takes one tick per round trip).
   */
  private tickWait(rank: RankState, other: number, time: number): number {
    // Taking turns, the receiver waits for its core as a ready rank (NodeState.ready).
    if (!polls(rank) || this.slice > 0) return 0;
    const node = this.nodes[rank.node];
    // Ranks taking in received data are inside a call: they wait in it next, and yield.
    let computing = node.running - node.resuming;
    const peer = this.ranks[other];
    if (peer.node === rank.node && peer.status === COMPUTING && !peer.resuming) computing--;
    if (computing < node.cores) return 0;
    node.advance(time);
    const turns = Math.max(1, computing - node.cores + 1 - (peer.node === rank.node ? 1 : 0));
    return this.turnsWait(node, time, turns);
  }

  /**
   * How long after `time` the `turns`-th turn on `node` ends: turns end at its running ranks'
   * finishes (under processor sharing, at the rate left as each finishes) or at the scheduler's ticks.
   * While the network stack holds a node's only core no rank runs, and the turns start when it is
   * done (a tick meanwhile ends the running rank's turn then): counting them at the rate of that
   * moment, 0, sent every such wait to the next tick, up to 4 ms for a few microseconds of stack work.
   */
  private turnsWait(node: Node, time: number, turns: number): number {
    const firstTick = this.tick - (time % this.tick);
    const held = node.rate() === 0 && node.stackUntil > time ? node.stackUntil - time : 0;
    const rate = node.rate(time + held);
    if (turns === 1) return Math.min(Math.max(firstTick, held), held + (rate > 0 ? Math.max(0, node.nextFinish() - node.served) / rate : Infinity));
    // The `turns` earliest finishes (in CPU served since the origin), in order.
    const finishes = this.earliestFinishes;
    finishes.length = 0;
    for (const served of node.heapServed) {
      if (finishes.length === turns && finishes[turns - 1] <= served) continue;
      if (finishes.length < turns) finishes.push(served);
      else finishes[turns - 1] = served;
      for (let k = finishes.length - 1; k > 0 && finishes[k - 1] > finishes[k]; k--) {
        const later = finishes[k - 1];
        finishes[k - 1] = finishes[k];
        finishes[k] = later;
      }
    }
    // The cores its running ranks share (one may be the network stack's).
    const cores = rate * (node.running + node.pollShares);
    let wait = held;
    let finished = 0;
    let servedEach = 0;
    let nextTick = firstTick;
    for (let turn = 0; turn < turns; turn++) {
      const running = node.running - finished + node.pollShares;
      const shareRate = running <= cores ? 1 : cores / running;
      const untilFinish = finished < finishes.length && shareRate > 0 ? wait + Math.max(0, finishes[finished] - node.served - servedEach) / shareRate : Infinity;
      if (nextTick <= untilFinish) {
        const end = Math.max(nextTick, wait);
        servedEach += (end - wait) * shareRate;
        wait = end;
        nextTick += this.tick;
      } else {
        servedEach = finishes[finished++] - node.served;
        wait = untilFinish;
      }
    }
    return wait;
  }

  /** The network stack's work for `share` of one message of `bytes` between nodes: queued for `node` at `time`. */
  private stackWork(node: number, time: number, bytes: number, share: number): void {
    const cpu = this.input.network.stackCpu;
    if (!cpu) return;
    const seconds = share * (cpu.perMessageSeconds + bytes * cpu.perByteSeconds);
    // The queue's version slot carries the seconds of work for these entries.
    if (seconds > 0) this.queue.push(time, this.nodes.length + node, seconds);
  }

  /** The network stack, or the turns of its waiting ranks, take one core of `node` for `seconds` more, from `time` or when it is done with earlier work. */
  private takeCore(node: Node, time: number, seconds: number): void {
    node.advance(time);
    node.stackUntil = Math.max(node.stackUntil, time) + seconds;
    this.scheduleNode(node);
  }

  /** The wait for the connection of ranks `a` and `b` on different nodes of a message sent at `time`: the first one opens it. */
  private connect(a: number, b: number, time: number): number {
    const seconds = this.input.network.connectSeconds ?? 0;
    if (seconds <= 0) return 0;
    const pair = Math.min(a, b) * this.ranks.length + Math.max(a, b);
    let open = this.connectedAt.get(pair);
    if (open === undefined) this.connectedAt.set(pair, (open = time + seconds));
    return Math.max(0, open - time);
  }

  /** A message between nodes that arrives at `arrival`: the stack's work on both ends. */
  private crossed(src: number, dst: number, arrival: number, bytes: number): void {
    this.stackWork(this.input.nodeOf[dst], arrival, bytes, 0.5);
    this.stackWork(this.input.nodeOf[src], arrival + this.zeroCross, bytes, 0.5);
  }

  /** Queueing delay of a message of `bytes` that starts to leave `node` at `departure` (and takes its turn). */
  private linkQueue(node: number, departure: number, bytes: number): number {
    const perByte = this.input.network.linkSecondsPerByte ?? 0;
    if (perByte <= 0) return 0;
    // The messages racing now reached the link before this one.
    this.decideRace(node);
    const start = Math.max(departure, this.linkFree[node]);
    this.linkFree[node] = start + bytes * perByte;
    return start - departure;
  }

  /** An eager message reaches its node's link at `time`: it races those that reach it within the node's window. */
  private joinRace(node: number, msg: Message, time: number): void {
    const racing = this.racing[node];
    if (racing.length === 0) this.queue.push(time + this.raceWindow[node], 2 * this.nodes.length + node, ++this.races[node]);
    racing.push(msg);
  }

  /**
   * Serves the messages racing for `node`'s link in random order, as expectations: each waits
   * for the link to be free, then for what is left of each other message on the link as often
   * as that one is ahead of it (aheadInRace: half the orders when they reached the link
   * together); the link is then busy with all of them from the first one's departure.
   */
  private decideRace(node: number): void {
    const racing = this.racing[node];
    if (racing.length === 0) return;
    this.racing[node] = [];
    const perByte = this.input.network.linkSecondsPerByte ?? 0;
    let total = 0;
    for (const msg of racing) total += msg.bytes * perByte;
    const free = this.linkFree[node];
    this.linkFree[node] = Math.max(free, racing[0].time) + total;
    const window = this.raceWindow[node];
    for (const msg of racing) {
      const start = Math.max(free, msg.time);
      let ahead = 0;
      for (const other of racing) {
        if (other === msg) continue;
        // What is left of it once this one could leave; all of it when it went first from behind.
        const onLink = other.bytes * perByte;
        ahead += aheadInRace(msg.time - other.time, window) * Math.min(onLink, Math.max(0, Math.max(free, other.time) + onLink - start));
      }
      msg.oneWay += start - msg.time + ahead;
      msg.racing = false;
      this.crossed(msg.src, msg.dst, msg.time + msg.oneWay, msg.bytes);
      const recv = msg.matched;
      if (recv) {
        msg.matched = null;
        this.deliverEager(msg, recv.done, recv.time, recv.pc, recv.pm, recv.pw);
        this.freeMessages.push(msg);
        this.freePosted.push(recv);
      }
    }
  }

  /** Completes the receive of an eager message posted at `time` (with that path): when the data is there. */
  private deliverEager(msg: Message, done: Completion, time: number, pc: number, pm: number, pw: number): void {
    const arrival = msg.time + msg.oneWay;
    if (arrival > time) this.resolve(done, arrival, msg.pc, msg.pm + msg.oneWay, msg.pw);
    else this.resolve(done, time, pc, pm, pw);
  }

  /** Simulates up to `budget` operations; returns true when the run is over. */
  run(budget = Infinity): boolean {
    if (!this.started) {
      this.started = true;
      for (const rank of this.ranks) {
        const start = this.input.startSeconds?.[rank.rank] ?? 0;
        rank.pw = start;
        // A later start is an event, taken in time order with the bursts before it: started here,
        // a rank would start at the node's clock, which an earlier rank's later start had moved on.
        if (start > 0) {
          rank.status = STARTING;
          this.queue.push(start, rankEventId(rank.rank), 0);
        } else this.nextOp(rank, start);
      }
    }
    const queue = this.queue;
    const out = this.popped;
    const stopAt = this.operations + budget;
    for (;;) {
      if (this.rescheduledCount > 0) this.queueRescheduled();
      if (queue.size === 0) return true;
      if (this.operations >= stopAt) return false;
      queue.pop(out);
      const time = out[0];
      this.now = time;
      const id = out[1];
      if (id >= 2 * this.nodes.length) {
        const node = id - 2 * this.nodes.length;
        if (out[2] === this.races[node]) this.decideRace(node);
      } else if (id >= this.nodes.length) {
        this.takeCore(this.nodes[id - this.nodes.length], time, out[2]);
      } else if (id >= 0) {
        const node = this.nodes[id];
        if (out[2] !== node.version) continue;
        this.completeBursts(node, time);
      } else {
        const rank = this.ranks[-1 - id];
        if (rank.status === STARTING) {
          rank.status = 0;
          this.nextOp(rank, time);
          continue;
        }
        // A rank back from a wait or from off its core starts a new slice.
        rank.sliceUsed = 0;
        if (rank.status === OFF_CPU) {
          this.nodes[rank.node].offCpu--;
          rank.status = 0;
          rank.pc += rank.op!.offCpuSeconds!;
          this.execute(rank, time);
          continue;
        }
        this.takeCriticalPath(rank);
        rank.status = 0;
        if (rank.pollShare > 0) this.stopPolling(rank, time);
        if (rank.pollWait) {
          this.nodes[rank.node].pollers--;
          rank.pollWait = false;
        }
        // It waited: on a shared core it takes the core back in its turn, after a real wait at the
        // cost the trace measured for its kind of call when that is more than the table's switch.
        // A relay's waits of microseconds cost the switch: the trace's cost comes from its rare long
        // waits (a latency-bound trace with 25 of 20,000 receives resumed replayed 2.6 times long).
        const node = this.nodes[rank.node];
        const resumed = time - rank.blockedAt >= RESUMED_WAIT_SECONDS ? (rank.op?.resumeSeconds ?? 0) : 0;
        const work = rank.until.work + (node.switchIn > 0 ? Math.max(node.switchIn, resumed) : 0);
        // Taking turns, a rank whose cores are all taken waits for one before it goes on.
        if (work > 0 || (this.slice > 0 && node.running >= node.cores)) {
          this.startBurst(rank, time, work, true);
          continue;
        }
        this.report(rank, time);
        this.nextOp(rank, time);
      }
    }
  }

  get operationsDone(): number {
    return this.operations;
  }

  result(): EngineResult {
    const problems = [...this.problemCounts].map(([text, count]) => (count > 1 ? `${text} (${count} times)` : text));
    const stuck = this.ranks.filter((r) => r.status !== DONE);
    if (stuck.length > 0) {
      problems.push(`${stuck.length} rank(s) never finish: ${stuck.slice(0, 8).map((r) => `rank ${r.rank} blocked in ${describe(r.op)}`).join('; ')}${stuck.length > 8 ? '; …' : ''}`);
    }
    let last: RankState | undefined;
    for (const rank of this.ranks) if (rank.status === DONE && (!last || rank.finish > last.finish)) last = rank;
    return {
      predictedSeconds: last ? last.finish : 0,
      finishSeconds: this.ranks.map((r) => r.finish),
      computeCpuSeconds: this.ranks.map((r) => r.computeCpu),
      callCpuSeconds: this.ranks.map((r) => r.callCpu),
      criticalPath: { computeSeconds: last?.pc ?? 0, commSeconds: last?.pm ?? 0, waitSeconds: last?.pw ?? 0 },
      operations: this.operations,
      problems,
      complete: stuck.length === 0,
    };
  }

  private problem(text: string): void {
    this.problemCounts.set(text, (this.problemCounts.get(text) ?? 0) + 1);
  }

  /** Reports the bursts of `node` that end at `time`, then runs their operations. */
  private completeBursts(node: Node, time: number): void {
    node.advance(time);
    // Usually one burst ends at a time: no array for it.
    let first: RankState | undefined;
    let more: RankState[] | undefined;
    const tolerance = 1e-12 * Math.max(1, node.served);
    let finished = 0;
    let longComputations = 0;
    while (node.running > 0 && node.nextFinish() <= node.served + tolerance) {
      const rank = node.pop();
      finished++;
      rank.sliceUsed += node.served - rank.coreServed;
      if (rank.resuming) {
        node.resuming--;
        rank.pm += rank.burstCpu;
        rank.callCpu += rank.burstCpu;
      } else {
        rank.pc += rank.burstCpu;
        rank.computeCpu += rank.burstCpu;
        node.computedSeconds += rank.burstCpu;
        // Shorter, it is a turn of the relaying calibration, whose polls the messages' delays hold (turn).
        if (node.switchIn > 0 && rank.burstCpu >= node.ranks * node.switchIn) longComputations++;
      }
      // Never less than its CPU: a difference below zero is rounding, which grows with the times.
      rank.pw += Math.max(0, time - rank.burstStart - rank.burstCpu);
      if (!first) first = rank;
      else (more ??= []).push(rank);
    }
    for (let poller = node.pollerAt(node.served + tolerance); poller; poller = node.pollerAt(node.served + tolerance)) this.stopPolling(poller, time);
    if (this.slice > 0 && node.ready.length > 0 && this.atTick(time)) this.endSlices(node, tolerance);
    // At the end of a computation, as its rank enters a call and yields, every rank of the core
    // waiting in MPI takes a turn to poll (mpi_yield_when_idle) before the core goes on: a rank
    // computing in pieces with an MPI call between them loses about a microsecond to each waiting
    // rank at each call (validation/pem/poller-steal-mpi.c). Ranks in polling loops have their share.
    const waiting = node.ranks - node.running - node.ready.length - node.offCpu - finished - node.pollers;
    if (longComputations > 0 && waiting > 0) this.takeCore(node, time, longComputations * waiting * node.switchIn);
    this.scheduleNode(node);
    if (first) this.afterBurst(first, time);
    if (more) for (const rank of more) this.afterBurst(rank, time);
  }

  /** Whether `time` is one of the scheduler's ticks (sliceEnd's multiples of it); without a tick, every time is. */
  private atTick(time: number): boolean {
    return this.tick <= 0 || Math.abs(time - Math.round(time / this.tick) * this.tick) <= 1e-9 * this.tick;
  }

  /** Taking turns: the ranks whose slice is used give their core to the ready ones at this tick, and queue behind them. */
  private endSlices(node: Node, tolerance: number): void {
    const used = (rank: RankState) => sliceUsedNow(rank, node);
    // sliceEnd rounds to the tick within 1e-9 of it.
    const ended = node.heapRank.filter((rank) => used(rank) >= this.slice - tolerance - 1e-9 * this.tick);
    // As many as there are ready ranks, those longest on their core first (not in heap order, which depends on their finishes).
    ended.sort((a, b) => (Math.abs(used(b) - used(a)) > tolerance ? used(b) - used(a) : a.rank - b.rank));
    for (const rank of ended.slice(0, node.ready.length)) {
      rank.cpuLeft = node.remove(rank) - node.served;
      rank.sliceUsed = 0;
      node.ready.push(rank);
    }
  }

  /** Taking turns: the ready ranks take the node's free cores, in order. */
  private fillCores(node: Node): void {
    node.advance(this.now);
    while (node.running < node.cores && node.ready.length > 0) {
      const rank = node.ready.shift()!;
      rank.coreServed = node.served;
      node.push(rank, node.served + rank.cpuLeft);
    }
  }

  /** Taking turns: when the first of the node's running ranks has used its slice, at the tick that follows (Infinity: never). */
  private sliceEnd(node: Node, rate: number): number {
    if (node.ready.length === 0 || rate <= 0) return Infinity;
    let used = 0;
    for (let i = 0; i < node.running; i++) used = Math.max(used, sliceUsedNow(node.heapRank[i], node));
    const at = node.lastTime + Math.max(0, this.slice - used) / rate;
    return this.tick > 0 ? Math.max(node.lastTime, Math.ceil(at / this.tick - 1e-9) * this.tick) : at;
  }

  private afterBurst(rank: RankState, time: number): void {
    rank.status = 0;
    if (rank.resuming) {
      rank.resuming = false;
      this.report(rank, time);
      this.nextOp(rank, time);
    } else if (rank.op!.offCpuSeconds) this.leaveCore(rank, time);
    else if (this.yieldsAtSend(rank)) this.queueForCore(rank, time);
    else this.execute(rank, time);
  }

  /**
   * Taking turns: MPI_Send yields once as it starts (Open MPI's progress loop,
   * mpi_yield_when_idle), and a rank that has used its slice since its last wait loses its core
   * there to a rank ready on its node, as it would at a tick (docs/pem.md, "A blocking send ends a
   * used slice").
   */
  private yieldsAtSend(rank: RankState): boolean {
    return this.slice > 0 && (rank.op!.kind === OpKind.Send || rank.op!.kind === OpKind.Exchange) && rank.sliceUsed >= this.slice && this.nodes[rank.node].ready.length > 0;
  }

  /** Taking turns: the rank goes behind the node's ready ranks, with a new slice, and runs its operation when it gets a core (a burst of no CPU). */
  private queueForCore(rank: RankState, time: number): void {
    rank.sliceUsed = 0;
    this.startBurst(rank, time, 0, false, true);
  }

  /** The rank is off its core (PemOp.offCpuSeconds) before it runs its operation. */
  private leaveCore(rank: RankState, time: number): void {
    rank.status = OFF_CPU;
    this.nodes[rank.node].offCpu++;
    this.queue.push(time + rank.op!.offCpuSeconds!, rankEventId(rank.rank), 0);
  }

  /**
   * Marks the node's next finish as changed. One event usually changes it twice (a burst ends, the
   * rank's next burst starts at the same time): it is queued once, when the event is done.
   */
  private scheduleNode(node: Node): void {
    if (node.rescheduled) return;
    node.rescheduled = true;
    this.rescheduled[this.rescheduledCount++] = node;
  }

  private queueRescheduled(): void {
    for (let i = 0; i < this.rescheduledCount; i++) {
      const node = this.rescheduled[i];
      node.rescheduled = false;
      if (node.ready.length > 0) this.fillCores(node);
      this.queueNextFinish(node);
    }
    this.rescheduledCount = 0;
  }

  /** Queues the node's next finish under a new version, which makes its earlier entries stale. */
  private queueNextFinish(node: Node): void {
    node.version++;
    if (node.running === 0) return;
    const left = Math.min(node.nextFinish(), node.firstPollEnd) - node.served;
    const rate = node.rate();
    let at = rate > 0 ? node.lastTime + Math.max(0, left) / rate : Infinity;
    // The rate changes when the network stack gives its core back.
    if (node.stackUntil > node.lastTime) at = Math.min(at, node.stackUntil);
    if (this.slice > 0) at = Math.min(at, this.sliceEnd(node, rate));
    // Late in a long run a tiny remainder can be below the clock's resolution; step one unit so time moves.
    if (at <= node.lastTime && left > 0) at = node.lastTime + Math.max(Number.MIN_VALUE, node.lastTime * Number.EPSILON);
    this.queue.push(at, node.index, node.version);
  }

  /** Pulls the rank's next operation and starts the computation before it. */
  private nextOp(rank: RankState, time: number): void {
    for (;;) {
      const next = rank.stream.next();
      if (!next) {
        rank.status = DONE;
        rank.finish = time;
        return;
      }
      rank.op = next;
      if (next.compute > 0) {
        this.startBurst(rank, time, next.compute, false);
        return;
      }
      if (next.offCpuSeconds) {
        this.leaveCore(rank, time);
        return;
      }
      if (this.yieldsAtSend(rank)) {
        this.queueForCore(rank, time);
        return;
      }
      if (!this.perform(rank, time)) return;
      this.report(rank, time);
    }
  }

  /**
   * The rank computes `cpu` seconds on its node from `time`: before its op, or (resuming) copying
   * received data. Taking turns, it queues when every core is taken, or (`behindReady`) always.
   */
  private startBurst(rank: RankState, time: number, cpu: number, resuming: boolean, behindReady = false): void {
    const node = this.nodes[rank.node];
    node.advance(time);
    rank.status = COMPUTING;
    rank.resuming = resuming;
    if (resuming) node.resuming++;
    rank.burstStart = time;
    rank.burstCpu = cpu;
    this.scheduleNode(node);
    if (this.slice > 0 && (behindReady || node.running >= node.cores)) {
      rank.cpuLeft = cpu;
      node.ready.push(rank);
      return;
    }
    rank.coreServed = node.served;
    node.push(rank, node.served + cpu);
  }

  private report(rank: RankState, time: number): void {
    this.input.onReport?.(rank.rank, rank.op!, time);
  }

  /** Runs the operation a rank reached; continues with the next one unless it blocks. */
  private execute(rank: RankState, time: number): void {
    if (!this.perform(rank, time)) return;
    this.report(rank, time);
    this.nextOp(rank, time);
  }

  /** Performs `rank.op` at `time`; returns false when the rank blocks or ends. */
  private perform(rank: RankState, time: number): boolean {
    const op = rank.op!;
    this.operations++;
    switch (op.kind) {
      case OpKind.Send:
      case OpKind.Isend: {
        const done = this.send(rank, op, time);
        if (op.kind === OpKind.Isend) {
          rank.requests.set(op.request, done);
          return true;
        }
        return this.blockOnOne(rank, done, time);
      }
      case OpKind.Recv:
      case OpKind.Irecv: {
        const done = this.completion();
        if (op.peer < 0) this.resolve(done, time, rank.pc, rank.pm, rank.pw);
        else this.postRecv(rank, op, time, done);
        if (op.kind === OpKind.Irecv) {
          rank.requests.set(op.request, done);
          return true;
        }
        return this.blockOnOne(rank, done, time);
      }
      case OpKind.Exchange: {
        // Eager by construction (collectiveRounds): its send is done, and it waits for its receive.
        this.send(rank, op, time);
        const done = this.completion();
        this.postRecv(rank, op, time, done);
        return this.blockOnOne(rank, done, time);
      }
      case OpKind.Wait: {
        this.blockStart(rank, time);
        for (const id of op.requests) {
          const done = rank.requests.get(id);
          if (!done) {
            this.problem(`a wait names request ${id}, which no Isend/Irecv of that rank opened; ignored`);
            continue;
          }
          rank.requests.delete(id);
          this.blockOn(rank, done);
        }
        return this.blockEnd(rank, time);
      }
      case OpKind.Collective:
        // collectiveRounds replaced every collective by its messages.
        return true;
      case OpKind.KeepAlive:
        return true;
      case OpKind.End:
        rank.status = DONE;
        rank.finish = time;
        this.report(rank, time);
        rank.op = undefined;
        return false;
    }
  }

  // A blocking call or wait: blockStart, blockOn for each completion it waits for, blockEnd
  // (no array of completions per call).

  /** A blocking call that waits for one completion; returns true when it is not in the future. */
  private blockOnOne(rank: RankState, done: Completion, time: number): boolean {
    this.blockStart(rank, time);
    this.blockOn(rank, done);
    return this.blockEnd(rank, time);
  }

  private blockStart(rank: RankState, time: number): void {
    const until = rank.until;
    until.time = time;
    until.pc = rank.pc;
    until.pm = rank.pm;
    until.pw = rank.pw;
    until.work = 0;
    rank.unresolved = 0;
  }

  private blockOn(rank: RankState, done: Completion): void {
    rank.until.work += done.work;
    if (done.resolved) {
      this.merge(rank.until, done);
      if (done !== EAGER_SENT) this.freeCompletions.push(done);
    } else {
      done.waiter = rank;
      rank.unresolved++;
    }
  }

  /** The rank's path so far is the longest of those its call waited for (RankState.until). */
  private takeCriticalPath(rank: RankState): void {
    rank.pc = rank.until.pc;
    rank.pm = rank.until.pm;
    rank.pw = rank.until.pw;
  }

  /** Blocks the rank until every completion is known; returns true when none is in the future. */
  private blockEnd(rank: RankState, time: number): boolean {
    const until = rank.until;
    if (rank.unresolved === 0 && until.time <= time) {
      if (until.work === 0) return true;
      // Its messages were there: the call copies them in on the core it holds, with no wait and
      // no switch back (in turns, it does not queue behind the ready ranks).
      this.takeCriticalPath(rank);
      this.startBurst(rank, time, until.work, true);
      return false;
    }
    rank.status = BLOCKED;
    rank.blockedAt = time;
    const node = this.nodes[rank.node];
    node.blockedCalls++;
    const poll = rank.op!.pollInterval;
    if (poll !== undefined) {
      node.pollers++;
      rank.pollWait = true;
    }
    if (poll && node.computedSeconds > 0) this.startPolling(rank, node, time, poll / (node.computedSeconds / node.blockedCalls), rank.op!.polledSeconds);
    if (rank.unresolved > 0) return false;
    this.queue.push(Math.max(until.time, time), rankEventId(rank.rank), 0);
    return false;
  }

  /**
   * The rank polls in a loop until its wait ends, or until its polls have taken `polled` seconds
   * of CPU (PemOp.polledSeconds): it takes `share` of a running rank's CPU on its node.
   */
  private startPolling(rank: RankState, node: Node, time: number, share: number, polled = Infinity): void {
    node.advance(time);
    rank.pollShare = share;
    rank.pollServed = node.served;
    node.pollShares += share;
    node.addPoller(rank, node.served + polled / share);
    this.scheduleNode(node);
  }

  private stopPolling(rank: RankState, time: number): void {
    const node = this.nodes[rank.node];
    node.advance(time);
    // Its share of what each running rank was served since it started polling.
    rank.callCpu += rank.pollShare * (node.served - rank.pollServed);
    // Sums of floating-point shares need not come back to exactly 0.
    node.pollShares = Math.max(0, node.pollShares - rank.pollShare);
    rank.pollShare = 0;
    node.removePoller(rank);
    this.scheduleNode(node);
  }

  /** A completion not resolved yet: one a wait gave back, or a new one. */
  private completion(): Completion {
    const done = this.freeCompletions.pop();
    if (!done) return new Completion();
    done.resolved = false;
    done.time = 0;
    done.work = 0;
    done.pc = 0;
    done.pm = 0;
    done.pw = 0;
    done.waiter = null;
    return done;
  }

  private merge(into: Completion, done: Completion): void {
    if (done.time > into.time) {
      into.time = done.time;
      into.pc = done.pc;
      into.pm = done.pm;
      into.pw = done.pw;
    }
  }

  /** Fixes a completion's time and path; wakes its waiter once its last completion is known. */
  private resolve(done: Completion, time: number, pc: number, pm: number, pw: number): void {
    done.resolved = true;
    done.time = time;
    done.pc = pc;
    done.pm = pm;
    done.pw = pw;
    const waiter = done.waiter;
    if (!waiter) return;
    done.waiter = null;
    waiter.until.work += done.work;
    this.merge(waiter.until, done);
    this.freeCompletions.push(done);
    if (--waiter.unresolved === 0) this.queue.push(waiter.until.time, rankEventId(waiter.rank), 0);
  }

  private send(rank: RankState, op: PemOp, time: number): Completion {
    const dst = op.toWildcardSource ? this.mailboxes.wildcardSource(rank.rank) : op.peer;
    if (op.toWildcardSource && dst < 0) {
      this.problem('a reply to the source of a wildcard receive before any matched; ignored');
      return EAGER_SENT;
    }
    if (dst < 0 || dst >= this.ranks.length) {
      this.problem(`a send to rank ${dst}, outside the trace's ranks; ignored`);
      return EAGER_SENT;
    }
    const srcNode = this.input.nodeOf[rank.rank];
    const same = srcNode === this.input.nodeOf[dst];
    const network = this.input.network;
    const eager = op.bytes <= network.eagerLimitBytes;
    const done = eager ? EAGER_SENT : this.completion();
    const receiver = this.ranks[dst];
    const dstTurn = this.turn(receiver, rank.rank) + (this.tick > 0 ? this.tickWait(receiver, rank.rank, time) : 0);
    const full = network.oneWay(op.bytes, same);
    const tableZero = same ? this.zeroSame : this.zeroCross;
    const copy = Math.max(0, full - tableZero);
    // On a shared core the receiver's switchIn is the whole of a message's zero-byte time.
    const zero = same && this.nodes[srcNode].switchIn > 0 ? 0 : tableZero;
    // The rendezvous handshake's two legs: one waits for the receiver's turn, one for the sender's.
    const zeroWay = eager ? 0 : zero + (dstTurn + this.turn(rank, dst)) / 2;
    const copied = same || network.interNodeSharedMemory === true;
    const oneWay = (copied ? zero : full) + (same ? 0 : this.connect(rank.rank, dst, time)) + dstTurn;
    const channel = this.mailboxes.channel(rank.rank, dst, op.comm, op.tag);
    const recv = this.mailboxes.takeRecv(channel, rank.rank, dst, op.payload);
    if (eager && !same && this.raceWindow[srcNode] > 0) {
      const msg = this.message(rank, op, dst, time, true, oneWay, 0, copy, copied, srcNode, null);
      msg.racing = true;
      if (recv) {
        recv.done.work = receiveWork(copied, copy, recv.copy);
        msg.matched = recv;
      } else this.mailboxes.holdMessage(channel, msg);
      this.joinRace(srcNode, msg, time);
      return done;
    }
    if (recv) {
      // The receive was posted no later than now, so the data's arrival decides.
      const dataLeaves = eager ? time : time + 2 * zeroWay;
      const queued = same ? 0 : this.linkQueue(srcNode, dataLeaves, op.bytes);
      const comm = (eager ? oneWay : 2 * zeroWay + oneWay) + queued;
      if (!same) this.crossed(rank.rank, dst, time + comm, op.bytes);
      const work = receiveWork(copied, copy, recv.copy);
      recv.done.work = work;
      this.resolve(recv.done, time + comm, rank.pc, rank.pm + comm, rank.pw);
      if (!eager) this.resolve(done, time + comm + work, rank.pc, rank.pm + comm + work, rank.pw);
      this.freePosted.push(recv);
    } else {
      // Eager data leaves now; rendezvous data when the receive is there (postRecv).
      const queued = same || !eager ? 0 : this.linkQueue(srcNode, time, op.bytes);
      if (!same && eager) this.crossed(rank.rank, dst, time + oneWay + queued, op.bytes);
      this.mailboxes.holdMessage(channel, this.message(rank, op, dst, time, eager, oneWay + queued, zeroWay, copy, copied, same ? -1 : srcNode, eager ? null : done));
    }
    return done;
  }

  private message(rank: RankState, op: PemOp, dst: number, time: number, eager: boolean, oneWay: number, zeroWay: number, copy: number, copied: boolean, node: number, sender: Completion | null): Message {
    const msg = this.freeMessages.pop() ?? new Message();
    msg.time = time;
    msg.src = rank.rank;
    msg.dst = dst;
    msg.bytes = op.bytes;
    msg.eager = eager;
    msg.oneWay = oneWay;
    msg.zeroWay = zeroWay;
    msg.copy = copy;
    msg.copied = copied;
    msg.node = node;
    msg.pc = rank.pc;
    msg.pm = rank.pm;
    msg.pw = rank.pw;
    msg.sender = sender;
    msg.racing = false;
    msg.matched = null;
    msg.payload = op.payload;
    msg.seq = 0;
    return msg;
  }

  /** A receive of `rank` posted at `time`; Mailboxes.holdRecv numbers it when no message matches it. */
  private posted(rank: RankState, op: PemOp, time: number, done: Completion): PostedRecv {
    const recv = this.freePosted.pop() ?? new PostedRecv(op, done);
    recv.op = op;
    recv.time = time;
    recv.seq = 0;
    recv.copy = op.copySeconds;
    recv.pc = rank.pc;
    recv.pm = rank.pm;
    recv.pw = rank.pw;
    recv.done = done;
    return recv;
  }

  private postRecv(rank: RankState, op: PemOp, time: number, done: Completion): void {
    if (op.peer >= this.ranks.length) {
      this.problem(`a receive from rank ${op.peer}, outside the trace's ranks; ignored`);
      this.resolve(done, time, rank.pc, rank.pm, rank.pw);
      return;
    }
    const channel = this.mailboxes.recvChannel(rank.rank, op);
    const msg = this.mailboxes.takeMessage(channel, rank.rank, op);
    if (!msg) {
      this.mailboxes.holdRecv(channel, rank.rank, this.posted(rank, op, time, done));
      return;
    }
    const work = receiveWork(msg.copied, msg.copy, op.copySeconds);
    done.work = work;
    if (msg.racing) {
      msg.matched = this.posted(rank, op, time, done);
      return;
    }
    if (msg.eager) {
      this.deliverEager(msg, done, time, rank.pc, rank.pm, rank.pw);
      this.freeMessages.push(msg);
      return;
    }
    // Rendezvous: the request-to-send arrives at msg.time + L₀; the reply and the data follow.
    const senderFirst = msg.time + msg.zeroWay >= time;
    const dataLeaves = (senderFirst ? msg.time + msg.zeroWay : time) + msg.zeroWay;
    const queued = msg.node < 0 ? 0 : this.linkQueue(msg.node, dataLeaves, msg.bytes);
    const comm = (senderFirst ? 2 * msg.zeroWay + msg.oneWay : msg.zeroWay + msg.oneWay) + queued;
    const at = dataLeaves + msg.oneWay + queued;
    if (msg.node >= 0) this.crossed(msg.src, rank.rank, at, msg.bytes);
    const pc = senderFirst ? msg.pc : rank.pc;
    const pm = (senderFirst ? msg.pm : rank.pm) + comm;
    const pw = senderFirst ? msg.pw : rank.pw;
    this.resolve(done, at, pc, pm, pw);
    if (msg.sender) this.resolve(msg.sender, at + work, pc, pm + work, pw);
    this.freeMessages.push(msg);
  }
}

/**
 * The receiver's CPU work once a message is there, from the table's size-dependent time
 * T(b) − T(0) and the copy the trace measured for this receive (−1: none). A message the
 * receiver copies in (inside a node, or between nodes that share memory) is that copy: the
 * table's time, or the traced copy when longer (caches). Otherwise the table's time is the
 * network's, and a traced copy beyond it is the receiver's own work taking the data in (over
 * TCP, its copies from the socket).
 */
function receiveWork(copied: boolean, tableCopy: number, tracedCopy: number): number {
  return copied ? Math.max(tableCopy, tracedCopy) : Math.max(0, tracedCopy - tableCopy);
}

function describe(op: PemOp | undefined): string {
  if (!op) return 'nothing';
  if (op.tag === ROUND_TAG) {
    // An exchange's send is done as it starts: it can only wait in its receive.
    const step = op.kind === OpKind.Send ? `a send to rank ${op.peer}` : op.kind === OpKind.Recv || op.kind === OpKind.Exchange ? `a receive from rank ${op.peer}` : 'an exchange';
    return `${collectiveName(op.collective)} on communicator ${op.comm}, in ${step}`;
  }
  return describeMessage(op);
}

function describeMessage(op: PemOp): string {
  switch (op.kind) {
    case OpKind.Send:
      return `a send to rank ${op.peer} (tag ${op.tag}, ${op.bytes} bytes)`;
    case OpKind.Recv:
      return `a receive from ${op.anySource ? 'any rank' : `rank ${op.peer}`} (${op.anyTag ? 'any tag' : `tag ${op.tag}`})`;
    case OpKind.Wait:
      return `a wait on ${op.requests.length} request(s)`;
    default:
      return `operation ${op.kind}`;
  }
}

/** Runs an engine to the end. */
export function simulate(input: EngineInput): EngineResult {
  const engine = new PemEngine(input);
  engine.run();
  return engine.result();
}
