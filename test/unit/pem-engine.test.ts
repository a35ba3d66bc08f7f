// The PEM engine on hand-built operation streams: seed 000's Figure 1, the eager/rendezvous
// and CPU-sharing semantics, collectives, and properties on seeded random workloads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { COLL_ALLGATHER, COLL_ALLREDUCE, COLL_ALLTOALL, COLL_BARRIER, COLL_BCAST, COLL_GATHER, COLL_SCATTER, CollectiveCosts, ROUND_TAG, collectiveRounds } from '../../server/src/pem/collectives';
import { EngineInput, EngineNetwork, simulate } from '../../server/src/pem/engine';
import { arrayStream, op, OpKind, PemOp, RESUMED_WAIT_SECONDS } from '../../server/src/pem/ops';

const INSTANT: EngineNetwork = { eagerLimitBytes: 65536, oneWay: () => 0 };

/** Latency L and bandwidth B between nodes, free inside a node. */
function wire(latency: number, bandwidth: number, eagerLimitBytes = 65536): EngineNetwork {
  return { eagerLimitBytes, oneWay: (bytes, same) => (same ? 0 : latency + bytes / bandwidth) };
}

function run(ops: PemOp[][], nodeOf: number[], coresPerNode: number[], network: EngineNetwork, extra: Partial<EngineInput> = {}) {
  const reported: { rank: number; kind: OpKind; time: number }[] = [];
  const result = simulate({
    streams: ops.map(arrayStream),
    nodeOf,
    coresPerNode,
    network,
    communicators: new Map([[0, ops.map((_, i) => i)]]),
    onReport: (rank, o, time) => reported.push({ rank, kind: o.kind, time }),
    ...extra,
  });
  return { result, reported };
}

const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

test("seed 000 Figure 1: P1, P2 share group 1, P3 is alone in group 2; EPTs 2, 8, 1 and 1", () => {
  // P1 posts a receive after 1 unit of work and gets P2's message; P2 sends to P3 after 0.5
  // and to P1 after 7; P3 posts a receive after 1 and gets P2's first message.
  const p1 = [op(OpKind.Irecv, { compute: 1, peer: 1, request: 1 }), op(OpKind.Wait, { requests: [1] }), op(OpKind.End)];
  const p2 = [op(OpKind.Send, { compute: 0.5, peer: 2 }), op(OpKind.Send, { compute: 6.5, peer: 0 }), op(OpKind.End)];
  const p3 = [op(OpKind.Irecv, { compute: 1, peer: 1, request: 1 }), op(OpKind.Wait, { requests: [1] }), op(OpKind.End)];
  const { result, reported } = run([p1, p2, p3], [0, 0, 1], [1, 1], INSTANT);
  const at = (rank: number, kind: OpKind) => reported.find((r) => r.rank === rank && r.kind === kind)!.time;
  close(at(0, OpKind.Irecv), 2, 'G1 startRecv (P1 and P2 share the processor)');
  close(at(0, OpKind.Wait), 8, "G1 endRecv (= its send's EPT)");
  close(at(2, OpKind.Irecv), 1, 'G2 startRecv');
  close(at(2, OpKind.Wait), 1, 'G2 endRecv (= its startRecv: the message was there)');
  close(result.predictedSeconds, 8, 'run time');
  // P2 is on the critical path: 7 of its own CPU plus 1 given to P1 while they shared.
  close(result.criticalPath.computeSeconds, 7, 'critical path compute');
  close(result.criticalPath.waitSeconds, 1, 'critical path waiting for the CPU');
});

test('eager sends leave at once; above the eager limit the handshake adds two one-way delays', () => {
  const net = wire(1e-3, 1e6, 1000);
  const ping = (bytes: number) => [
    [op(OpKind.Send, { peer: 1, bytes }), op(OpKind.End)],
    [op(OpKind.Recv, { compute: 0, peer: 0, bytes }), op(OpKind.End)],
  ];
  const small = run(ping(1000), [0, 1], [1, 1], net);
  close(small.result.finishSeconds[0], 0, 'eager sender');
  close(small.result.finishSeconds[1], 1e-3 + 1000 / 1e6, 'eager receiver');
  const large = run(ping(1001), [0, 1], [1, 1], net);
  const t = 1e-3 + 1001 / 1e6 + 2 * 1e-3;
  close(large.result.finishSeconds[0], t, 'rendezvous sender');
  close(large.result.finishSeconds[1], t, 'rendezvous receiver');
  close(large.result.criticalPath.commSeconds, t, 'all communication');
  // A late receiver: the data leaves when the receive is posted (+ reply and data).
  const late = run(
    [
      [op(OpKind.Send, { peer: 1, bytes: 1001 }), op(OpKind.End)],
      [op(OpKind.Recv, { compute: 1, peer: 0, bytes: 1001 }), op(OpKind.End)],
    ],
    [0, 1],
    [1, 1],
    net,
  );
  // The receive is posted at 1: the go-ahead reaches the sender after L₀, then the data takes T.
  const lateEnd = 1 + 1e-3 + (1e-3 + 1001 / 1e6);
  close(late.result.finishSeconds[1], lateEnd, 'late rendezvous receiver');
  close(late.result.finishSeconds[0], lateEnd, 'rendezvous sender waits for it');
});

test('round-robin sharing: k running ranks on C cores progress at C/k each', () => {
  const work = () => [op(OpKind.End, { compute: 1 })];
  close(run([work(), work()], [0, 0], [1], INSTANT).result.predictedSeconds, 2, 'two on one core');
  close(run([work(), work()], [0, 0], [2], INSTANT).result.predictedSeconds, 1, 'two on two cores');
  close(run([work(), work(), work()], [0, 0, 0], [2], INSTANT).result.predictedSeconds, 1.5, 'three on two cores');
  // A blocked rank yields its share: rank 1 waits for rank 2 (another node), rank 0 runs alone.
  const r = run(
    [[op(OpKind.End, { compute: 2 })], [op(OpKind.Recv, { peer: 2 }), op(OpKind.End)], [op(OpKind.Send, { compute: 3, peer: 1 }), op(OpKind.End)]],
    [0, 0, 1],
    [1, 1],
    INSTANT,
  );
  close(r.result.finishSeconds[0], 2, 'rank 0 alone while rank 1 waits');
});

test('collectives: each member leaves when its own rounds are done; a bcast root does not wait', () => {
  const net = wire(1e-3, 1e9);
  const L = 1e-3 + 8e-9;
  const coll = (collective: number, computes: number[], root = -1) =>
    computes.map((compute) => [op(OpKind.Collective, { compute, collective, root, sizeSent: 8, sizeReceived: 8 }), op(OpKind.End)]);
  // Recursive doubling, arrivals 1 2 3 4: rank 3, the last, has rank 2's round-1 value and rank 1's
  // round-2 value (sent at 2 + L) waiting, so it leaves at once; rank 2 gets rank 3's at 4 + L and
  // rank 0's round-2 value is already there; ranks 0 and 1 wait for the round-2 messages of 2 and 3.
  const allreduce = run(coll(COLL_ALLREDUCE, [1, 2, 3, 4]), [0, 1, 2, 3], [1, 1, 1, 1], net);
  const finish = allreduce.result.finishSeconds;
  close(finish[3], 4, 'the last to arrive needs nothing more');
  close(finish[2], 4 + L, 'its round-1 partner gets its value');
  close(finish[0], 4 + 2 * L, 'two rounds after the last arrival');
  close(finish[1], 4 + L, "rank 3's round-2 message left at 4");
  const bcast = run(coll(COLL_BCAST, [1, 0, 0, 0], 0), [0, 1, 2, 3], [1, 1, 1, 1], net);
  close(bcast.result.finishSeconds[0], 1, 'root leaves');
  close(bcast.result.finishSeconds[3], 1 + 2 * L, 'leaves after the root plus the tree');
  close(bcast.result.finishSeconds[1], 1 + L, "the root's second child");
  // On one node the rounds are intra-node (free here).
  const local = run(coll(COLL_ALLREDUCE, [1, 2]), [0, 0], [2], net);
  close(local.result.predictedSeconds, 2, 'intra-node allreduce');
});

test("a collective's rounds take the link in time order with the members' other messages", () => {
  // Ranks 0, 1 on node 0 and 2, 3 on node 1; 1 ms per 1000 bytes on each node's outgoing link.
  // Rank 1 reaches the allreduce last (at 1) and leaves at once; its 1000-byte message to rank 2
  // leaves at 1 and holds node 0's link until 2, so rank 0's round-2 message (sent at 1, after
  // rank 1's round-1 value) reaches rank 2 at 2 + latency, not 1 + latency.
  const net: EngineNetwork = { ...wire(0.5, 1e12), linkSecondsPerByte: 1 / 1000 };
  const allreduce = () => op(OpKind.Collective, { collective: COLL_ALLREDUCE, sizeSent: 0, sizeReceived: 0 });
  const ops = [
    [allreduce(), op(OpKind.End)],
    [op(OpKind.KeepAlive, { compute: 1 }), allreduce(), op(OpKind.Isend, { peer: 2, bytes: 1000, request: 1 }), op(OpKind.Wait, { requests: [1] }), op(OpKind.End)],
    [allreduce(), op(OpKind.Recv, { peer: 1, bytes: 1000 }), op(OpKind.End)],
    [allreduce(), op(OpKind.End)],
  ];
  const { result } = run(ops, [0, 0, 1, 1], [2, 2], net);
  close(result.finishSeconds[1], 1, "rank 1 leaves the allreduce at once (its partners' values are there)");
  close(result.finishSeconds[2], 2.5, "rank 0's round-2 message queued behind rank 1's, then the latency");
});

