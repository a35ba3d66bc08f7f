// IdTable (the engine's open requests and channels) against a Map, on seeded random operations
// that cross its switch from linear arrays to a Map and back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../server/src/causal/random';
import { IdTable } from '../../server/src/pem/idTable';

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

test('IdTable behaves as a Map through 20,000 random sets, deletes and sweeps, with up to 60 entries', () => {
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const table = new IdTable<number>();
    const reference = new Map<number, number>();
    // Ids as the engine sees them: small, negative (synthetic requests) and beyond 2^32 (channel keys).
    const id = () => [Math.floor(random() * 40), -2 - Math.floor(random() * 20), 4294967296 * 3 - 1 - Math.floor(random() * 5)][Math.floor(random() * 3)];
    let spilled = false;
    let emptiedAfterSpill = false;
    for (let step = 0; step < 20_000; step++) {
      const roll = random();
      const existing = [...reference.keys()];
      // Half the deletes hit an entry, so the table empties while the phase lasts.
      const k = roll >= 0.6 && existing.length > 0 && random() < 0.5 ? existing[Math.floor(random() * existing.length)] : id();
      // Phases that fill the table and phases that empty it, so it crosses 16 entries both ways.
      const filling = Math.floor(step / 2000) % 2 === 0;
      if (roll < (filling ? 0.6 : 0.25)) {
        table.set(k, step);
        reference.set(k, step);
      } else if (roll < 0.97) {
        assert.equal(table.delete(k), reference.delete(k), `seed ${seed}, step ${step}: delete ${k}`);
      } else {
        const drop = (value: number) => value % 3 === 0;
        table.deleteWhere(drop);
        for (const [key, value] of reference) if (drop(value)) reference.delete(key);
      }
      if (reference.size > 16) spilled = true;
      if (spilled && reference.size === 0) emptiedAfterSpill = true;
      assert.equal(table.size, reference.size, `seed ${seed}, step ${step}: size`);
      assert.equal(table.get(k), reference.get(k), `seed ${seed}, step ${step}: get ${k}`);
      assert.equal(table.get(k + 0.5), undefined);
    }
    assert.ok(spilled && emptiedAfterSpill, `seed ${seed}: the table never held more than 16 entries and then none`);
    assert.deepEqual(sorted(table.values()), sorted([...reference.values()]));
    table.clear();
    assert.equal(table.size, 0);
    assert.equal(table.get(0), undefined);
  }
});
