// Dynamic dealing: a master that takes results with MPI_ANY_SOURCE and replies to whichever
// worker reported hands out its tasks by timing, so another placement deals them otherwise. In
// the master–worker sample the 4/1 trace deals about 100 of 300 tasks to each of three workers;
// at 4/2 the worker beside the (mostly waiting) master takes 167–180 and the two sharing a core
// 60–73 each. A replay of the trace's matches kept 100 each, and predicted 4/2 17–25% long.
//
// Here the work a worker did after each receive from the master, up to its next one (the task's
// computation, its result message), travels with that message (PemOp.payload), and the master's
// replies go to the source its wildcard receive matched in the replay (PemOp.toWildcardSource):
// a worker that is free sooner gets the next task, with that task's own work. A task is known by
// the message that carried it, so its work in the trace is kept whoever runs it.
//
// It applies when one rank (the dealer) receives with MPI_ANY_SOURCE from two or more ranks, and
// each of those workers only computes, receives from the dealer (blocking) and sends to it, up to
// its last receive from the dealer, whose message ends its part (the sample's stop message); after
// that anything goes (a reduction). Other traces replay the trace's matches, with a note saying why.
// A worker's tasks are read from its stream as the dealer sends them, in the trace's order; a task
// is held from that send until it has run, so memory is bounded by the tasks in flight.

import { ClosableStream, OpKind, PemOp, RankStream } from './ops';
import { Pace } from './pace';
import { rankList } from './rankList';

/** A dealer found in the trace: its workers and how many messages it sent each. */
export interface Dealer {
  rank: number;
  workers: Set<number>;
  sentTo: Map<number, number>;
}

/** What a worker did after one receive from the dealer: carried by that message. */
class Task {
  constructor(
    readonly ops: PemOp[],
    /** The receive that ended it (its computation before is the task's last), or null for the worker's last task. */
    readonly next: PemOp | null,
    /** The last task's operations, read as it runs: the worker's stream after its last receive from the dealer. */
    readonly rest?: RankStream,
  ) {}
}

/**
 * The dealer in a rank's whole stream, if it is one: blocking receives with MPI_ANY_SOURCE from
 * two or more ranks. Otherwise why not, or undefined when it has no such receive. Stops early at
 * a wildcard receive from a rank of `alsoWildcard` (ranks that receive with MPI_ANY_SOURCE too,
 * as neighbours in a stencil do): such peers are not workers.
 */
export async function findDealer(rank: number, stream: RankStream, alsoWildcard: ReadonlySet<number> = new Set(), pace?: Pace): Promise<Dealer | string | undefined> {
  const workers = new Set<number>();
  const sentTo = new Map<number, number>();
  for (let op = stream.next(); op; op = stream.next()) {
    if (pace?.counted()) await pace.pause();
    if (op.anySource && op.peer >= 0) {
      if (op.kind !== OpKind.Recv) return `rank ${rank} posts MPI_ANY_SOURCE receives with MPI_Irecv; its matches are replayed as traced`;
      if (alsoWildcard.has(op.peer) && op.peer !== rank) return `rank ${rank} receives with MPI_ANY_SOURCE from rank ${op.peer}, which does too; their matches are replayed as traced`;
      workers.add(op.peer);
    } else if (op.kind === OpKind.Send || op.kind === OpKind.Isend) sentTo.set(op.peer, (sentTo.get(op.peer) ?? 0) + 1);
  }
  workers.delete(rank);
  return workers.size < 2 ? undefined : { rank, workers, sentTo };
}

/** Ranks with MPI_ANY_SOURCE receives that are not dealers, named in the notes before a count of the rest. */
const NOT_DEALERS_SHOWN = 3;

/**
 * The ranks that deal tasks by MPI_ANY_SOURCE, among `candidates` (those whose first operations
 * had such receives): each is read whole, and a dealer's workers' streams are read once to check
 * the pattern, one rank's stream open at a time. A worker of two dealers, or a dealer that
 * is another's worker, keeps the trace's matches.
 */