test('collective rounds: the messages each member exchanges, by algorithm', () => {
  const members = [0, 1, 2, 3, 4];
  const rounds = (rank: number, fields: Partial<PemOp>) => {
    const stream = collectiveRounds(arrayStream([op(OpKind.Collective, { compute: 2, ...fields }), op(OpKind.End)]), rank, new Map([[0, members]]), members, 1000, assert.fail);
    const ops: string[] = [];
    for (let o = stream.next(); o && o.kind !== OpKind.End; o = stream.next()) {
      if (o.kind === OpKind.Wait) {
        assert.equal(o.requests.length, 2, 'a wait for the exchange\'s receive and send');
        ops.push('wait');
        continue;
      }
      if (o.kind === OpKind.Exchange) {
        ops.push(`with ${o.peer} ${o.bytes}`);
        continue;
      }
      ops.push(`${o.kind === OpKind.Send || o.kind === OpKind.Isend ? 'to' : 'from'} ${o.peer}${o.kind === OpKind.Send || o.kind === OpKind.Isend ? ` ${o.bytes}` : ''}`);
    }
    return ops.join(', ');
  };
  // Binomial tree from root 1 over 5 members: relative ranks 0..4 are world ranks 1, 2, 3, 4, 0.
  assert.equal(rounds(1, { collective: COLL_BCAST, root: 1, sizeSent: 8 }), 'to 0 8, to 3 8, to 2 8');
  assert.equal(rounds(3, { collective: COLL_BCAST, root: 1, sizeReceived: 8 }), 'from 1, to 4 8');
  // Scatter: the root's 5 blocks of 100; relative 4 gets 1 block, relative 2 its subtree of 2.
  assert.equal(rounds(1, { collective: COLL_SCATTER, root: 1, sizeSent: 500 }), 'to 0 100, to 3 200, to 2 100');
  // Gather to root 0: relative 2 (rank 2) gathers rank 3, then sends 2 blocks to the root.
  assert.equal(rounds(2, { collective: COLL_GATHER, root: 0, sizeSent: 100 }), 'from 3, to 0 200');
  assert.equal(rounds(0, { collective: COLL_GATHER, root: 0, sizeReceived: 500 }), 'from 1, from 2, from 4');
  // Recursive doubling: rank 4 of 5 has partners 5 and 6 missing, only 0 at distance 4.
  // An eager exchange with one partner is one operation (its send, then its receive).
  assert.equal(rounds(4, { collective: COLL_ALLREDUCE, sizeSent: 8 }), 'with 0 8');
  assert.equal(rounds(1, { collective: COLL_ALLGATHER, sizeSent: 10, sizeReceived: 50 }), 'with 0 10, with 3 20');
  assert.equal(rounds(1, { collective: COLL_ALLREDUCE, sizeSent: 5000 }), 'from 0, to 0 5000, wait, from 3, to 3 5000, wait');
  assert.equal(rounds(0, { collective: COLL_BARRIER }), 'to 1 0, from 4, to 2 0, from 3, to 4 0, from 1');
  assert.equal(rounds(0, { collective: COLL_ALLTOALL, sizeSent: 500 }), 'to 1 100, from 4, to 2 100, from 3, to 3 100, from 2, to 4 100, from 1');
  // Above the eager limit (1000 here) an exchange posts its receive first and waits for both.
  assert.equal(rounds(0, { collective: COLL_ALLTOALL, sizeSent: 50000 }), 'from 4, to 1 10000, wait, from 3, to 2 10000, wait, from 2, to 3 10000, wait, from 1, to 4 10000, wait');
  // The collective's computation comes first; a one-member communicator is computation only.
  const single = collectiveRounds(arrayStream([op(OpKind.Collective, { compute: 2, collective: COLL_ALLREDUCE })]), 0, new Map([[0, [0]]]), [0], 1000, assert.fail).next()!;
  assert.deepEqual([single.kind, single.compute], [OpKind.KeepAlive, 2]);
  const problems: string[] = [];
  collectiveRounds(arrayStream([op(OpKind.Collective, { comm: 9, collective: COLL_ALLREDUCE })]), 0, new Map(), [0, 1], 1000, (text) => problems.push(text)).next();
  assert.match(problems.join(), /communicator 9, which the trace does not define; taken as all ranks/);
});

test("property: a round's exchange is its eager send, then its receive: the same times as the two operations (sharing cores or taking turns)", () => {
  const random = mulberry32(0xe8c4);
  for (let trial = 0; trial < 20; trial++) {
    const ranks = 2 + Math.floor(random() * 7);
    const nodes = 1 + Math.floor(random() * ranks);
    const nodeOf = Array.from({ length: ranks }, (_, r) => r % nodes);
    const net: EngineNetwork = wire(random() * 1e-3, 1e7 + random() * 1e9);
    if (trial % 2 === 1) Object.assign(net, { schedulerTickSeconds: 1e-3 + random() * 3e-3, schedulerSliceSeconds: random() * 2e-3 });
    const computes = Array.from({ length: ranks }, () => Array.from({ length: 4 }, () => random() * 2e-3));
    const collectives = computes.map((c) => [...c.map((compute) => op(OpKind.Collective, { compute, collective: COLL_ALLREDUCE, sizeSent: 8 })), op(OpKind.End)]);
    // The same rounds written out as recursive doubling's sends and receives.
    const written = computes.map((c, i) => [
      ...c.flatMap((compute) => {
        const steps: PemOp[] = [];
        for (let d = 1; d < ranks; d *= 2) {
          if ((i ^ d) >= ranks) continue;
          steps.push(op(OpKind.Send, { peer: i ^ d, bytes: 8, tag: ROUND_TAG, collective: COLL_ALLREDUCE }), op(OpKind.Recv, { peer: i ^ d, tag: ROUND_TAG, collective: COLL_ALLREDUCE }));
        }
        steps[0].compute = compute;
        return steps;
      }),
      op(OpKind.End),
    ]);
    const cores = new Array(nodes).fill(1 + Math.floor(random() * 2));
    const fused = run(collectives, nodeOf, cores, net).result;
    const apart = run(written, nodeOf, cores, net).result;
    assert.equal(fused.complete, true, `trial ${trial}: ${fused.problems.join('; ')}`);
    assert.deepEqual(fused.finishSeconds, apart.finishSeconds, `trial ${trial}`);
    assert.deepEqual(fused.criticalPath, apart.criticalPath, `trial ${trial}`);
  }
});

test('the rounds a call cannot avoid, along one chain', () => {
  const costs = new CollectiveCosts([0, 0, 1, 1], (_bytes, same) => (same ? 0 : 1));
  // Allreduce, recursive doubling on 4 ranks in 2 nodes: the partner at distance 1 is on the same node, at 2 on the other.
  assert.equal(costs.cost(0, [0, 1, 2, 3], COLL_ALLREDUCE, 800), 1);
  // All-to-all, steps 1 to 3: in each step some rank's partner is on the other node.
  assert.equal(costs.cost(1, [0, 1, 2, 3], COLL_ALLTOALL, 800), 3);
  assert.equal(new CollectiveCosts([0, 0, 0, 0], () => 1).cost(0, [0, 1, 2, 3], COLL_ALLREDUCE, 800), 2);
});

test("the last member to arrive waits for none of the rounds' latencies: it only copies their data", () => {
  // 1 µs of latency per round between nodes, 0.1 µs inside one, 1 ns per byte copied.
  const costs = new CollectiveCosts([0, 0, 1, 1], (bytes, same) => (same ? 1e-7 : 1e-6) + bytes * 1e-9);
  assert.ok(Math.abs(costs.copies(0, [0, 1, 2, 3], COLL_ALLREDUCE, 800) - 2 * 800e-9) < 1e-15, 'two rounds of 800 bytes');
  assert.ok(Math.abs(costs.cost(0, [0, 1, 2, 3], COLL_ALLREDUCE, 800) - (1e-7 + 1e-6 + 2 * 800e-9)) < 1e-15);
  assert.equal(costs.copies(0, [0, 1, 2, 3], COLL_BARRIER, 0), 0);
});

test('a receive nobody sends is reported, not hung', () => {
  const { result } = run([[op(OpKind.Recv, { peer: 1 }), op(OpKind.End)], [op(OpKind.End, { compute: 1 })]], [0, 1], [1, 1], INSTANT);
  assert.equal(result.complete, false);
  assert.match(result.problems.join('\n'), /rank 0 blocked in a receive from rank 1/);
});

test('a collective a member never joins is reported by name, with the round it waits in', () => {
  const allreduce = op(OpKind.Collective, { collective: COLL_ALLREDUCE, sizeSent: 8, sizeReceived: 8 });
  const { result } = run([[allreduce, op(OpKind.End)], [op(OpKind.End, { compute: 1 })]], [0, 1], [1, 1], INSTANT);
  assert.equal(result.complete, false);
  assert.match(result.problems.join('\n'), /rank 0 blocked in allreduce on communicator 0, in a receive from rank 1/);
});

