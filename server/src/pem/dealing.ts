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
// The workers' operations are held in memory, as a task may go to any of them.

import { OpKind, PemOp, RankStream } from './ops';
import { Pace } from './pace';
import { rankList } from './rankList';

/** A rank's stream over a trace file, closed when done with. */
export type ClosableStream = RankStream & { close(): void };

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
 * had such receives): each is read whole (one stream per rank for all of them), and a dealer's
 * workers' streams are split once to check the pattern. A worker of two dealers, or a dealer that
 * is another's worker, keeps the trace's matches.
 */
export async function findDealers(streamsOf: () => ClosableStream[], candidates: readonly number[], notes: string[], pace?: Pace): Promise<Dealer[]> {
  if (candidates.length === 0) return [];
  const wildcardRanks = new Set(candidates);
  const streams = streamsOf();
  let found: (Dealer | string | undefined)[];
  try {
    found = [];
    for (const rank of candidates) found.push(await findDealer(rank, streams[rank], wildcardRanks, pace));
  } finally {
    for (const stream of streams) stream.close();
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
    const check = streamsOf();
    const dealt = await dealTasks(check, dealer, pace);
    for (const stream of check) stream.close();
    if (typeof dealt === 'string') {
      notes.push(dealt);
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
 * Streams in which `dealer`'s tasks go to the worker that asks first: the dealer's stream marks
 * its replies and attaches each message's task; each worker's stream runs the tasks it receives.
 * Reads the workers' streams whole. Returns why not when a worker does more than the pattern.
 */
export async function dealTasks(streams: readonly RankStream[], dealer: Dealer, pace?: Pace): Promise<RankStream[] | string> {
  const tasks = new Map<number, Task[]>();
  const workerStreams = new Map<number, RankStream>();
  for (const worker of dealer.workers) {
    const split = await splitWorker(worker, streams[worker], dealer, pace);
    if (typeof split === 'string') return split;
    tasks.set(worker, split.tasks);
    workerStreams.set(worker, workerStream(dealer.rank, split.prefix, split.first));
  }
  return streams.map((stream, rank) => (rank === dealer.rank ? dealerStream(stream, dealer, tasks) : (workerStreams.get(rank) ?? stream)));
}

/** A worker's operations before its first receive from the dealer, that receive, and the tasks that follow each. */
async function splitWorker(worker: number, stream: RankStream, dealer: Dealer, pace?: Pace): Promise<{ prefix: PemOp[]; first: PemOp; tasks: Task[] } | string> {
  const prefix: PemOp[] = [];
  const tasks: Task[] = [];
  let first: PemOp | undefined;
  let ops: PemOp[] = [];
  let ended = false;
  // Every task but the last may only compute and send to the dealer (another worker may run it):
  // the first operation that does more, which ends the pattern unless no receive from the dealer follows.
  let more: PemOp | undefined;
  const why = (what: string) => `rank ${worker} takes tasks from rank ${dealer.rank} with MPI_ANY_SOURCE but ${what}; its matches are replayed as traced`;
  for (let op = stream.next(); op; op = stream.next()) {
    if (pace?.counted()) await pace.pause();
    if (op.kind === OpKind.End) ended = true;
    const fromDealer = op.peer === dealer.rank && (op.kind === OpKind.Recv || op.kind === OpKind.Irecv);
    if (fromDealer && op.kind === OpKind.Irecv) return why('receives from it with MPI_Irecv');
    if (!first) {
      if (fromDealer) first = op;
      else prefix.push(op);
      continue;
    }
    if (fromDealer) {
      if (more) return why(`does more than compute and send to it between its receives (${kindName(more)}${more.peer >= 0 ? ` with rank ${more.peer}` : ''})`);
      tasks.push(new Task(ops, op));
      ops = [];
      continue;
    }
    if (!more && op.kind !== OpKind.KeepAlive && !(op.kind === OpKind.Send && op.peer === dealer.rank)) more = op;
    ops.push(op);
  }
  if (!first || !ended) return why(first ? 'its stream ends without End' : 'never receives from it');
  tasks.push(new Task(ops, null));
  if (tasks.length !== (dealer.sentTo.get(worker) ?? 0)) return why(`receives ${tasks.length} messages from it where it sent ${dealer.sentTo.get(worker) ?? 0}`);
  return { prefix, first, tasks };
}

function kindName(op: PemOp): string {
  if (op.kind === OpKind.Collective) return 'a collective';
  if (op.kind === OpKind.Wait) return 'a wait';
  return op.kind === OpKind.Send || op.kind === OpKind.Isend ? 'a send' : 'a receive';
}

/** The dealer's stream: sends to a worker carry that worker's next task; a send to the source of the last wildcard receive is a reply. */
function dealerStream(stream: RankStream, dealer: Dealer, tasks: Map<number, Task[]>): RankStream {
  const sent = new Map<number, number>();
  let lastSource = -1;
  return {
    next: () => {
      const op = stream.next();
      if (!op) return op;
      if (op.kind === OpKind.Recv && op.anySource) lastSource = op.peer;
      else if ((op.kind === OpKind.Send || op.kind === OpKind.Isend) && dealer.workers.has(op.peer)) {
        const k = sent.get(op.peer) ?? 0;
        sent.set(op.peer, k + 1);
        op.payload = tasks.get(op.peer)![k];
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
 * when it is posted).
 */
function workerStream(dealer: number, prefix: PemOp[], first: PemOp): RankStream {
  let queue = prefix;
  let at = 0;
  let next: PemOp | null = first;
  let posted: PemOp | undefined;
  return {
    next: (): PemOp | undefined => {
      for (;;) {
        if (at < queue.length) return queue[at++];
        if (posted) {
          const task = posted.payload;
          posted = undefined;
          // Only a message that carried no task (the dealer's stream was not the dealing one) ends here.
          if (!(task instanceof Task)) return new PemOp(OpKind.End);
          queue = task.ops;
          at = 0;
          next = task.next;
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