export async function findDealers(streamOf: (rank: number) => ClosableStream, candidates: readonly number[], notes: string[], pace?: Pace): Promise<Dealer[]> {
  if (candidates.length === 0) return [];
  const wildcardRanks = new Set(candidates);
  // A trace of thousands of ranks holds a window for each open stream.
  const found: (Dealer | string | undefined)[] = [];
  for (const rank of candidates) {
    const stream = streamOf(rank);
    try {
      found.push(await findDealer(rank, stream, wildcardRanks, pace));
    } finally {
      stream.close();
    }
  }
  // Ranks that are not dealers say why; a stencil's neighbours all say the same, so a few do.
  const why = found.filter((dealer): dealer is string => typeof dealer === 'string');
  notes.push(...why.slice(0, NOT_DEALERS_SHOWN));
  if (why.length > NOT_DEALERS_SHOWN) notes.push(`… and ${why.length - NOT_DEALERS_SHOWN} more ranks whose MPI_ANY_SOURCE matches are replayed as traced`);
  const dealers: Dealer[] = [];
  const taken = new Set<number>();
  for (const dealer of found) {
    if (dealer === undefined || typeof dealer === 'string') continue;
    if (taken.has(dealer.rank) || [...dealer.workers].some((worker) => taken.has(worker))) {
      notes.push(`rank ${dealer.rank} deals tasks by MPI_ANY_SOURCE to ranks another dealer also uses; its matches are replayed as traced`);
      continue;
    }
    const why = await checkDealing(streamOf, dealer, pace);
    if (why) {
      notes.push(why);
      continue;
    }
    taken.add(dealer.rank);
    for (const worker of dealer.workers) taken.add(worker);
    dealers.push(dealer);
    notes.push(`rank ${dealer.rank} deals tasks by MPI_ANY_SOURCE to ranks ${rankList(dealer.workers)}: in each prediction a task goes to the worker that asks first, with its traced work`);
  }
  return dealers;
}

/**
 * Why `dealer`'s workers do not follow the pattern, or undefined when they do: each worker's
 * stream is opened, read whole, only counted, and closed (when it can be) before the next.
 */
export async function checkDealing(streamOf: (rank: number) => RankStream & { close?(): void }, dealer: Dealer, pace?: Pace): Promise<string | undefined> {
  for (const worker of dealer.workers) {
    const stream = streamOf(worker);
    try {
      const why = await checkWorker(stream, worker, dealer, pace);
      if (why) return why;
    } finally {
      stream.close?.();
    }
  }
  return undefined;
}

/** Why one worker's stream does not follow the pattern, or undefined. */
async function checkWorker(stream: RankStream, worker: number, dealer: Dealer, pace?: Pace): Promise<string | undefined> {
  const why = (what: string) => `rank ${worker} takes tasks from rank ${dealer.rank} with MPI_ANY_SOURCE but ${what}; its matches are replayed as traced`;
  let received = 0;
  let ended = false;
  // Every task but the last may only compute and send to the dealer (another worker may run it):
  // the first operation that does more, which ends the pattern unless no receive from the dealer follows.
  let more: PemOp | undefined;
  for (let op = stream.next(); op; op = stream.next()) {
    if (pace?.counted()) await pace.pause();
    if (op.kind === OpKind.End) ended = true;
    if (op.kind === OpKind.Irecv && op.peer === dealer.rank) return why('receives from it with MPI_Irecv');
    if (isReceiveFrom(dealer.rank, op)) {
      if (more) return why(`does more than compute and send to it between its receives (${kindName(more)}${more.peer >= 0 ? ` with rank ${more.peer}` : ''})`);
      received++;
    } else if (received > 0 && !more && op.kind !== OpKind.KeepAlive && !(op.kind === OpKind.Send && op.peer === dealer.rank)) more = op;
  }
  if (received === 0 || !ended) return why(received > 0 ? 'its stream ends without End' : 'never receives from it');
  if (received !== (dealer.sentTo.get(worker) ?? 0)) return why(`receives ${received} messages from it where it sent ${dealer.sentTo.get(worker) ?? 0}`);
  return undefined;
}

/**
 * Streams in which `dealer`'s tasks go to the worker that asks first: the dealer's stream marks
 * its replies and attaches each message's task; each worker's stream runs the tasks it receives.
 * For streams whose pattern `checkDealing` accepted.
 */
export function dealTasks(streams: readonly RankStream[], dealer: Dealer): RankStream[] {
  const tasks = new Map<number, WorkerTasks>();
  for (const worker of dealer.workers) tasks.set(worker, new WorkerTasks(streams[worker], dealer.rank, dealer.sentTo.get(worker) ?? 0));
  return streams.map((stream, rank) => (rank === dealer.rank ? dealerStream(stream, dealer, tasks) : workerStream(dealer.rank, tasks.get(rank)) ?? stream));
}

/** A blocking receive from the dealer: one that ends a task (or the worker's operations before its first). */
function isReceiveFrom(dealer: number, op: PemOp): boolean {
  return op.kind === OpKind.Recv && op.peer === dealer;
}