/** A seeded embarrassingly parallel workload: computation, one final gather to rank 0. */
function parallelWorkload(random: () => number, ranks: number): PemOp[][] {
  return Array.from({ length: ranks }, () => {
    const ops: PemOp[] = [];
    for (let i = 0; i < 5; i++) ops.push(op(OpKind.KeepAlive, { compute: random() }));
    ops.push(op(OpKind.Collective, { collective: 12, root: 0, sizeSent: 8 }), op(OpKind.End, { compute: random() * 0.1 }));
    return ops;
  });
}

/** A seeded ring exchange with blocking and non-blocking messages of random sizes. */
function ringWorkload(random: () => number, ranks: number): PemOp[][] {
  const sizes = Array.from({ length: 20 }, () => Math.floor(random() * 200_000));
  return Array.from({ length: ranks }, (_, r) => {
    const ops: PemOp[] = [];
    sizes.forEach((bytes, i) => {
      ops.push(op(OpKind.Irecv, { compute: random() * 0.01, peer: (r + ranks - 1) % ranks, bytes, tag: i, request: 1 }));
      ops.push(op(OpKind.Isend, { peer: (r + 1) % ranks, bytes, tag: i, request: 2 }));
      ops.push(op(OpKind.Wait, { compute: random() * 0.01, requests: [1, 2] }));
    });
    ops.push(op(OpKind.Collective, { collective: 11, sizeSent: 8, sizeReceived: 8 }), op(OpKind.End));
    return ops;
  });
}

test('property: on an embarrassingly parallel trace more nodes never predict slower', () => {
  // Nodes are added by splitting a node in two, so no rank ever gets a busier node.
  const random = mulberry32(0x9e3);
  for (let trial = 0; trial < 30; trial++) {
    const ranks = 2 + Math.floor(random() * 15);
    const workload = parallelWorkload(random, ranks);
    const clone = () => workload.map((ops) => ops.map((o) => Object.assign(op(o.kind), o)));
    const nodeOf = new Array(ranks).fill(0);
    let nodes = 1;
    let previous = run(clone(), nodeOf, [1], INSTANT).result.predictedSeconds;
    for (;;) {
      const crowded = [...new Set(nodeOf)].filter((n) => nodeOf.filter((m) => m === n).length > 1);
      if (crowded.length === 0) break;
      const split = crowded[Math.floor(random() * crowded.length)];
      const members = nodeOf.map((n, r) => (n === split ? r : -1)).filter((r) => r >= 0);
      const moving = members.slice(0, 1 + Math.floor(random() * (members.length - 1)));
      for (const r of moving) nodeOf[r] = nodes;
      nodes++;
      const t = run(clone(), nodeOf, new Array(nodes).fill(1), INSTANT).result.predictedSeconds;
      assert.ok(t <= previous + 1e-9, `trial ${trial}: ${ranks} ranks on ${nodes} nodes (${nodeOf}) predicts ${t}, slower than ${previous}`);
      previous = t;
    }
  }
});

test('property: every rank finishes, the critical path adds up to the prediction, keep-alives change nothing (sharing cores or taking turns)', () => {
  const random = mulberry32(0x51ed);
  for (let trial = 0; trial < 20; trial++) {
    const ranks = 2 + Math.floor(random() * 7);
    const workload = ringWorkload(random, ranks);
    const nodes = 1 + Math.floor(random() * ranks);
    const nodeOf = Array.from({ length: ranks }, (_, r) => r % nodes);
    const cores = new Array(nodes).fill(1 + Math.floor(random() * 2));
    const net: EngineNetwork = wire(random() * 1e-3, 1e7 + random() * 1e9);
    // Every other trial the ranks of a node take turns (a slice, ticks) instead of sharing.
    if (trial % 2 === 1) Object.assign(net, { schedulerTickSeconds: 1e-3 + random() * 3e-3, schedulerSliceSeconds: random() * 2e-3 });
    const clone = (keepAlive: boolean) =>
      workload.map((ops) =>
        ops.flatMap((o) => {
          const copy = Object.assign(op(o.kind), o);
          if (!keepAlive || copy.compute === 0) return [copy];
          // Split the computation in two with a keep-alive between, as a periodic alarm would.
          const half = copy.compute / 2;
          copy.compute = half;
          return [op(OpKind.KeepAlive, { compute: half }), copy];
        }),
      );
    const plain = run(clone(false), nodeOf, cores, net).result;
    assert.equal(plain.complete, true, `trial ${trial}: ${plain.problems.join('; ')}`);
    const path = plain.criticalPath;
    close(path.computeSeconds + path.commSeconds + path.waitSeconds, plain.predictedSeconds, `trial ${trial} critical path`);
    const withKeepAlive = run(clone(true), nodeOf, cores, net).result;
    close(withKeepAlive.predictedSeconds, plain.predictedSeconds, `trial ${trial} keep-alives`);
  }
});

test('inside a node the copy of a message is the receiver\'s CPU work, shared with the node\'s other ranks', () => {
  // One-way inside a node: 1 + bytes/1000; rank 2 computes 10 on the same single core.
  const shm: EngineNetwork = { eagerLimitBytes: 1 << 30, oneWay: (bytes, same) => (same ? 1 + bytes / 1000 : 5) };
  const sender = [op(OpKind.Send, { peer: 1, bytes: 4000 }), op(OpKind.End)];
  const receiver = [op(OpKind.Recv, { peer: 0, bytes: 4000 }), op(OpKind.End)];
  const alone = run([sender, receiver], [0, 0], [1], shm);
  close(alone.result.finishSeconds[1], 5, 'latency 1, then 4 of copying on a free core');
  close(alone.result.criticalPath.commSeconds, 5, 'the copy is communication on the critical path');
  const busy = run([sender, receiver, [op(OpKind.End, { compute: 10 })]], [0, 0, 0], [1], shm);
  // From 1 the copy (4) shares the core with rank 2: both progress at half speed until 9.
  close(busy.result.finishSeconds[1], 9, 'the copy shares the core');
  close(busy.result.finishSeconds[2], 14, 'the computation lost what the copy took (1 alone, 4 shared until 9, 5 alone)');
  const across = run([sender, receiver], [0, 1], [1, 1], shm);
  close(across.result.finishSeconds[1], 5, 'between nodes the network moves the data');
  // Nodes that share memory (emulated on one machine): between them too the receiver copies.
  const wire: EngineNetwork = { eagerLimitBytes: 1 << 30, oneWay: (bytes) => 1 + bytes / 1000 };
  const crossing = [sender, receiver, [op(OpKind.End, { compute: 10 })]];
  close(run(crossing, [0, 1, 1], [1, 1], wire).result.finishSeconds[2], 10, 'a network moves the data: the receiver\'s node computes undisturbed');
  const emulated = run(crossing, [0, 1, 1], [1, 1], { ...wire, interNodeSharedMemory: true });
  close(emulated.result.finishSeconds[1], 9, 'shared memory between nodes: the copy shares the receiver\'s core');
  close(emulated.result.finishSeconds[2], 14, 'and the computation there loses what the copy took');
});

test("a receive whose traced copy took longer than the table's copies for that long; never shorter", () => {
  // Inside a node: latency 1 and a copy of 4 for 4000 bytes; between nodes: latency 2 and 4 on the wire.
  const net: EngineNetwork = { eagerLimitBytes: 1 << 30, oneWay: (bytes, same) => (same ? 1 : 2) + bytes / 1000 };
  const sender = [op(OpKind.Send, { peer: 1, bytes: 4000 }), op(OpKind.End)];
  const finish = (copySeconds: number, kind: OpKind.Recv | OpKind.Irecv, nodeOf = [0, 0]) => {
    const receive = kind === OpKind.Recv ? [op(OpKind.Recv, { peer: 0, bytes: 4000, copySeconds })] : [op(OpKind.Irecv, { peer: 0, bytes: 4000, request: 1, copySeconds }), op(OpKind.Wait, { requests: [1] })];
    // Posted first (the receiver is there before the send) and posted last (the send waits in the channel).
    const early = run([sender, [...receive, op(OpKind.End)]], nodeOf, nodeOf.map(() => 1), net);
    const late = run([[op(OpKind.Send, { peer: 1, bytes: 4000 }), op(OpKind.End)], [op(OpKind.KeepAlive, { compute: 2 }), ...receive, op(OpKind.End)]], nodeOf, nodeOf.map(() => 1), net);
    return [early.result.finishSeconds[1], late.result.finishSeconds[1]];
  };
  for (const kind of [OpKind.Recv, OpKind.Irecv] as const) {
    assert.deepEqual(finish(-1, kind), [5, 6], 'not measured: the table (latency 1, copy 4)');
    assert.deepEqual(finish(9, kind), [10, 11], 'measured 9: the copy takes 9');
    assert.deepEqual(finish(2, kind), [5, 6], 'measured 2: still the table\'s 4');
    assert.deepEqual(finish(-1, kind, [0, 1]), [6, 6], 'between nodes, not measured: the network delivers at 6, the receiver does no work');
    assert.deepEqual(finish(2, kind, [0, 1]), [6, 6], 'between nodes, measured 2: within the wire\'s 4, no work');
    assert.deepEqual(finish(9, kind, [0, 1]), [11, 11], 'between nodes, measured 9: the 5 beyond the wire\'s 4 are the receiver\'s work');
  }
});

