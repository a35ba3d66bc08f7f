// EventQueue (the engine's global queue) against a sorted list, on seeded random pushes and pops:
// entries leave by time, ties in the order they were pushed, whether or not the entry pushed last
// (held beside the heap) goes first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { EventQueue } from '../../server/src/pem/eventQueue';

interface Entry {
  time: number;
  id: number;
  version: number;
  pushed: number;
}

test('EventQueue pops by time, ties in push order, through 30,000 random pushes and pops', () => {
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const queue = new EventQueue();
    const reference: Entry[] = [];
    const out = [0, 0, 0];
    let pushed = 0;
    let heldFirst = 0;
    let heldLater = 0;
    for (let step = 0; step < 30_000; step++) {
      // Few distinct times, so that ties are common; phases that grow the queue past its first 64 places and shrink it.
      const growing = Math.floor(step / 3000) % 2 === 0;
      if (reference.length === 0 || random() < (growing ? 0.6 : 0.4)) {
        const entry = { time: Math.floor(random() * 50) / 4, id: Math.floor(random() * 100) - 10, version: step, pushed: pushed++ };
        queue.push(entry.time, entry.id, entry.version);
        reference.push(entry);
      } else {
        reference.sort((a, b) => a.time - b.time || a.pushed - b.pushed);
        const expected = reference.shift()!;
        const last = pushed - 1;
        queue.pop(out);
        assert.deepEqual(out, [expected.time, expected.id, expected.version], `seed ${seed}, step ${step}`);
        if (expected.pushed === last) heldFirst++;
        else heldLater++;
      }
      assert.equal(queue.size, reference.length, `seed ${seed}, step ${step}: size`);
    }
    assert.ok(heldFirst > 1000 && heldLater > 1000, `seed ${seed}: the last pushed went first ${heldFirst} times, another ${heldLater}`);
  }
});

test('EventQueue: an entry pushed last at the time of an earlier one leaves after it', () => {
  const queue = new EventQueue();
  const out = [0, 0, 0];
  queue.push(2, 1, 0);
  queue.push(1, 2, 0);
  queue.push(1, 3, 0);
  queue.pop(out);
  assert.deepEqual(out, [1, 2, 0]);
  queue.pop(out);
  assert.deepEqual(out, [1, 3, 0]);
  queue.push(2, 4, 7);
  queue.pop(out);
  assert.deepEqual(out, [2, 1, 0]);
  queue.pop(out);
  assert.deepEqual(out, [2, 4, 7]);
  assert.equal(queue.size, 0);
});
