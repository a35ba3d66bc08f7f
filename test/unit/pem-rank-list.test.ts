// The ranks named in notes: ranges for long runs, a count past a dozen items.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { factorList, rankList } from '../../server/src/pem/rankList';

test('ranks read as lists, runs of four or more as ranges, in order and without repeats', () => {
  assert.equal(rankList([]), '');
  assert.equal(rankList([3, 1, 2]), '1, 2, 3');
  assert.equal(rankList(new Set([7, 1, 2, 3, 4, 9, 10, 2])), '1–4, 7, 9, 10');
  assert.equal(rankList(Array.from({ length: 4095 }, (_, i) => 4095 - i)), '1–4095');
});

test('past a dozen items the rest are counted; many factors read as their range', () => {
  const evens = Array.from({ length: 20 }, (_, i) => 2 * i);
  assert.equal(rankList(evens), '0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, and 8 more');
  assert.equal(factorList([1, 1.25]), '1.000, 1.250');
  assert.equal(factorList(Array.from({ length: 13 }, (_, i) => 0.9 + i / 100)), '0.900 to 1.020');
});