test('messages leaving a node take turns on its link', () => {
  const net: EngineNetwork = { ...wire(1, 1000), linkSecondsPerByte: 1 / 1000 };
  const send = (peer: number) => [op(OpKind.Send, { peer, bytes: 1000 }), op(OpKind.End)];
  const recv = (peer: number) => [op(OpKind.Recv, { peer, bytes: 1000 }), op(OpKind.End)];
  // Ranks 0 and 1 on node 0 send 1000 bytes each at time 0 to ranks 2 and 3 on node 1.
  const both = run([send(2), send(3), recv(0), recv(1)], [0, 0, 1, 1], [2, 2], net);
  const arrivals = [both.result.finishSeconds[2], both.result.finishSeconds[3]].sort((a, b) => a - b);
  close(arrivals[0], 2, 'first message: latency 1 + 1 on the wire');
  close(arrivals[1], 3, 'second message waits for the first to leave');
  const opposite = run([send(2), recv(3), recv(0), send(1)], [0, 0, 1, 1], [2, 2], net);
  close(opposite.result.finishSeconds[2], 2, 'the other direction has a link of its own');
  close(opposite.result.finishSeconds[1], 2, 'the other direction has a link of its own');
  const shm = run([send(1), recv(0), send(3), recv(2)], [0, 0, 0, 0], [4], net);
  close(shm.result.finishSeconds[1], 0, 'inside a node nothing queues (free in this network)');
  close(shm.result.finishSeconds[3], 0, 'inside a node nothing queues (free in this network)');
});

test("eager messages reaching a link within one round of a shared core's turns race: random order, as expectations", () => {
  // Ranks 0, 1 share node 0's core, 2, 3 node 1's; a switch back costs 0.01, so the race window is
  // 2 ranks × 0.01. Rank 0 sends 1000 bytes (1 on the link) to rank 2, rank 1 sends 10 (0.01) to 3.
  const shared = { ...wire(1, Infinity), linkSecondsPerByte: 1 / 1000, switchIn: (ranksPerCore: number) => (ranksPerCore >= 2 ? 0.01 : 0) };
  const pair = (computeFirst: number, second: number) => [
    [op(OpKind.Send, { compute: computeFirst, peer: 2, bytes: 1000 }), op(OpKind.End)],
    [op(OpKind.Send, { compute: second, peer: 3, bytes: 10 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, bytes: 1000 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 1, bytes: 10 }), op(OpKind.End)],
  ];
  // Both leave at 0, before their receives are posted: each waits half of the other's time on
  // the link (a FIFO would make the second wait all of it); then the receiver takes its core back.
  const together = run(pair(0, 0), [0, 0, 1, 1], [1, 1], shared);
  close(together.result.finishSeconds[2], 1 + 0.005 + 0.01, 'the long message waits half the short one');
  close(together.result.finishSeconds[3], 1 + 0.5 + 0.01, 'the short message waits half the long one');
  // The same with the receives posted first (each sender computes 0.001 on the shared core: both leave at 0.002).
  const posted = run(pair(0.001, 0.001), [0, 0, 1, 1], [1, 1], shared);
  close(posted.result.finishSeconds[2], 0.002 + 1 + 0.005 + 0.01, 'matched before the race is decided, the same waits');
  close(posted.result.finishSeconds[3], 0.002 + 1 + 0.5 + 0.01, 'matched before the race is decided, the same waits');
  // Half a unit apart is no race: the second waits for the first to leave.
  const apart = run(pair(0, 0.5), [0, 0, 1, 1], [1, 1], shared);
  close(apart.result.finishSeconds[2], 1 + 0.01, 'the first message leaves at once');
  close(apart.result.finishSeconds[3], 0.5 + 0.5 + 1 + 0.01, 'the second waits until the link is free at 1');
  // Without a shared core (one rank per core) the link is a FIFO in the replay's order.
  const fifo = run(pair(0, 0), [0, 0, 1, 1], [2, 2], shared);
  close(fifo.result.finishSeconds[2], 1, 'first in the replay: no wait');
  close(fifo.result.finishSeconds[3], 2, 'second: all of the first');
});

test('a race follows the gap between its messages: half each at none, the queue at a window, continuously between', () => {
  // As in the test above: a window of 0.02, the long message (1 on the link) at 0, the short one
  // (0.01) `gap` later; the short one arrives after the long one's rest as often as it goes first.
  const shared = { ...wire(1, Infinity), linkSecondsPerByte: 1 / 1000, switchIn: (ranksPerCore: number) => (ranksPerCore >= 2 ? 0.01 : 0) };
  const shortArrives = (gap: number) => {
    const ops = [
      [op(OpKind.Send, { peer: 2, bytes: 1000 }), op(OpKind.End)],
      [op(OpKind.Send, { compute: gap, peer: 3, bytes: 10 }), op(OpKind.End)],
      [op(OpKind.Recv, { peer: 0, bytes: 1000 }), op(OpKind.End)],
      [op(OpKind.Recv, { peer: 1, bytes: 10 }), op(OpKind.End)],
    ];
    return run(ops, [0, 0, 1, 1], [1, 1], shared).result.finishSeconds[3] - 1 - 0.01;
  };
  close(shortArrives(0), 0.5, 'together: behind the long one in half the orders');
  close(shortArrives(0.01), 0.01 + (1 - 0.5 ** 2 / 2) * (1 - 0.01), "half a window behind: 7/8 of the orders, each after the long one's rest");
  close(shortArrives(0.03), 1, 'a window and more behind: queued, the link is free at 1');
  // No step as the gap crosses the window (with half for every member, 0.5 against 1 here).
  assert.ok(Math.abs(shortArrives(0.0199) - shortArrives(0.0201)) < 1e-3, `${shortArrives(0.0199)} and ${shortArrives(0.0201)}`);
  for (let gap = 0; gap < 0.03; gap += 0.001) assert.ok(shortArrives(gap + 0.001) >= shortArrives(gap) - 1e-12, `later never arrives sooner (${gap})`);
});

test('a race decided early, when a rendezvous message takes the link, does not cut the next race short', () => {
  // Node 0's core is shared (race window 2 × 0.1); eager up to 10 bytes, 1 per 1000 bytes on the link.
  // Rank 0 sends A (5 bytes) at 0; rank 3's receive of R (20 bytes, rendezvous) makes R take the
  // link at 2 (its handshake), which decides A's race at once. B (10 bytes, at 0.1) and C (8 bytes,
  // at 0.24) then race each other until 0.3: A's race's entry at 0.2 must not decide theirs.
  const net = { ...wire(1, Infinity, 10), linkSecondsPerByte: 1 / 1000, switchIn: (ranksPerCore: number) => (ranksPerCore >= 2 ? 0.1 : 0) };
  const ops = [
    [
      op(OpKind.Send, { peer: 2, bytes: 5 }),
      op(OpKind.Isend, { peer: 3, bytes: 20, request: 1 }),
      op(OpKind.Send, { compute: 0.1, peer: 2, bytes: 10 }),
      op(OpKind.Send, { compute: 0.14, peer: 2, bytes: 8 }),
      op(OpKind.Wait, { requests: [1] }),
      op(OpKind.End),
    ],
    [op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, bytes: 5 }), op(OpKind.Recv, { peer: 0, bytes: 10 }), op(OpKind.Recv, { peer: 0, bytes: 8 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, bytes: 20 }), op(OpKind.End)],
  ];
  const { result } = run(ops, [0, 0, 1, 1], [1, 2], net);
  // The link is R's from 2 to 2.02; B and C wait for it, and C for B as often as B goes first:
  // 0.14 ahead in a window of 0.2, B leaves first in 1 − 0.3²/2 of the orders (aheadInRace).
  close(result.finishSeconds[2], 0.24 + 1 + (2.02 - 0.24) + 0.01 * (1 - 0.3 ** 2 / 2), 'C raced B, most often behind it (alone after B it would arrive at 3.03)');
});

test("a message waits for its receiver's turn when ranks share the receiver's core", () => {
  const net: EngineNetwork = { ...wire(1, 1000), receiverTurn: (ranksPerCore) => (ranksPerCore > 2 ? ranksPerCore - 2 : 0) };
  const pair = [[op(OpKind.Send, { peer: 1 }), op(OpKind.End)], [op(OpKind.Recv, { peer: 0 }), op(OpKind.End)]];
  const idle = [op(OpKind.End)];
  const alone = run([...pair, idle, idle], [0, 1, 2, 3], [1, 1, 1, 1], net);
  close(alone.result.finishSeconds[1], 1, 'a rank alone on its core: the latency only');
  const crowded = run([...pair, idle, idle], [0, 1, 1, 1], [1, 2], net);
  close(crowded.result.finishSeconds[1], 1.5, '3 ranks on 2 cores: the receiver and 2 polling ranks, 1.5 per core: half a turn');
  const packed = run([...pair, idle, idle], [0, 1, 1, 1], [1, 1], net);
  close(packed.result.finishSeconds[1], 3, "3 ranks on the receiver's core, the sender elsewhere: two polling ranks, two turns (calibrated k = 4: the pair and two)");
  // Only waiting ranks take a turn (poll and yield); one that computes shares the core instead.
  const busy = [op(OpKind.End, { compute: 10 })];
  const later = [[op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.End)], pair[1]];
  const working = run([...later, busy, idle], [0, 1, 1, 1], [1, 1], net);
  close(working.result.finishSeconds[1], 3, 'of the other two, one computes and one waits (in MPI_Finalize): its turn only');
  const allWorking = run([...later, busy, busy], [0, 1, 1, 1], [1, 1], net);
  close(allWorking.result.finishSeconds[1], 2, 'both others compute: no turn');
});

