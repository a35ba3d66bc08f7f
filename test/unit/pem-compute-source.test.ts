// computeSource.ts: another trace's computations, segment by segment when the messages match (waits
// may differ), else scaled.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeComputeMatches, matchRankCompute, poolComputeMatches, scaledCompute, timedComputeScales, withComputeFrom } from '../../server/src/pem/computeSource';
import { arrayStream, op, OpKind, PemOp } from '../../server/src/pem/ops';
import { CancelledError, Pace } from '../../server/src/pem/pace';

const ops = (...steps: [OpKind, number][]): PemOp[] => steps.map(([kind, compute]) => op(kind, { compute }));
const drain = (stream: { next(): PemOp | undefined }): number[] => {
  const out: number[] = [];
  for (let o = stream.next(); o; o = stream.next()) out.push(o.compute);
  return out;
};

test('same calls: each computation comes from the other trace', async () => {
  const own = () => ops([OpKind.Send, 1], [OpKind.Recv, 2], [OpKind.End, 3]);
  const other = () => ops([OpKind.Send, 10], [OpKind.Recv, 20], [OpKind.End, 30]);
  const match = await matchRankCompute(arrayStream(own()), arrayStream(other()), new Pace());
  assert.deepEqual(match, { aligned: true, scale: 10, ownSeconds: 6, otherSeconds: 60 });
  assert.deepEqual(drain(withComputeFrom(arrayStream(own()), arrayStream(other()), match)), [10, 20, 30]);
  assert.deepEqual(describeComputeMatches([match], 'b.otf2'), []);
});

test('other messages (or another count): own computations scaled by the ratio of the totals, and named', async () => {
  const own = () => ops([OpKind.Send, 1], [OpKind.Recv, 3], [OpKind.End, 0]);
  const other = () => ops([OpKind.Recv, 2], [OpKind.Send, 2], [OpKind.Send, 2], [OpKind.End, 2]);
  const match = await matchRankCompute(arrayStream(own()), arrayStream(other()), new Pace());
  assert.deepEqual(match, { aligned: false, scale: 2, ownSeconds: 4, otherSeconds: 8 });
  assert.deepEqual(drain(withComputeFrom(arrayStream(own()), arrayStream(other()), match)), [2, 6, 0]);
  assert.match(describeComputeMatches([{ aligned: true, scale: 1, ownSeconds: 1, otherSeconds: 1 }, match], 'b.otf2')[0], /^computation from b\.otf2: rank 1 sent, received or joined collectives otherwise there, so its own computations were scaled by 2\.000$/);
});

test('waits at other places (a pipeline stage whose send slots were full): computations taken between messages, copies from the receives', async () => {
  // own waited before its second send; the other trace did not, and waited after its receive instead
  const own = () => [op(OpKind.Isend, { compute: 1 }), op(OpKind.Wait, { compute: 1 }), op(OpKind.Isend, { compute: 3 }), op(OpKind.Irecv, { compute: 2, copySeconds: 0.5 }), op(OpKind.End, { compute: 1 })];
  const other = () => [op(OpKind.Isend, { compute: 2 }), op(OpKind.Isend, { compute: 8 }), op(OpKind.Wait, { compute: 1 }), op(OpKind.Irecv, { compute: 3, copySeconds: 0.75, offCpuSeconds: 0.125 }), op(OpKind.End, { compute: 5 })];
  const match = await matchRankCompute(arrayStream(own()), arrayStream(other()), new Pace());
  assert.deepEqual(match, { aligned: true, scale: 19 / 8, ownSeconds: 8, otherSeconds: 19 });
  const replaced: PemOp[] = [];
  const stream = withComputeFrom(arrayStream(own()), arrayStream(other()), match);
  for (let o = stream.next(); o; o = stream.next()) replaced.push(o);
  assert.deepEqual(replaced.map((o) => o.kind), [OpKind.Isend, OpKind.Wait, OpKind.Isend, OpKind.Irecv, OpKind.End]);
  // the wait and the send share the other's 8 as 1 : 3; the receive's segment (a wait and the receive) lies on the receive alone
  assert.deepEqual(replaced.map((o) => o.compute), [2, 2, 6, 4, 5]);
  assert.deepEqual(replaced.map((o) => o.copySeconds), [-1, -1, -1, 0.75, -1]);
  assert.equal(replaced[3].offCpuSeconds, 0.125);
  assert.deepEqual(describeComputeMatches([match], 'b.otf2'), []);
});

