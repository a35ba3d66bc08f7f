// computeSource.ts: another trace's computations, one by one when the calls match, else scaled.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeComputeMatches, matchRankCompute, poolComputeMatches, withComputeFrom } from '../../server/src/pem/computeSource';
import { arrayStream, op, OpKind, PemOp } from '../../server/src/pem/ops';

const ops = (...steps: [OpKind, number][]): PemOp[] => steps.map(([kind, compute]) => op(kind, { compute }));
const drain = (stream: { next(): PemOp | undefined }): number[] => {
  const out: number[] = [];
  for (let o = stream.next(); o; o = stream.next()) out.push(o.compute);
  return out;
};

test('same calls: each computation comes from the other trace', () => {
  const own = () => ops([OpKind.Send, 1], [OpKind.Recv, 2], [OpKind.End, 3]);
  const other = () => ops([OpKind.Send, 10], [OpKind.Recv, 20], [OpKind.End, 30]);
  const match = matchRankCompute(arrayStream(own()), arrayStream(other()));
  assert.deepEqual(match, { sameCalls: true, scale: 10, ownSeconds: 6, otherSeconds: 60 });
  assert.deepEqual(drain(withComputeFrom(arrayStream(own()), arrayStream(other()), match)), [10, 20, 30]);
  assert.deepEqual(describeComputeMatches([match], 'b.otf2'), []);
});

test('other calls (or another count): own computations scaled by the ratio of the totals, and named', () => {
  const own = () => ops([OpKind.Send, 1], [OpKind.Recv, 3], [OpKind.End, 0]);
  const other = () => ops([OpKind.Recv, 2], [OpKind.Send, 2], [OpKind.Send, 2], [OpKind.End, 2]);
  const match = matchRankCompute(arrayStream(own()), arrayStream(other()));
  assert.deepEqual(match, { sameCalls: false, scale: 2, ownSeconds: 4, otherSeconds: 8 });
  assert.deepEqual(drain(withComputeFrom(arrayStream(own()), arrayStream(other()), match)), [2, 6, 0]);
  assert.match(describeComputeMatches([{ sameCalls: true, scale: 1, ownSeconds: 1, otherSeconds: 1 }, match], 'b.otf2')[0], /^computation from b\.otf2: rank 1 made other calls there, so its own computations were scaled by 2\.000$/);
});

test('a rank that computed nothing keeps its computations', () => {
  const match = matchRankCompute(arrayStream(ops([OpKind.End, 0])), arrayStream(ops([OpKind.Send, 1], [OpKind.End, 1])));
  assert.deepEqual(match, { sameCalls: false, scale: 1, ownSeconds: 0, otherSeconds: 2 });
});

test("measured receive copies follow the computations: the other trace's one by one, or scaled; unmeasured ones stay unmeasured", () => {
  const copies = (stream: { next(): PemOp | undefined }): number[] => {
    const out: number[] = [];
    for (let o = stream.next(); o; o = stream.next()) out.push(o.copySeconds);
    return out;
  };
  const own = () => [op(OpKind.Irecv, { compute: 1, copySeconds: 0.5 }), op(OpKind.Irecv, { compute: 1 }), op(OpKind.End, { compute: 2 })];
  const same = () => [op(OpKind.Irecv, { compute: 2, copySeconds: 0.25 }), op(OpKind.Irecv, { compute: 2, copySeconds: 0.75 }), op(OpKind.End, { compute: 4 })];
  const sameMatch = matchRankCompute(arrayStream(own()), arrayStream(same()));
  assert.deepEqual(copies(withComputeFrom(arrayStream(own()), arrayStream(same()), sameMatch)), [0.25, 0.75, -1]);
  const other = () => [op(OpKind.Irecv, { compute: 6 }), op(OpKind.End, { compute: 6 })];
  const otherMatch = matchRankCompute(arrayStream(own()), arrayStream(other()));
  assert.deepEqual(otherMatch, { sameCalls: false, scale: 3, ownSeconds: 4, otherSeconds: 12 });
  assert.deepEqual(copies(withComputeFrom(arrayStream(own()), arrayStream(other()), otherMatch)), [1.5, -1, -1]);
});

test('workers that run each other\'s tasks share one scale, from their totals together', () => {
  const matches = [
    { sameCalls: true, scale: 1, ownSeconds: 1, otherSeconds: 1 },
    { sameCalls: false, scale: 1.8, ownSeconds: 10, otherSeconds: 18 },
    { sameCalls: true, scale: 0.6, ownSeconds: 10, otherSeconds: 6 },
  ];
  poolComputeMatches(matches, [1, 2]);
  assert.deepEqual(matches.map((m) => [m.sameCalls, m.scale]), [[true, 1], [false, 1.2], [false, 1.2]]);
  assert.deepEqual(describeComputeMatches(matches, 'b.otf2', new Set([1, 2])), ["computation from b.otf2: ranks 1, 2 run each other's tasks, so their own computations were scaled by one factor, 1.200"]);
});
