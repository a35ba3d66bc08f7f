// server/src/doubleFields.ts: the hot objects' fields and arrays begin with the kind of value
// they will hold, so that their hidden maps do not change under optimized code (a change sends
// the code that read them back to the interpreter). Checked with V8's own intrinsics.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { DOUBLE_MINUS_ONE, DOUBLE_ZERO, doubleArray, objectArray, widenFields } from '../../server/src/doubleFields';

v8.setFlagsFromString('--allow-natives-syntax');
// Parsed after the flag is set: the intrinsics are V8's, not JavaScript's.
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const doubleElements = new Function('a', 'return %HasDoubleElements(a)') as (a: unknown[]) => boolean;
const objectElements = new Function('a', 'return %HasObjectElements(a)') as (a: unknown[]) => boolean;

test('fields begun with DOUBLE_ZERO or DOUBLE_MINUS_ONE keep their map when a fraction is stored', () => {
  class Begun {
    seconds = DOUBLE_ZERO;
    start = DOUBLE_MINUS_ONE;
  }
  class Literal {
    seconds = 0;
  }
  const fresh = new Begun();
  const stored = new Begun();
  stored.seconds = 1.5;
  stored.start = 0.25;
  assert.equal(fresh.seconds, 0);
  assert.equal(fresh.start, -1);
  assert.ok(sameMap(fresh, stored));
  // The premise: a literal 0 begins a small integer, and the fraction changes the map.
  const literal = new Literal();
  const widened = new Literal();
  widened.seconds = 1.5;
  assert.ok(!sameMap(literal, widened));
});

test('doubleArray is empty, of double elements, and keeps its map as doubles are pushed', () => {
  const fresh = doubleArray();
  const pushed = doubleArray();
  pushed.push(0.5, 3);
  assert.deepEqual(fresh, []);
  assert.deepEqual(pushed, [0.5, 3]);
  assert.ok(doubleElements(fresh));
  assert.ok(sameMap(fresh, pushed));
  const literal: number[] = [];
  const grown: number[] = [];
  grown.push(0.5);
  assert.ok(!sameMap(literal, grown));
});

test('objectArray is empty, of object elements, and keeps its map as objects are stored', () => {
  const fresh = objectArray<{ id: number } | undefined>();
  const stored = objectArray<{ id: number } | undefined>();
  stored[0] = { id: 1 };
  stored[1] = undefined;
  assert.equal(fresh.length, 0);
  assert.equal(stored.length, 2);
  assert.ok(objectElements(fresh));
  assert.ok(sameMap(fresh, stored));
});

test('widenFields leaves every value as it was, objects the same objects', () => {
  const list = [1, 2];
  const object = { count: 3, seconds: DOUBLE_ZERO, flag: false, absent: undefined as unknown, list };
  widenFields(object);
  assert.deepEqual(object, { count: 3, seconds: 0, flag: false, absent: undefined, list: [1, 2] });
  assert.equal(object.list, list);
});
