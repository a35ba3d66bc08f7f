// Mailboxes' wildcard matching (MPI_ANY_SOURCE, MPI_ANY_TAG) against a brute-force reader of
// every message held, on seeded random traffic: the receiver's heap of channel heads
// (channelHeads.ts) must pick what scanning every sender picks.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { Mailboxes, Posted, Sent } from '../../server/src/pem/mailboxes';
import { OpKind, op } from '../../server/src/pem/ops';

interface Msg extends Sent {
  dst: number;
  comm: number;
  tag: number;
}

const arrival = (m: Msg) => m.time + (m.eager ? m.oneWay : m.zeroWay);

/**
 * MPI's rule as the engine states it: of one sender's messages that fit, the first sent; of
 * several senders', the first to arrive, then the first sent.
 */
function reference(held: Msg[], dst: number, recv: { peer: number; comm: number; tag: number; anySource: boolean; anyTag: boolean }): Msg | undefined {
  const firstBySender = new Map<number, Msg>();
  for (const m of held) {
    if (m.dst !== dst || m.comm !== recv.comm) continue;
    if (!recv.anySource && m.src !== recv.peer) continue;
    if (recv.anyTag ? m.tag < 0 : m.tag !== recv.tag) continue;
    const first = firstBySender.get(m.src);
    if (!first || m.seq < first.seq) firstBySender.set(m.src, m);
  }
  let best: Msg | undefined;
  for (const m of firstBySender.values()) if (!best || arrival(m) < arrival(best) || (arrival(m) === arrival(best) && m.seq < best.seq)) best = m;
  return best;
}

test('wildcard receives take what a scan of every held message takes, through 60,000 random sends and receives', () => {
  let wildcardsMatched = 0;
  let tagOrderMattered = 0;
  for (const seed of [11, 12, 13]) {
    const random = mulberry32(seed);
    // More senders than a receiver keeps before it forgets idle ones (SENDERS_SWEEP_AT).
    const ranks = 48;
    const boxes = new Mailboxes<Msg, Posted>(ranks);
    const held: Msg[] = [];
    // The engine reuses a received message's object for a later send (PemEngine.message).
    const received: Msg[] = [];
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
    for (let step = 0; step < 20_000; step++) {
      if (random() < 0.55) {
        // Three receivers take most traffic; tags include a collective's negative round tag.
        const dst = pick([0, 1, 2, Math.floor(random() * ranks)]);
        const src = Math.floor(random() * ranks);
        const msg: Msg = Object.assign(random() < 0.5 ? (received.pop() ?? ({} as Msg)) : ({} as Msg), {
          src,
          dst,
          comm: pick([0, 0, 0, 3]),
          tag: pick([0, 1, 2, 7, -5]),
          // Times as a replay makes them: on the whole increasing, with overlaps.
          time: step * 1e-6 + random() * 2e-5,
          eager: random() < 0.8,
          oneWay: random() * 3e-5,
          zeroWay: random() * 1e-5,
          payload: undefined,
          seq: 0,
        });
        boxes.holdMessage(boxes.channel(src, dst, msg.comm, msg.tag), msg);
        held.push(msg);
      } else if (random() < 0.1 && held.length > 0) {
        // A race on a link delays an eager message already held (engine.ts decideRace): only later.
        pick(held).oneWay += random() * 2e-5;
      } else {
        const dst = pick([0, 1, 2, Math.floor(random() * ranks)]);
        const anySource = random() < 0.6;
        const anyTag = random() < 0.4;
        const recv = op(OpKind.Recv, { peer: Math.floor(random() * ranks), comm: pick([0, 0, 3]), tag: pick([0, 1, 2, 7]), anySource: anySource || undefined, anyTag: anyTag || undefined });
        const expected = reference(held, dst, { peer: recv.peer, comm: recv.comm, tag: recv.tag, anySource, anyTag });
        const taken = boxes.takeMessage(boxes.recvChannel(dst, recv), dst, recv);
        assert.equal(taken, expected, `seed ${seed}, step ${step}: receive ${JSON.stringify({ dst, peer: recv.peer, comm: recv.comm, tag: recv.tag, anySource, anyTag })}`);
        if (!taken) continue;
        held.splice(held.indexOf(taken), 1);
        received.push(taken);
        if (anySource || anyTag) wildcardsMatched++;
        if (anySource && anyTag && held.some((m) => m.src === taken.src && m.dst === dst && m.comm === taken.comm && m.tag >= 0 && arrival(m) < arrival(taken))) tagOrderMattered++;
        if (anySource) assert.equal(boxes.wildcardSource(dst), taken.src);
      }
    }
  }
  // The cases that tell a heap of channel heads from a scan: many wildcard matches, and some where
  // a sender's later message on another tag arrived first and MPI's order had to win.
  assert.ok(wildcardsMatched > 2000, `${wildcardsMatched} wildcard matches`);
  assert.ok(tagOrderMattered > 10, `${tagOrderMattered} matches kept a sender's order against arrival`);
});