/**
 * A worker's stream split at its receives from the dealer: its own operations before the first,
 * then its tasks, each read when the dealer sends the message that carries it.
 */
class WorkerTasks {
  /** Operations before the first receive, read ahead of the worker's own stream when the dealer sent first. */
  private readonly before: PemOp[] = [];
  private beforeAt = 0;
  private beforeRead = false;
  /** The first receive from the dealer (undefined until read, or if there is none). */
  first: PemOp | undefined;

  constructor(
    private readonly source: RankStream,
    private readonly dealer: number,
    /** The messages the dealer sent it in the trace: the last one carries the rest of the stream. */
    private tasksLeft: number,
  ) {}

  /** The worker's next operation before its first receive from the dealer, or undefined once there. */
  nextBefore(): PemOp | undefined {
    if (this.beforeAt < this.before.length) return this.before[this.beforeAt++];
    return this.beforeRead ? undefined : this.readBefore();
  }

  /** The next task in the trace's order; undefined past the last. */
  nextTask(): Task | undefined {
    while (!this.beforeRead) {
      const op = this.readBefore();
      if (op) this.before.push(op);
    }
    if (this.tasksLeft <= 0) return undefined;
    if (--this.tasksLeft === 0) return new Task([], null, this.source);
    const ops: PemOp[] = [];
    for (let op = this.source.next(); op; op = this.source.next()) {
      if (isReceiveFrom(this.dealer, op)) return new Task(ops, op);
      ops.push(op);
    }
    return new Task(ops, null);
  }

  private readBefore(): PemOp | undefined {
    const op = this.source.next();
    if (op && !isReceiveFrom(this.dealer, op)) return op;
    this.beforeRead = true;
    this.first = op;
    return undefined;
  }
}

function kindName(op: PemOp): string {
  if (op.kind === OpKind.Collective) return 'a collective';
  if (op.kind === OpKind.Wait) return 'a wait';
  return op.kind === OpKind.Send || op.kind === OpKind.Isend ? 'a send' : 'a receive';
}

/** The dealer's stream: sends to a worker carry that worker's next task; a send to the source of the last wildcard receive is a reply. */
function dealerStream(stream: RankStream, dealer: Dealer, tasks: Map<number, WorkerTasks>): RankStream {
  let lastSource = -1;
  return {
    next: () => {
      const op = stream.next();
      if (!op) return op;
      if (op.kind === OpKind.Recv && op.anySource) lastSource = op.peer;
      else if ((op.kind === OpKind.Send || op.kind === OpKind.Isend) && dealer.workers.has(op.peer)) {
        op.payload = tasks.get(op.peer)!.nextTask();
        if (op.peer === lastSource) op.toWildcardSource = true;
      }
      return op;
    },
  };
}

/**
 * A worker's stream: its own operations up to its first receive from the dealer, then the tasks
 * the messages it receives carry, each followed by a receive from the dealer on any tag (the
 * next message may be another worker's task or stop message). A receive's computation before it
 * is the end of the task before it; its copy is the table's (which message it gets is not known
 * when it is posted). Undefined for a rank that is not a worker.
 */
function workerStream(dealer: number, tasks: WorkerTasks | undefined): RankStream | undefined {
  if (!tasks) return undefined;
  let before = true;
  let queue: PemOp[] = [];
  let at = 0;
  let rest: RankStream | undefined;
  let next: PemOp | null = null;
  let posted: PemOp | undefined;
  return {
    next: (): PemOp | undefined => {
      for (;;) {
        if (before) {
          const op = tasks.nextBefore();
          if (op) return op;
          before = false;
          next = tasks.first ?? null;
        }
        if (at < queue.length) return queue[at++];
        if (rest) return rest.next();
        if (posted) {
          const task = posted.payload;
          posted = undefined;
          // Only a message that carried no task (the dealer's stream was not the dealing one) ends here.
          if (!(task instanceof Task)) return new PemOp(OpKind.End);
          queue = task.ops;
          at = 0;
          next = task.next;
          rest = task.rest;
          continue;
        }
        if (!next) return undefined;
        posted = new PemOp(OpKind.Recv);
        posted.peer = dealer;
        posted.comm = next.comm;
        posted.tag = next.tag;
        posted.anyTag = true;
        posted.compute = next.compute;
        if (next.offCpuSeconds) posted.offCpuSeconds = next.offCpuSeconds;
        next = null;
        return posted;
      }
    },
  };
}