test('matching two long traces gives the event loop turns: a cancellation stops it there', async () => {
  const long = (compute: number) => Array.from({ length: 20_000 }, (_, i) => op(i % 2 === 0 ? OpKind.Send : OpKind.Recv, { compute }));
  const cancelled = new Pace(() => true);
  // A turn is due once 50 ms of work have passed.
  await new Promise((resolve) => setTimeout(resolve, 60));
  await assert.rejects(matchRankCompute(arrayStream(long(1)), arrayStream(long(2)), cancelled), CancelledError);
  // Without a cancellation the same reads complete.
  assert.deepEqual(await matchRankCompute(arrayStream(long(1)), arrayStream(long(2)), new Pace()), { aligned: true, scale: 2, ownSeconds: 20_000, otherSeconds: 40_000 });
});

test('a rank that computed nothing keeps its computations', async () => {
  const match = await matchRankCompute(arrayStream(ops([OpKind.End, 0])), arrayStream(ops([OpKind.Send, 1], [OpKind.End, 1])), new Pace());
  assert.deepEqual(match, { aligned: false, scale: 1, ownSeconds: 0, otherSeconds: 2 });
});

test("measured receive copies follow the computations: the other trace's one by one, or scaled; unmeasured ones stay unmeasured", async () => {
  const copies = (stream: { next(): PemOp | undefined }): number[] => {
    const out: number[] = [];
    for (let o = stream.next(); o; o = stream.next()) out.push(o.copySeconds);
    return out;
  };
  const own = () => [op(OpKind.Irecv, { compute: 1, copySeconds: 0.5 }), op(OpKind.Irecv, { compute: 1 }), op(OpKind.End, { compute: 2 })];
  const same = () => [op(OpKind.Irecv, { compute: 2, copySeconds: 0.25 }), op(OpKind.Irecv, { compute: 2, copySeconds: 0.75 }), op(OpKind.End, { compute: 4 })];
  const sameMatch = await matchRankCompute(arrayStream(own()), arrayStream(same()), new Pace());
  assert.deepEqual(copies(withComputeFrom(arrayStream(own()), arrayStream(same()), sameMatch)), [0.25, 0.75, -1]);
  const other = () => [op(OpKind.Irecv, { compute: 6 }), op(OpKind.End, { compute: 6 })];
  const otherMatch = await matchRankCompute(arrayStream(own()), arrayStream(other()), new Pace());
  assert.deepEqual(otherMatch, { aligned: false, scale: 3, ownSeconds: 4, otherSeconds: 12 });
  assert.deepEqual(copies(withComputeFrom(arrayStream(own()), arrayStream(other()), otherMatch)), [1.5, -1, -1]);
});

test('workers that run each other\'s tasks share one scale, from their totals together', () => {
  const matches = [
    { aligned: true, scale: 1, ownSeconds: 1, otherSeconds: 1 },
    { aligned: false, scale: 1.8, ownSeconds: 10, otherSeconds: 18 },
    { aligned: true, scale: 0.6, ownSeconds: 10, otherSeconds: 6 },
  ];
  poolComputeMatches(matches, [1, 2]);
  assert.deepEqual(matches.map((m) => [m.aligned, m.scale]), [[true, 1], [false, 1.2], [false, 1.2]]);
  assert.deepEqual(describeComputeMatches(matches, 'b.otf2', new Set([1, 2])), ["computation from b.otf2: ranks 1, 2 run each other's tasks, so their own computations were scaled by one factor, 1.200"]);
});

test("a target run's timed compute: each rank's computations and measured copies at its speed, dealt workers at theirs together", () => {
  // rank 0 timed nothing (a master), rank 1 ran 1.5 times as long, ranks 2 and 3 are dealt workers: (4 + 9) / (2 + 8)
  const scales = timedComputeScales({ source: [0, 2, 2, 8], target: [0.5, 3, 4, 9] }, 5, [new Set([2, 3])]);
  assert.deepEqual(scales, [1, 1.5, 1.3, 1.3, 1]);
  const stream = scaledCompute(arrayStream([op(OpKind.Irecv, { compute: 2, copySeconds: 0.5 }), op(OpKind.Recv, { compute: 4 }), op(OpKind.End, { compute: 1 })]), 1.5);
  const scaled: PemOp[] = [];
  for (let o = stream.next(); o; o = stream.next()) scaled.push(o);
  assert.deepEqual(scaled.map((o) => [o.compute, o.copySeconds]), [[3, 0.75], [6, -1], [1.5, -1]]);
});
