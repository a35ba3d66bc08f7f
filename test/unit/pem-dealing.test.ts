// Dynamic dealing (dealing.ts): a master that takes results with MPI_ANY_SOURCE hands each task
// to the worker that asks first, with the task's traced work, on hand-built master–worker traces.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { COLL_REDUCE } from '../../server/src/pem/collectives';
import { checkDealing, dealTasks, Dealer, findDealer, findDealers } from '../../server/src/pem/dealing';
import { EngineNetwork, simulate } from '../../server/src/pem/engine';
import { arrayStream, op, OpKind, PemOp, RankStream } from '../../server/src/pem/ops';
import { CancelledError, Pace } from '../../server/src/pem/pace';

const INSTANT: EngineNetwork = { eagerLimitBytes: 65536, oneWay: () => 0 };
const TASK = 1;
const RESULT = 2;
const STOP = 3;

/**
 * A master–worker trace as the sample program makes it: rank 0 sends one task to each worker,
 * then for every result (MPI_ANY_SOURCE) replies with the next task or a stop. The trace dealt
 * task j to worker 1 + j mod W and took the results in task order.
 */
function masterWorker(costs: readonly number[], workers: number, wildcards = true): PemOp[][] {
  const workerOf = (task: number) => 1 + (task % workers);
  const master: PemOp[] = [];
  for (let w = 1; w <= workers; w++) master.push(op(OpKind.Send, { peer: w, tag: w - 1 < costs.length ? TASK : STOP, bytes: 8 }));
  for (let task = 0; task < costs.length; task++) {
    const worker = workerOf(task);
    master.push(op(OpKind.Recv, { peer: worker, tag: RESULT, bytes: 8, ...(wildcards ? { anySource: true } : {}) }));
    master.push(op(OpKind.Send, { peer: worker, tag: task + workers < costs.length ? TASK : STOP, bytes: 8 }));
  }
  master.push(op(OpKind.Collective, { collective: COLL_REDUCE, root: 0, sizeSent: 8 }), op(OpKind.End));
  const ranks = [master];
  for (let w = 1; w <= workers; w++) {
    const ops: PemOp[] = [];
    for (let task = w - 1; task < costs.length; task += workers) {
      ops.push(op(OpKind.Recv, { peer: 0, tag: TASK, bytes: 8, ...(wildcards ? { anyTag: true } : {}) }));
      ops.push(op(OpKind.Send, { compute: costs[task], peer: 0, tag: RESULT, bytes: 8 }));
    }
    ops.push(op(OpKind.Recv, { peer: 0, tag: STOP, bytes: 8, ...(wildcards ? { anyTag: true } : {}) }));
    ops.push(op(OpKind.Collective, { collective: COLL_REDUCE, root: 0, sizeSent: 8 }), op(OpKind.End));
    ranks.push(ops);
  }
  return ranks;
}

/** Master and worker 1 on a node of two cores; workers 2 and 3 share one core. */
const NODE_OF = [0, 0, 1, 1];
const CORES = [2, 1];

function replay(streams: RankStream[], nodeOf = NODE_OF, coresPerNode = CORES, network = INSTANT) {
  const tasksRun = nodeOf.map(() => 0);
  let workDone = 0;
  const result = simulate({
    streams,
    nodeOf,
    coresPerNode,
    network,
    communicators: new Map([[0, nodeOf.map((_, rank) => rank)]]),
    onReport: (rank, o) => {
      if (rank > 0 && o.kind === OpKind.Send && o.tag === RESULT) {
        tasksRun[rank]++;
        workDone += o.compute;
      }
    },
  });
  return { result, tasksRun, workDone };
}

async function dealer(costs: readonly number[]): Promise<Dealer> {
  const found = await findDealer(0, arrayStream(masterWorker(costs, 3)[0]));
  assert.ok(found && typeof found !== 'string', String(found));
  return found;
}

/** Opens rank r's stream over `ranks[r]`, as checkDealing and findDealers ask for one rank at a time. */
const streamOf = (ranks: PemOp[][]) => (rank: number) => arrayStream(ranks[rank]);

/** `ranks()`'s streams dealt, once checkDealing accepted them (each call makes fresh operations). */
async function checkedDeal(ranks: () => PemOp[][], found: Dealer): Promise<RankStream[]> {
  const why = await checkDealing(streamOf(ranks()), found);
  assert.equal(why, undefined, why);
  return dealTasks(ranks().map(arrayStream), found);
}