test('on a shared core a rank takes the core back after each wait, and messages between its ranks have no delay', () => {
  // 0.5 s one way inside a node, 2 s between nodes; 1 s of CPU to take back a core 2 or more ranks share.
  const net: EngineNetwork = { eagerLimitBytes: 65536, oneWay: (_bytes, same) => (same ? 0.5 : 2), switchIn: (ranksPerCore) => (ranksPerCore >= 2 ? 1 : 0) };
  // Two round trips; the first sender computes 1 s first, so its partner is waiting when the ball comes.
  const pair = (a: number, b: number) => [
    [op(OpKind.Send, { compute: 1, peer: b }), op(OpKind.Recv, { peer: b }), op(OpKind.Send, { peer: b }), op(OpKind.Recv, { peer: b }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: a }), op(OpKind.Send, { peer: a }), op(OpKind.Recv, { peer: a }), op(OpKind.Send, { peer: a }), op(OpKind.End)],
  ];
  const oneCore = run(pair(0, 1), [0, 0], [1], net);
  close(oneCore.result.finishSeconds[0], 1 + 4, 'two ranks on a core: four hops of one turn each, no delay');
  close(oneCore.result.criticalPath.computeSeconds, 1, 'the program computes 1 s');
  close(oneCore.result.criticalPath.commSeconds, 4, 'the turns are communication');
  const twoPairs = run([...pair(0, 1), ...pair(2, 3)], [0, 0, 0, 0], [1], net);
  close(twoPairs.result.finishSeconds[0], 2 + 8, "two pairs on one core: every hop waits for the other pair's turn");
  const ownCores = run([...pair(0, 1), ...pair(2, 3)], [0, 0, 1, 1], [1, 1], net);
  close(ownCores.result.finishSeconds[2], 1 + 4, 'each pair on a core of its own');
  const half = run([...pair(0, 1), ...pair(2, 3)], [0, 0, 0, 0], [2], net);
  close(half.result.finishSeconds[0], 1 + 4, 'four ranks on two cores: two per core, as with a core per pair');
  const wide = run([...pair(0, 1), ...pair(2, 3)], [0, 0, 0, 0], [4], net);
  close(wide.result.finishSeconds[0], 1 + 4 * 0.5, 'a core per rank: no switches, the intra-node delay');
  const apart = run(pair(0, 1), [0, 1], [1, 1], net);
  close(apart.result.finishSeconds[0], 1 + 4 * 2, 'alone on their cores: the latency only');
});

test("a node's kernel slowness stretches its switches and its receivers' turns, not its computations nor the latency", () => {
  const net: EngineNetwork = { eagerLimitBytes: 65536, oneWay: (_bytes, same) => (same ? 0.5 : 2), switchIn: (ranksPerCore) => (ranksPerCore >= 2 ? 1 : 0) };
  const pair = [
    [op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.Recv, { peer: 1 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0 }), op(OpKind.Send, { peer: 0 }), op(OpKind.End)],
  ];
  const slow = run(pair, [0, 0], [1], net, { kernelSlowness: [1.5, 1.5] });
  close(slow.result.finishSeconds[0], 1 + 2 * 1.5, 'two hops of one switch each, 1.5 times the table\'s; the computation as traced');
  const mixed = run(pair, [0, 0], [1], net, { kernelSlowness: [1, 2] });
  close(mixed.result.finishSeconds[0], 1 + 2 * 1.5, "a node's switch takes its ranks' mean slowness");
  const apart = run(pair, [0, 1], [1, 1], net, { kernelSlowness: [3, 3] });
  close(apart.result.finishSeconds[0], 1 + 2 * 2, 'alone on their cores no switch: the latency does not stretch');
  // The receiver's turn behind ranks polling on its core (calibrated sharedCore) stretches too.
  const turns: EngineNetwork = { ...wire(1, 1000), receiverTurn: (ranksPerCore) => (ranksPerCore > 2 ? ranksPerCore - 2 : 0) };
  const idle = [op(OpKind.End)];
  const message = [[op(OpKind.Send, { peer: 1 }), op(OpKind.End)], [op(OpKind.Recv, { peer: 0 }), op(OpKind.End)]];
  const packed = run([...message, idle, idle], [0, 1, 1, 1], [1, 1], turns, { kernelSlowness: [5, 2, 2, 2] });
  close(packed.result.finishSeconds[1], 1 + 2 * 2, "two polling ranks' turns at the receiving node's slowness, the sender's does not count");
});

test("a resumption on a shared core after a real wait costs the trace's resumed calls of its kind where that is more than the switch, and nothing on a core of its own", () => {
  const net: EngineNetwork = { eagerLimitBytes: 65536, oneWay: (_bytes, same) => (same ? 0.5 : 2), switchIn: (ranksPerCore) => (ranksPerCore >= 2 ? 1 : 0) };
  // Rank 1 waits for rank 0, which computes 1 s first; the trace says its receive's resumption costs `resume`.
  const pair = (resume?: number) => [
    [op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, ...(resume === undefined ? {} : { resumeSeconds: resume }) }), op(OpKind.End, { compute: 1 })],
  ];
  close(run(pair(), [0, 0], [1], net).result.finishSeconds[1], 1 + 1 + 1, "the table's switch");
  close(run(pair(3), [0, 0], [1], net).result.finishSeconds[1], 1 + 3 + 1, "the trace's resumption, 3 s, more than the switch");
  close(run(pair(0.5), [0, 0], [1], net).result.finishSeconds[1], 1 + 1 + 1, 'never less than the switch');
  close(run(pair(3), [0, 0], [2], net).result.finishSeconds[1], 1 + 0.5 + 1, 'a core each: no switch, only the delay');
  // The trace's resumed calls waited RESUMED_WAIT_SECONDS or more; a relay's short waits take the switch back.
  const fast: EngineNetwork = { eagerLimitBytes: 65536, oneWay: (_bytes, same) => (same ? 5e-7 : 2e-6), switchIn: (ranksPerCore) => (ranksPerCore >= 2 ? 1e-5 : 0) };
  const after = (compute: number, resumeSeconds?: number) => [
    [op(OpKind.Send, { compute, peer: 1 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, ...(resumeSeconds === undefined ? {} : { resumeSeconds }) }), op(OpKind.End, { compute: 1e-4 })],
  ];
  const finish = (compute: number, resume?: number) => run(after(compute, resume), [0, 0], [1], fast).result.finishSeconds[1];
  assert.ok(1e-4 < RESUMED_WAIT_SECONDS && 1e-3 > RESUMED_WAIT_SECONDS, 'the two waits fall on either side of the bound');
  close(finish(1e-4, 5e-5), finish(1e-4), 'a wait shorter than RESUMED_WAIT_SECONDS: the switch, as without the trace\'s cost');
  close(finish(1e-3, 5e-5), finish(1e-3) + 5e-5 - 1e-5, 'a wait as long: the resumption instead of the switch');
});

test('time off the core (I/O, sleep) takes as long in every placement, uses no CPU and takes no turn', () => {
  // Rank 0 computes 1 s, then writes for 2 s off its core; rank 1 computes 2 s.
  const ops = [[op(OpKind.End, { compute: 1, offCpuSeconds: 2 })], [op(OpKind.End, { compute: 2 })]];
  const shared = run(ops, [0, 0], [1], INSTANT);
  close(shared.result.finishSeconds[0], 2 + 2, 'its CPU second at half a core, then 2 s off it');
  close(shared.result.finishSeconds[1], 3, 'the other rank has the core to itself while rank 0 is off it');
  close(shared.result.criticalPath.computeSeconds, 3, "the program's own time: 1 s of CPU and 2 s off the core");
  close(shared.result.criticalPath.waitSeconds, 1, 'waiting for the core while both computed');
  const apart = run(ops, [0, 1], [1, 1], INSTANT);
  close(apart.result.finishSeconds[0], 3, 'alone on its core: 1 + 2');
  const offFirst = run([[op(OpKind.End, { offCpuSeconds: 2 })]], [0], [1], INSTANT);
  close(offFirst.result.finishSeconds[0], 2, 'without computation before it');

  const net: EngineNetwork = { ...wire(1, 1000), receiverTurn: (ranksPerCore) => (ranksPerCore > 2 ? ranksPerCore - 2 : 0) };
  const later = [[op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.End)], [op(OpKind.Recv, { peer: 0 }), op(OpKind.End)]];
  const away = [op(OpKind.End, { offCpuSeconds: 10 })];
  close(run([...later, away, away], [0, 1, 1, 1], [1, 1], net).result.finishSeconds[1], 2, "ranks off the receiver's core take no turn: the latency only");
  // A rendezvous (2000 bytes, eager limit 1000) to a receiver that is off its core when it is
  // sent: the one rank in MPI_Finalize beside it still polls, k = 3, one turn.
  const rendezvous: EngineNetwork = { ...wire(1, 1000, 1000), receiverTurn: net.receiverTurn };
  const awayReceiver = [
    [op(OpKind.Send, { compute: 1, peer: 1, bytes: 2000 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0, bytes: 2000, offCpuSeconds: 5 }), op(OpKind.End)],
    [op(OpKind.End)],
  ];
  // Posted at 5; the reply leg waits half the turn (1.5), the data 1 + 2 s and the turn.
  close(run(awayReceiver, [0, 1, 1], [1, 1], rendezvous).result.finishSeconds[1], 5 + 1.5 + 3 + 1, 'a rank off its core is not counted out of the polling ranks twice');
});

