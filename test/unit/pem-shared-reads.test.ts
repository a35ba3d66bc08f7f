// Several replays reading one trace (sharedReads.ts): each gets every rank's operations in order,
// as copies of its own, and the operations held for the replays behind stay bounded.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { arrayStream, ClosableStream, op, OpKind, PemOp } from '../../server/src/pem/ops';
import { copyOp, SharedReads } from '../../server/src/pem/sharedReads';
import { CancelledError, Pace } from '../../server/src/pem/pace';

/** Rank r's i-th operation: a send whose tag and computation say which it is. */
function traceOps(ranks: number, perRank: number): PemOp[][] {
  return Array.from({ length: ranks }, (_, r) => Array.from({ length: perRank }, (_, i) => op(i % 3 === 0 ? OpKind.Send : OpKind.Recv, { peer: (r + 1) % ranks, tag: i, compute: r * 10000 + i, ...(i % 7 === 0 ? { anySource: true } : {}) })));
}

/** An opener over `ops` that counts its openings and closings. */
function opener(ops: PemOp[][]) {
  const counts = { opened: 0, closed: 0 };
  const open = (): ClosableStream[] => {
    counts.opened++;
    return ops.map((rankOps) => Object.assign(arrayStream(rankOps), { close: () => void counts.closed++ }));
  };
  return { open, counts };
}

test('every replay gets each rank\'s operations in order, its own to change: the last to take one gets it, the others copies', () => {
  const ops = traceOps(4, 500);
  const expected = traceOps(4, 500);
  const { open, counts } = opener(ops);
  const shared = new SharedReads(open);
  const readers = [shared.reader(), shared.reader(), shared.reader()];
  const got = readers.map(() => ops.map((): PemOp[] => []));
  const random = mulberry32(3);
  // Readers and ranks in a random order, as engines pull.
  for (let left = 3 * 4 * 501; left > 0; ) {
    const k = Math.floor(random() * 3);
    const r = Math.floor(random() * 4);
    if (got[k][r].length > ops[r].length) continue;
    const o = readers[k][r].next();
    if (!o) {
      got[k][r].push(undefined as unknown as PemOp);
      left--;
      continue;
    }
    // An engine writes into what it runs: the others must not see it.
    o.payload = `reader ${k}`;
    o.compute += 100000;
    got[k][r].push(o);
    left--;
  }
  for (let k = 0; k < 3; k++) {
    for (let r = 0; r < 4; r++) {
      assert.equal(got[k][r].pop(), undefined, 'the end, after every operation');
      assert.equal(got[k][r].length, ops[r].length);
      got[k][r].forEach((o, i) => {
        assert.deepEqual({ ...o, payload: undefined, compute: o.compute - 100000 }, { ...expected[r][i], payload: undefined }, `reader ${k}, rank ${r}, operation ${i}`);
        assert.equal(o.payload, `reader ${k}`);
      });
    }
  }
  // Each operation went to one replay as it was read (the last to take it), to the others as copies.
  ops.forEach((rankOps, r) => rankOps.forEach((o, i) => assert.equal(got.filter((ofReader) => ofReader[r][i] === o).length, 1, `rank ${r}, operation ${i}`)));
  assert.equal(counts.opened, 1, 'the trace is read once');
  shared.close();
  assert.equal(counts.closed, 4);
});

test('past the most operations held, the replay furthest behind reads on its own, from where it was', () => {
  const ops = traceOps(2, 2000);
  const { open, counts } = opener(ops);
  const shared = new SharedReads(open, 100);
  const [ahead, behind] = [shared.reader(), shared.reader()];
  // The first replay runs rank 0 to its end while the second has taken 10 operations of each rank.
  for (let i = 0; i < 10; i++) for (const r of [0, 1]) behind[r].next();
  const aheadGot: PemOp[] = [];
  for (let o = ahead[0].next(); o; o = ahead[0].next()) aheadGot.push(o);
  assert.equal(aheadGot.length, 2000);
  assert.ok(shared.mostHeldOperations <= 101, `${shared.mostHeldOperations} held`);
  assert.equal(counts.opened, 2, 'the one behind opened the trace anew');
  // It goes on where it was, on both ranks.
  for (const r of [0, 1]) {
    const rest: PemOp[] = [];
    for (let o = behind[r].next(); o; o = behind[r].next()) rest.push(o);
    assert.deepEqual(rest.map((o) => o.tag), ops[r].slice(10).map((o) => o.tag), `rank ${r}`);
  }
  for (let o = ahead[1].next(); o; o = ahead[1].next()) assert.ok(o.tag >= 0);
  shared.close();
  assert.equal(counts.closed, 4, 'both openings closed');
});

test('a replay sent back skips what it had taken in catchUp, which takes turns of the event loop and can be cancelled', async () => {
  const ops = traceOps(2, 30_000);
  // Operations read per opening of the trace.
  const reads: number[] = [];
  const open = (): ClosableStream[] => {
    const opening = reads.push(0) - 1;
    return ops.map((rankOps) => {
      const stream = arrayStream(rankOps);
      return { next: () => (reads[opening]++, stream.next()), close: () => undefined };
    });
  };
  const shared = new SharedReads(open, 100);
  const [ahead, behind] = [shared.reader(), shared.reader()];
  // Side by side for 20,000 operations of each rank, then the first replay runs on alone.
  for (let i = 0; i < 20_000; i++) for (const r of [0, 1]) for (const reader of [ahead, behind]) assert.equal(reader[r].next()!.tag, i);
  for (let i = 0; i < 200; i++) for (const r of [0, 1]) ahead[r].next();
  assert.equal(reads.length, 2, 'the one behind opened the trace anew');
  assert.equal(reads[1], 0, 'and skipped nothing yet');
  assert.ok(shared.behind);
  // A turn is due once 50 ms of work have passed: a cancelled prediction stops at the first.
  const cancelled = new Pace(() => true);
  await new Promise((resolve) => setTimeout(resolve, 60));
  await assert.rejects(shared.catchUp(cancelled), CancelledError);
  assert.ok(reads[1] > 0 && reads[1] < 40_000, `${reads[1]} skipped before the turn`);
  await shared.catchUp(new Pace());
  assert.equal(reads[1], 40_000, 'everything it had taken, skipped');
  assert.ok(!shared.behind);
  for (const r of [0, 1]) {
    assert.equal(behind[r].next()!.tag, 20_000, `rank ${r} goes on where it was`);
    assert.equal(reads[1], 40_000 + r + 1, 'reading one operation');
  }
  shared.close();
});

test('copyOp: every field of an operation, and no field it did not have', () => {
  const full = op(OpKind.Wait, { compute: 1, offCpuSeconds: 2, peer: 3, comm: 4, tag: 5, bytes: 6, request: 7, requests: [8, 9], collective: 10, root: 11, sizeSent: 12, sizeReceived: 13, copySeconds: 14, anySource: true, anyTag: false, pollInterval: 15, polledSeconds: 16, resumeSeconds: 17, toWildcardSource: true, payload: 'task' });
  assert.deepEqual(copyOp(full), full);
  const plain = op(OpKind.Send, { peer: 1 });
  assert.deepEqual(Object.keys(copyOp(plain)), Object.keys(plain));
});