test('a task goes to the worker that asks first: the one with a core of its own takes half of them', async () => {
  const costs = Array.from({ length: 30 }, () => 1);
  const found = (await dealer(costs));
  assert.deepEqual([...found.workers].sort(), [1, 2, 3]);
  const { result, tasksRun } = replay(await checkedDeal(() => masterWorker(costs, 3), found));
  assert.equal(result.complete, true, result.problems.join('; '));
  // 30 units on one core and two half cores: 15, where the trace's deal (10 each) takes 20.
  assert.ok(Math.abs(result.predictedSeconds - 15) <= 1, `${result.predictedSeconds}`);
  assert.ok(tasksRun[1] >= 14 && tasksRun[1] <= 16, `worker 1 ran ${tasksRun[1]}`);
  assert.equal(tasksRun[1] + tasksRun[2] + tasksRun[3], 30);
  const traced = replay(masterWorker(costs, 3, false).map(arrayStream));
  assert.equal(traced.result.complete, true);
  assert.ok(Math.abs(traced.result.predictedSeconds - 20) < 1e-9, `${traced.result.predictedSeconds}`);
  assert.deepEqual(traced.tasksRun, [0, 10, 10, 10]);
});

test("every task runs once, with its own traced work, whoever runs it", async () => {
  const random = mulberry32(7);
  const costs = Array.from({ length: 60 }, () => 1 + 40 * random() ** 3);
  const { result, tasksRun, workDone } = replay(await checkedDeal(() => masterWorker(costs, 3), await dealer(costs)));
  assert.equal(result.complete, true, result.problems.join('; '));
  assert.equal(tasksRun[1] + tasksRun[2] + tasksRun[3], 60);
  const total = costs.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(workDone - total) < 1e-9, `${workDone} ≠ ${total}`);
  // Greedy dealing ends within the largest task of the balanced time (one core and two halves).
  assert.ok(result.predictedSeconds >= total / 2 - 1e-9 && result.predictedSeconds <= total / 2 + Math.max(...costs), `${result.predictedSeconds} against ${total / 2}`);
});

test('workers that do more than compute and reply keep the trace matches, and say why', async () => {
  const costs = [1, 2, 3, 4, 5, 6];
  const ranks = masterWorker(costs, 3);
  // Worker 2 tells worker 3 something in its first task.
  ranks[2].splice(2, 0, op(OpKind.Send, { peer: 3, tag: 9 }));
  const why = await checkDealing(streamOf(ranks), await dealer(costs));
  assert.match(why ?? '', /^rank 2 takes tasks from rank 0 with MPI_ANY_SOURCE but does more than compute and send to it between its receives \(a send with rank 3\)/);
  // A worker that received fewer messages than the master sent it.
  const short = masterWorker(costs, 3);
  short[1].splice(0, 2);
  assert.match((await checkDealing(streamOf(short), await dealer(costs))) ?? '', /rank 1 .* receives 2 messages from it where it sent 3/);
  // Only one source: nothing to deal.
  assert.equal(await findDealer(0, arrayStream([op(OpKind.Recv, { peer: 1, anySource: true }), op(OpKind.End)])), undefined);
  assert.match(await findDealer(0, arrayStream([op(OpKind.Irecv, { peer: 1, anySource: true, request: 1 }), op(OpKind.Wait, { requests: [1] }), op(OpKind.End)])) as string, /MPI_Irecv/);
});

test('ranks that receive from each other with MPI_ANY_SOURCE (a stencil\'s neighbours) are not a dealer and its workers', async () => {
  const neighbour = [op(OpKind.Recv, { peer: 1, anySource: true }), op(OpKind.Recv, { peer: 2, anySource: true }), op(OpKind.End)];
  assert.match(await findDealer(0, arrayStream(neighbour), new Set([0, 1, 2])) as string, /^rank 0 receives with MPI_ANY_SOURCE from rank 1, which does too/);
  const found = await findDealer(0, arrayStream(neighbour), new Set([0]));
  assert.ok(found && typeof found !== 'string');
});

test('findDealers: the master of a trace is found and its pattern checked; a stencil\'s ranks say why, a few by name', async () => {
  // Streams that count how many are open at once: one at a time, as a trace of thousands of ranks holds a window for each.
  let open = 0;
  let mostOpen = 0;
  const closable = (ranks: PemOp[][]) => (rank: number) => {
    mostOpen = Math.max(mostOpen, ++open);
    return Object.assign(arrayStream(ranks[rank]), { close: () => void open-- });
  };
  const costs = [1, 2, 3, 4, 5, 6];
  const notes: string[] = [];
  const dealers = await findDealers(closable(masterWorker(costs, 3)), [0], notes);
  assert.deepEqual(dealers.map((d) => d.rank), [0]);
  assert.deepEqual([open, mostOpen], [0, 1], 'every stream closed, one open at a time');
  assert.deepEqual(notes, ['rank 0 deals tasks by MPI_ANY_SOURCE to ranks 1, 2, 3: in each prediction a task goes to the worker that asks first, with its traced work']);
  // Eight ranks in a ring, each receiving from both neighbours with MPI_ANY_SOURCE.
  const ring = Array.from({ length: 8 }, (_, r) => [op(OpKind.Recv, { peer: (r + 7) % 8, anySource: true }), op(OpKind.Recv, { peer: (r + 1) % 8, anySource: true }), op(OpKind.End)]);
  const ringNotes: string[] = [];
  assert.deepEqual(await findDealers(closable(ring), [0, 1, 2, 3, 4, 5, 6, 7], ringNotes), []);
  assert.deepEqual([open, mostOpen], [0, 1]);
  assert.equal(ringNotes.length, 4);
  assert.match(ringNotes[0], /^rank 0 receives with MPI_ANY_SOURCE from rank 7, which does too/);
  assert.equal(ringNotes[3], '… and 5 more ranks whose MPI_ANY_SOURCE matches are replayed as traced');
});