test("the network stack's CPU per message between nodes takes a core from the ranks computing there", () => {
  const net: EngineNetwork = { ...wire(1, 1000), stackCpu: { perMessageSeconds: 2, perByteSeconds: 0 } };
  // Rank 0 sends at 0 (arrives at 1) and computes 5 s; rank 1 computes 10 s, then receives.
  const ops = [
    [op(OpKind.Send, { peer: 1 }), op(OpKind.End, { compute: 5 })],
    [op(OpKind.Recv, { peer: 0, compute: 10 }), op(OpKind.End)],
  ];
  const apart = run(ops, [0, 1], [1, 1], net);
  close(apart.result.finishSeconds[1], 11, "the receiver's node loses 1 s when the data arrives");
  close(apart.result.finishSeconds[0], 6, "the sender's node loses 1 s a latency later (the acknowledgement)");
  const two = run(ops, [0, 1], [1, 2], net);
  close(two.result.finishSeconds[1], 10, 'with a second core the stack takes that one');
  const together = run(ops, [0, 0], [2], net);
  close(together.result.finishSeconds[1], 10, 'inside a node there is no network stack');
});

test("a message reaching a rank that waits while the network stack holds its node's only core waits for the stack and the computing rank's turn, not for the next tick", () => {
  const net: EngineNetwork = { ...INSTANT, schedulerTickSeconds: 100, stackCpu: { perMessageSeconds: 0, perByteSeconds: 1e-3 } };
  // Rank 2's first message (2,000 B) takes node 0's core for the stack from 1 to 2; its second (0 B)
  // reaches rank 1 at 1.5 (node 1's second core does its end of the stack's work).
  const result = run(
    [
      [op(OpKind.Recv, { compute: 3, peer: 2, tag: 7, bytes: 2000 }), op(OpKind.End)],
      [op(OpKind.Recv, { peer: 2 }), op(OpKind.End)],
      [op(OpKind.Send, { compute: 1, peer: 0, tag: 7, bytes: 2000 }), op(OpKind.Send, { compute: 0.5, peer: 1 }), op(OpKind.End)],
    ],
    [0, 0, 1],
    [1, 2],
    net,
  ).result;
  close(result.finishSeconds[0], 4, 'rank 0 computes 0-1 and 2-4: the stack took 1 s');
  close(result.finishSeconds[1], 4, 'rank 1 gets the core when rank 0 reaches its call');
});

test('the first message between two ranks on different nodes opens the connection', () => {
  const net: EngineNetwork = { ...wire(1, 1000), connectSeconds: 5 };
  const pingPong = [
    [op(OpKind.Send, { peer: 1 }), op(OpKind.Recv, { peer: 1 }), op(OpKind.Send, { peer: 1 }), op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0 }), op(OpKind.Send, { peer: 0 }), op(OpKind.Recv, { peer: 0 }), op(OpKind.End)],
  ];
  const apart = run(pingPong, [0, 1], [1, 1], net);
  close(apart.result.finishSeconds[1], 5 + 3, 'one connection for the pair, whichever way: 3 latencies and one opening');
  const together = run(pingPong, [0, 0], [1], net);
  close(together.result.finishSeconds[1], 0, 'inside a node nothing is opened');
  const barrier = (n: number) => Array.from({ length: n }, () => op(OpKind.Collective, { collective: 0 }));
  const collectives = run([[...barrier(2), op(OpKind.End)], [...barrier(2), op(OpKind.End)]], [0, 1], [1, 1], net);
  close(collectives.result.finishSeconds[0], 5 + 2, 'the first collective across nodes opens its connections, the second does not');
  close(collectives.result.finishSeconds[1], 5 + 2, 'a message the other way while the connection opens waits for it too');
  const afterMessage = run(
    [[op(OpKind.Send, { peer: 1 }), ...barrier(1), op(OpKind.End)], [op(OpKind.Recv, { peer: 0 }), ...barrier(1), op(OpKind.End)]],
    [0, 1],
    [1, 1],
    net,
  );
  // Rank 0's barrier message, sent at 0, waits for the connection its first message opens (until 5).
  close(afterMessage.result.finishSeconds[1], 5 + 1, 'the barrier message waits for the open connection, then one latency');
  close(afterMessage.result.finishSeconds[0], 5 + 1 + 1, "rank 1's barrier message, sent at 6, opens nothing");
});

test('messages on more tags than the engine keeps idle channels for still match: in flight across a sweep, and again after it', () => {
  // 10,000 tags, all in flight at once (the receives are posted in the opposite order, after
  // every send), then the same tags again one at a time: both phases pass the channel sweep.
  const tags = 10_000;
  const sender: PemOp[] = [];
  const receiver: PemOp[] = [];
  for (let tag = 0; tag < tags; tag++) sender.push(op(OpKind.Send, { peer: 1, tag, bytes: 8 }));
  for (let tag = tags - 1; tag >= 0; tag--) receiver.push(op(OpKind.Recv, { compute: tag === tags - 1 ? 1 : 0, peer: 0, tag, bytes: 8 }));
  for (let tag = 0; tag < tags; tag++) {
    sender.push(op(OpKind.Recv, { peer: 1, tag, bytes: 8 }));
    receiver.push(op(OpKind.Send, { compute: 1e-6, peer: 0, tag, bytes: 8 }));
  }
  sender.push(op(OpKind.End));
  receiver.push(op(OpKind.End));
  const { result } = run([sender, receiver], [0, 1], [1, 1], wire(1e-6, 1e9));
  assert.deepEqual(result.problems, []);
  assert.ok(result.complete);
  // The receiver computes 1 s before its first receive, then 10,000 × 1 µs before its sends; the
  // last reply reaches the sender one latency (+ 8 B) after it leaves.
  close(result.finishSeconds[1], 1 + tags * 1e-6, 'receiver');
  close(result.finishSeconds[0], 1 + tags * 1e-6 + 1e-6 + 8 / 1e9, 'sender');
});

test('a wildcard receive takes the message that reaches it first, and a reply goes to its source', () => {
  // The trace matched rank 2 first; in the replay rank 1 reports at 1, rank 2 at 3.
  const master = [
    op(OpKind.Recv, { peer: 2, anySource: true }),
    op(OpKind.Send, { peer: 2, toWildcardSource: true }),
    op(OpKind.Recv, { peer: 1, anySource: true }),
    op(OpKind.End),
  ];
  const first = [op(OpKind.Send, { compute: 1, peer: 0 }), op(OpKind.Recv, { peer: 0 }), op(OpKind.End)];
  const second = [op(OpKind.Send, { compute: 3, peer: 0 }), op(OpKind.End)];
  const { result } = run([master, first, second], [0, 1, 2], [1, 1, 1], INSTANT);
  assert.equal(result.complete, true, result.problems.join('; '));
  close(result.finishSeconds[1], 1, 'the first to report gets the reply at once');
  close(result.finishSeconds[0], 3, 'the master then waits for the other');
  // Without the wildcard the trace's order holds: the reply goes to rank 2, and rank 1 never gets one.
  const traced = run([master.map((o) => op(o.kind, { peer: o.peer })), first.map((o) => op(o.kind, { compute: o.compute, peer: o.peer })), second.map((o) => op(o.kind, { compute: o.compute, peer: o.peer }))], [0, 1, 2], [1, 1, 1], INSTANT);
  assert.equal(traced.result.complete, false);
});

test('a wildcard receive takes, among messages already sent, the one that arrives first', () => {
  // Rank 1 is across the network (5 units), rank 2 on the receiver's node; rank 2 sends later but arrives first.
  const net = wire(5, Infinity);
  const recv = op(OpKind.Recv, { compute: 6, peer: 1, anySource: true });
  const { result } = run(
    [[recv, op(OpKind.Recv, { peer: 1, anySource: true }), op(OpKind.End)], [op(OpKind.Send, { peer: 0, payload: 'far' }), op(OpKind.End)], [op(OpKind.Send, { compute: 1, peer: 0, payload: 'near' }), op(OpKind.End)]],
    [0, 1, 0],
    [2, 1],
    net,
  );
  assert.equal(result.complete, true, result.problems.join('; '));
  assert.equal(recv.payload, 'near');
});

test('MPI_ANY_TAG takes the first message on the communicator; the earliest-posted receive a message fits takes it', () => {
  const anyTag = op(OpKind.Recv, { peer: 0, tag: 7, anyTag: true });
  const sender = [op(OpKind.Send, { peer: 1, tag: 5, payload: 'five' }), op(OpKind.Send, { peer: 1, tag: 7, payload: 'seven' }), op(OpKind.End)];
  const tags = run([sender, [op(OpKind.Recv, { compute: 1, peer: 0, tag: 5, anyTag: true }), anyTag, op(OpKind.End)]], [0, 0], [2], INSTANT);
  assert.equal(tags.result.complete, true, tags.result.problems.join('; '));
  assert.equal(anyTag.payload, 'seven');
  // Posted before the specific receive, the wildcard one gets the first message, though the trace matched it to the other.
  const wildcard = op(OpKind.Irecv, { peer: 0, tag: 7, anySource: true, request: 1 });
  const posted = run(
    [
      [op(OpKind.Send, { compute: 1, peer: 1, tag: 7, payload: 'first' }), op(OpKind.Send, { compute: 1, peer: 1, tag: 7, payload: 'second' }), op(OpKind.End)],
      [wildcard, op(OpKind.Irecv, { peer: 0, tag: 7, request: 2 }), op(OpKind.Wait, { requests: [1, 2] }), op(OpKind.End)],
    ],
    [0, 1],
    [1, 1],
    INSTANT,
  );
  assert.equal(posted.result.complete, true);
  assert.equal(wildcard.payload, 'first');
});

