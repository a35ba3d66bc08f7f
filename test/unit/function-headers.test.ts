import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findFunctions } from '../../server/src/lsp/functionHeaders';

test('finds C function definitions and their bodies, not control statements, prototypes or strings', () => {
  const source = [
    '#include <stdio.h>', //            1
    'static int add(int a, int b);', // 2 prototype
    'struct point { int x; };', //      3 not a function
    '/* fake(void) { */', //            4 comment
    'static unsigned long', //          5
    'transform(unsigned long x,', //    6 header (name line)
    '          unsigned n)', //         7
    '{', //                             8
    '  for (unsigned i = 0; i < n; i++) { x ^= i; }', // 9
    '  if (x) { puts("}{"); }', //      10
    '  return x;', //                   11
    '}', //                             12
    'int main(void) {', //              13
    '  return (int)transform(1, 2);', // 14
    '}', //                             15
  ].join('\n');
  assert.deepEqual(findFunctions(source), [
    { name: 'transform', headerLine: 6, bodyStart: 8, bodyEnd: 12 },
    { name: 'main', headerLine: 13, bodyStart: 13, bodyEnd: 15 },
  ]);
});

test('the pipeline sample: the hot loops lie inside transform and checksum', () => {
  const text = fs.readFileSync(path.join(__dirname, '../../../samples/pipeline/pipeline.c'), 'utf8');
  const functions = findFunctions(text);
  const containing = (line: number) => functions.find((f) => f.bodyStart <= line && line <= f.bodyEnd)?.name;
  assert.equal(containing(78), 'transform');
  assert.equal(containing(84), 'checksum');
  assert.ok(functions.some((f) => f.name === 'main'));
});