test('property: on random master–worker traces and placements every task runs once with its work, and every rank finishes', async () => {
  const random = mulberry32(2026);
  for (let trial = 0; trial < 40; trial++) {
    const workers = 2 + Math.floor(random() * 5);
    const costs = Array.from({ length: 1 + Math.floor(random() * 80) }, () => 1 + 40 * random() ** 3);
    const nodes = 1 + Math.floor(random() * 3);
    const nodeOf = Array.from({ length: workers + 1 }, () => Math.floor(random() * nodes));
    const coresPerNode = Array.from({ length: nodes }, () => 1 + Math.floor(random() * 2));
    const network: EngineNetwork = { eagerLimitBytes: 65536, oneWay: (_, same) => (same ? 0.01 : 0.1) * random(), schedulerTickSeconds: random() < 0.5 ? 4 : undefined };
    const found = await findDealer(0, arrayStream(masterWorker(costs, workers)[0]));
    const what = `trial ${trial}: ${workers} workers, ${costs.length} tasks, nodes ${nodeOf.join(',')}, cores ${coresPerNode.join(',')}`;
    assert.ok(found && typeof found !== 'string', `${what}: ${String(found)}`);
    const { result, tasksRun, workDone } = replay(await checkedDeal(() => masterWorker(costs, workers), found), nodeOf, coresPerNode, network);
    assert.equal(result.complete, true, `${what}: ${result.problems.join('; ')}`);
    assert.equal(tasksRun.reduce((a, b) => a + b, 0), costs.length, what);
    assert.ok(Math.abs(workDone - costs.reduce((a, b) => a + b, 0)) < 1e-6, what);
  }
});

test('reading a master and its workers whole gives the event loop turns: a cancellation stops it there', async () => {
  // 3,000 tasks: the master's stream and each worker's are thousands of operations long.
  const costs = Array.from({ length: 3000 }, () => 1);
  const cancelled = async () => {
    const pace = new Pace(() => true);
    // A turn is due once 50 ms of work have passed.
    await new Promise((resolve) => setTimeout(resolve, 60));
    return pace;
  };
  await assert.rejects(findDealer(0, arrayStream(masterWorker(costs, 3)[0]), new Set(), await cancelled()), CancelledError);
  await assert.rejects(checkDealing(streamOf(masterWorker(costs, 3)), await dealer(costs), await cancelled()), CancelledError);
  // Without a cancellation the same reads complete.
  assert.equal(await checkDealing(streamOf(masterWorker(costs, 3)), await dealer(costs), new Pace()), undefined);
});

test('tasks are read as they are dealt: the operations read and not yet run stay within the tasks in flight', async () => {
  const random = mulberry32(11);
  const costs = Array.from({ length: 3000 }, () => 1 + 40 * random() ** 3);
  const found = await dealer(costs);
  assert.equal(await checkDealing(streamOf(masterWorker(costs, 3)), found), undefined);
  let read = 0;
  let ran = 0;
  let mostHeld = 0;
  const counted = masterWorker(costs, 3).map((ops, rank) => {
    const stream = arrayStream(ops);
    return rank === 0 ? stream : { next: () => { const o = stream.next(); if (o) read++; return o; } };
  });
  const dealt = dealTasks(counted, found);
  assert.equal(read, 0, 'nothing is read before the replay asks');
  const result = simulate({
    streams: dealt,
    nodeOf: NODE_OF,
    coresPerNode: CORES,
    network: INSTANT,
    communicators: new Map([[0, [0, 1, 2, 3]]]),
    onReport: (rank, o) => {
      // A task is read as its result send and the receive after it (which the worker posts).
      if (rank > 0 && ((o.kind === OpKind.Send && o.tag === RESULT) || (o.kind === OpKind.Recv && o.peer === 0))) ran++;
      mostHeld = Math.max(mostHeld, read - ran);
    },
  });
  assert.equal(result.complete, true, result.problems.join('; '));
  assert.equal(ran, 2 * costs.length + 3);
  // Each worker's 2,000 operations: read ahead, all 6,000 would be held at the start.
  assert.ok(mostHeld <= 12, `${mostHeld} operations held`);
});