test("a wildcard receive never takes a collective's round message: collectives have a context of their own in MPI", () => {
  // Rank 0 posts an MPI_ANY_TAG (then an MPI_ANY_SOURCE) receive from rank 1, joins an allreduce and
  // waits; rank 1 joins the allreduce, then sends. The round message from rank 1 reaches rank 0 first.
  for (const wildcard of [{ anyTag: true }, { anySource: true }]) {
    const irecv = op(OpKind.Irecv, { peer: 1, tag: 5, request: 1, ...wildcard });
    const allreduce = () => op(OpKind.Collective, { collective: COLL_ALLREDUCE, sizeSent: 8, sizeReceived: 8 });
    const { result } = run(
      [
        [irecv, allreduce(), op(OpKind.Wait, { requests: [1] }), op(OpKind.End)],
        [allreduce(), op(OpKind.Send, { compute: 1, peer: 0, tag: 5, payload: 'program' }), op(OpKind.End)],
      ],
      [0, 1],
      [1, 1],
      wire(1e-3, Infinity),
    );
    assert.equal(result.complete, true, result.problems.join('; '));
    assert.equal(irecv.payload, 'program');
    close(result.finishSeconds[0], 1 + 2e-3, "the program's message, sent at 1 + L, arrives a latency later");
  }
});

/** Rank 1 waits on rank 0's core, where rank 0 computes `computeOfRank0` before its call; rank 2, alone on node 1, sends to rank 1 at 1, then to rank 0. */
const waitBesideComputing = (computeOfRank0: number, network: EngineNetwork) =>
  run(
    [
      [op(OpKind.Recv, { compute: computeOfRank0, peer: 2, tag: 1 }), op(OpKind.End)],
      [op(OpKind.Recv, { peer: 2 }), op(OpKind.End)],
      [op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.Send, { peer: 0, tag: 1 }), op(OpKind.End)],
    ],
    [0, 0, 1],
    [1, 1],
    network,
  ).result;

test("a rank waiting on a core that a computing rank holds gets it back at the scheduler's next tick, or when that rank calls first", () => {
  // Ticks every 4.
  const ticking = (computeOfRank0: number, schedulerTickSeconds?: number) => waitBesideComputing(computeOfRank0, { ...INSTANT, schedulerTickSeconds });
  close(ticking(10).finishSeconds[1], 1, 'without a tick: at once (infinitely small quanta)');
  close(ticking(10, 4).finishSeconds[1], 4, 'the next tick');
  close(ticking(2, 4).finishSeconds[1], 2, 'rank 0 reaches its call before the tick');
  // A reply sent right after a tick reaches a busy core just after it, and waits a whole tick.
  const echo = run(
    [
      [op(OpKind.Recv, { peer: 2 }), op(OpKind.Send, { peer: 2 }), op(OpKind.End)],
      [op(OpKind.Send, { compute: 20, peer: 1, tag: 9 }), op(OpKind.End)],
      [op(OpKind.Send, { compute: 1, peer: 0 }), op(OpKind.Recv, { peer: 0 }), op(OpKind.End)],
      [op(OpKind.Recv, { peer: 1, tag: 9 }), op(OpKind.End)],
    ],
    [0, 0, 1, 1],
    [1, 1],
    { ...INSTANT, schedulerTickSeconds: 4 },
  ).result;
  close(echo.finishSeconds[0], 4, 'rank 0 gets the request at the tick and replies');
  // Rank 2's node has rank 3 waiting and nobody computing: the reply is there at once.
  close(echo.finishSeconds[2], 4, 'its node is not busy');
});

test('a rank waiting on a core that several computing ranks hold gets it back after each of them has had a turn, ended by its call or the tick', () => {
  // Rank 1 waits on node 0's one core, where ranks 0 and 3 compute; rank 2, alone on node 1, sends to it at 1.
  const queued = (computeOfRank0: number, schedulerTickSeconds: number) =>
    run(
      [
        [op(OpKind.Recv, { compute: computeOfRank0, peer: 2, tag: 1 }), op(OpKind.End)],
        [op(OpKind.Recv, { peer: 2 }), op(OpKind.End)],
        [op(OpKind.Send, { compute: 1, peer: 1 }), op(OpKind.Send, { peer: 0, tag: 1 }), op(OpKind.End)],
        [op(OpKind.End, { compute: 30 })],
      ],
      [0, 0, 1, 0],
      [1, 1],
      { ...INSTANT, schedulerTickSeconds },
    ).result;
  close(queued(30, 4).finishSeconds[1], 8, 'two turns: the ticks at 4 and 8');
  // Sharing the core with rank 3, rank 0 reaches its call at 3 (1.5 of CPU); rank 3's turn ends at the tick.
  close(queued(1.5, 10).finishSeconds[1], 10, "rank 0's call, then the tick at 10");
});

test('taking turns (a scheduler slice): ranks on one core compute one after the other, not side by side', () => {
  // Ranks 0 and 1 share one core from 0 and compute 2 and 3; rank 0 was there first.
  const pair = (network: EngineNetwork) => run([[op(OpKind.End, { compute: 2 })], [op(OpKind.End, { compute: 3 })]], [0, 0], [1], network).result;
  const shared = pair({ ...INSTANT, schedulerTickSeconds: 4 });
  close(shared.finishSeconds[0], 4, 'processor sharing: at half speed until 4');
  close(shared.finishSeconds[1], 5, 'processor sharing: then alone');
  const turns = pair({ ...INSTANT, schedulerTickSeconds: 4, schedulerSliceSeconds: 10 });
  close(turns.finishSeconds[0], 2, 'turns: rank 0 keeps the core to its end');
  close(turns.finishSeconds[1], 5, 'turns: then rank 1');
  close(turns.criticalPath.waitSeconds, 2, "rank 1's wait for the core is on the critical path");
});

test('taking turns, a rank keeps its core for its slice and gives it up at the tick after, to the back of the queue', () => {
  // Rank 0 computes 10, rank 1 computes 1, on one core from 0; ticks every 4.
  const slices = (schedulerSliceSeconds: number) =>
    run([[op(OpKind.End, { compute: 10 })], [op(OpKind.End, { compute: 1 })]], [0, 0], [1], { ...INSTANT, schedulerTickSeconds: 4, schedulerSliceSeconds }).result.finishSeconds;
  const short = slices(1.5);
  close(short[1], 5, 'slice 1.5: rank 1 gets the core at the tick at 4');
  close(short[0], 11, 'slice 1.5: rank 0 has it back at 5');
  const long = slices(5);
  close(long[1], 9, 'slice 5: the tick at 8');
  close(long[0], 11, 'slice 5: rank 0 has it back at 9');
});

test('taking turns, a waiting rank whose message came waits for the running rank to call or to use its slice', () => {
  // Ticks every 4.
  const waiting = (computeOfRank0: number, schedulerSliceSeconds: number) => waitBesideComputing(computeOfRank0, { ...INSTANT, schedulerTickSeconds: 4, schedulerSliceSeconds }).finishSeconds[1];
  close(waiting(10, 1.5), 4, 'the first tick after rank 0 used its slice');
  close(waiting(10, 5), 8, 'a longer slice: the tick at 8');
  close(waiting(3, 5), 3, "rank 0's call at 3, before its slice ends");
});

test('taking turns, a rank that has used its slice gives its core at MPI_Send to a rank ready beside it; other calls, or no rank ready, keep it', () => {
  // Node 0's one core: rank 0 computes 3 from 0, then sends to rank 2 (alone on node 1); rank 1
  // starts at 1 and computes 2, queued behind rank 0. Ticks every 4.
  const delivered = (kind: OpKind, schedulerSliceSeconds: number, startOfRank1 = 1) => {
    const workload = [
      [op(kind, { compute: 3, peer: 2, request: 1 }), ...(kind === OpKind.Isend ? [op(OpKind.Wait, { requests: [1] })] : []), op(OpKind.End)],
      [op(OpKind.End, { compute: 2 })],
      [op(OpKind.Recv, { peer: 0 }), op(OpKind.End)],
    ];
    const { result, reported } = run(workload, [0, 0, 1], [1, 1], { ...INSTANT, schedulerTickSeconds: 4, schedulerSliceSeconds }, { startSeconds: [0, startOfRank1, 0] });
    return { received: reported.find((r) => r.rank === 2 && r.kind === OpKind.Recv)!.time, rank1: result.finishSeconds[1] };
  };
  const used = delivered(OpKind.Send, 2);
  close(used.received, 5, 'slice 2 used by 3: rank 1 computes 3 to 5, then the message leaves');
  close(used.rank1, 5, 'rank 1 has the core at 3');
  close(delivered(OpKind.Send, 10).received, 3, 'slice 10 not used: the message leaves at 3');
  close(delivered(OpKind.Isend, 2).received, 3, 'MPI_Isend does not yield');
  close(delivered(OpKind.Send, 2, 4).received, 3, 'nobody ready at 3 (rank 1 starts at 4)');
});

test('taking turns, a receive whose message is there copies it on the core it holds; one that waits gives the core up and takes it back in its turn', () => {
  // Rank 0 on node 1 sends 4000 bytes at 0; they reach node 0 at 5 and its receiver copies them
  // in 4 (nodes emulated on shared memory). On node 0's one core rank 1 computes, then receives;
  // rank 2 computes 10, queued behind rank 1. Taking the core back after a wait costs 0.5.
  const net: EngineNetwork = {
    eagerLimitBytes: 1 << 30,
    oneWay: (bytes, same) => (same ? 1 : 5) + bytes / 1000,
    interNodeSharedMemory: true,
    switchIn: (ranksPerCore) => (ranksPerCore >= 2 ? 0.5 : 0),
    schedulerTickSeconds: 4,
    schedulerSliceSeconds: 100,
  };
  const workload = (computeBeforeReceive: number) => [
    [op(OpKind.Send, { peer: 1, bytes: 4000 }), op(OpKind.End)],
    [op(OpKind.Recv, { compute: computeBeforeReceive, peer: 0, bytes: 4000 }), op(OpKind.End)],
    [op(OpKind.End, { compute: 10 })],
  ];
  const there = run(workload(6), [1, 0, 0], [1, 1], net).result.finishSeconds;
  close(there[1], 6 + 4, 'the message came at 5: rank 1 copies it at once, no switch back');
  close(there[2], 10 + 10, 'rank 2 gets the core after the copy');
  const waits = run(workload(2), [1, 0, 0], [1, 1], net).result.finishSeconds;
  close(waits[2], 2 + 10, 'rank 1 waits from 2: rank 2 takes the core and keeps it to its end');
  close(waits[1], 12 + 0.5 + 4, 'then rank 1 takes it back and copies');
});

test("ranks start at their own start times on a shared core, whatever their order: rank 0's late start does not hold back rank 1's early one", () => {
  // One core; rank 1 starts at 0 and computes 2, rank 0 starts at 5 and computes 2: they never meet.
  const solo = (compute: number) => [op(OpKind.End, { compute })];
  for (const net of [INSTANT, { ...INSTANT, schedulerTickSeconds: 4, schedulerSliceSeconds: 1 }]) {
    const { result } = run([solo(2), solo(2)], [0, 0], [1], net, { startSeconds: [5, 0] });
    close(result.finishSeconds[1], 2, `rank 1 alone from 0 (slice ${net.schedulerSliceSeconds ?? 'none'})`);
    close(result.finishSeconds[0], 7, `rank 0 alone from 5 (slice ${net.schedulerSliceSeconds ?? 'none'})`);
  }
  // Rank 1 starts at 1 while rank 2 (from 0) still computes: they share until rank 1 is done at 3; rank 0 from 6.
  const shared = run([solo(1), solo(1), solo(3)], [0, 0, 0], [1], INSTANT, { startSeconds: [6, 1, 0] }).result;
  close(shared.finishSeconds[1], 3, 'rank 1 shares from 1');
  close(shared.finishSeconds[2], 4, 'rank 2 alone until 1, sharing until 3, alone again');
  close(shared.finishSeconds[0], 7, 'rank 0 alone from 6');
});

/**
 * Node 0 has one core for ranks 0 and 1; rank 2 on node 1 sends to 0 at 1 and to 1 at 51.
 * Rank 0 blocks at 0, then computes 8 from 1; rank 1 computes 2 (at half speed from 1, done
 * at 3), then waits, in a loop of polls of `pollInterval` when it is given.
 */
const pollingWorkload = (pollInterval?: number, polledSeconds?: number) => [
  [op(OpKind.Recv, { peer: 2 }), op(OpKind.End, { compute: 8 })],
  [op(OpKind.Irecv, { compute: 2, peer: 2, request: 1 }), op(OpKind.Wait, { requests: [1], ...(pollInterval ? { pollInterval } : {}), ...(polledSeconds ? { polledSeconds } : {}) }), op(OpKind.End)],
  [op(OpKind.Send, { compute: 1, peer: 0 }), op(OpKind.Send, { compute: 50, peer: 1 }), op(OpKind.End)],
];

test('a rank polling in a loop takes its core for a poll at each turn: a share of its poll over the computation between blocking calls', () => {
  // With polls of 0.5: by 3 the node computed 2 over 2 blocking calls, so the poller weighs
  // 0.5 / (2 / 2) = 0.5 against rank 0's 1: rank 0's 7 left take 7 × 1.5 = 10.5, to 13.5;
  // without the loop they take 7, to 10.
  const polling = run(pollingWorkload(0.5), [0, 0, 1], [1, 1], INSTANT);
  close(polling.result.finishSeconds[0], 13.5, 'the computing rank beside the poller');
  close(polling.result.finishSeconds[1], 51, 'the poller, when its message comes');
  const blocked = run(pollingWorkload(), [0, 0, 1], [1, 1], INSTANT);
  close(blocked.result.finishSeconds[0], 10, 'the computing rank beside a blocked rank');
  close(blocked.result.finishSeconds[1], 51, 'the blocked rank');
});

test("a polling loop takes no more CPU than its trace's polls took (PemOp.polledSeconds), then leaves the core to the computing rank", () => {
  // At a weight of 0.5 from 3 the loop has taken 1 when rank 0 has been served 2 more, at
  // 3 + 2 × 1.5 = 6; rank 0's last 5 then take 5, to 11 (13.5 with no end to the loop).
  const capped = run(pollingWorkload(0.5, 1), [0, 0, 1], [1, 1], INSTANT).result;
  close(capped.finishSeconds[0], 11, 'the computing rank, alone from 6');
  close(capped.callCpuSeconds[1], 1, "the loop's polls, as its trace's");
  close(capped.finishSeconds[1], 51, 'the poller, when its message comes');
  // Polls that the wait's end cuts short take what they took until then.
  const longer = run(pollingWorkload(0.5, 10), [0, 0, 1], [1, 1], INSTANT).result;
  close(longer.finishSeconds[0], 13.5, 'rank 0 finishes before the loop has taken 10');
  close(longer.callCpuSeconds[1], 3.5, 'half of what rank 0 got from 3 to 13.5');
});

test("each rank's CPU in the replay: its computations, and its calls' copies and the polls its loops took from a computing rank", () => {
  // Rank 1's loop polls from 3 while rank 0 computes its last 7, at a weight of 0.5 against rank 0's 1.
  const polling = run(pollingWorkload(0.5), [0, 0, 1], [1, 1], INSTANT).result;
  assert.deepEqual(polling.computeCpuSeconds, [8, 2, 51]);
  close(polling.callCpuSeconds[1], 3.5, 'the loop took half of what rank 0 got from 3 to 13.5');
  close(polling.callCpuSeconds[0] + polling.callCpuSeconds[2], 0, 'no copies, no polls');
  close(run(pollingWorkload(), [0, 0, 1], [1, 1], INSTANT).result.callCpuSeconds[1], 0, 'a blocked rank takes none');
  // A message of 4000 bytes inside a node: the receiver copies it (4 of CPU) after the latency of 1.
  const shm: EngineNetwork = { eagerLimitBytes: 1 << 30, oneWay: (bytes, same) => (same ? 1 + bytes / 1000 : 5) };
  const copied = run([[op(OpKind.Send, { compute: 3, peer: 1, bytes: 4000 }), op(OpKind.End)], [op(OpKind.Recv, { peer: 0, bytes: 4000 }), op(OpKind.End, { compute: 2 })]], [0, 0], [1], shm).result;
  assert.deepEqual(copied.computeCpuSeconds, [3, 2]);
  assert.deepEqual(copied.callCpuSeconds, [0, 4]);
});

test('when a computation ends, each rank of its core waiting in MPI takes a turn (the switch) before the core goes on; ranks in polling loops and short computations do not', () => {
  // Node 0 has one core for ranks 0 and 1 (switch 0.5); rank 2 on node 1. Rank 0 computes 5, sends
  // to rank 2 and computes 5 more; rank 1 waits from 0 for rank 2's message, sent at 20.
  const net: EngineNetwork = { ...INSTANT, switchIn: () => 0.5 };
  const workload = (first: number, wait: PemOp) => [
    [op(OpKind.Send, { compute: first, peer: 2 }), op(OpKind.End, { compute: 5 })],
    [op(OpKind.Irecv, { peer: 2, request: 1 }), wait, op(OpKind.End)],
    [op(OpKind.Recv, { peer: 0 }), op(OpKind.Send, { compute: 20, peer: 1 }), op(OpKind.End)],
  ];
  const inMpi = run(workload(5, op(OpKind.Wait, { requests: [1] })), [0, 0, 1], [1, 1], net).result;
  close(inMpi.finishSeconds[0], 10.5, "rank 1's turn after rank 0's first computation");
  const alone = run(workload(5, op(OpKind.Wait, { requests: [1] })), [0, 1, 1], [1, 1], net).result;
  close(alone.finishSeconds[0], 10, 'no rank waits on its core');
  const polled = run(workload(5, op(OpKind.Wait, { requests: [1], pollInterval: 0 })), [0, 0, 1], [1, 1], net).result;
  close(polled.finishSeconds[0], 10, 'a wait its trace polled for polls between computations of its own');
  // A computation shorter than a round of switches (2 ranks × 0.5) is a relaying turn, whose polls the messages' delays hold.
  const short = run(workload(0.9, op(OpKind.Wait, { requests: [1] })), [0, 0, 1], [1, 1], net).result;
  close(short.finishSeconds[0], 5.9, 'after a short computation the core goes on at once');
});
