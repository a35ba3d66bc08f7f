import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { findFunctions, findFunctionsIn } from '../../server/src/lsp/functionHeaders';

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

test('Rust: free functions and methods in impl blocks, not trait declarations', () => {
  const source = [
    'fn helper<\'a>(s: &\'a str) -> &\'a str {', // 1
    '    s', //                                    2
    '}', //                                        3
    'trait Work { fn run(&self); }', //            4 declaration only
    'impl Work for Pool {', //                     5
    '    fn run(&self) {', //                      6
    '        for t in &self.tasks { t.go(); }', // 7
    '    }', //                                    8
    '}', //                                        9
  ].join('\n');
  assert.deepEqual(findFunctionsIn('lib.rs', source), [
    { name: 'helper', headerLine: 1, bodyStart: 1, bodyEnd: 3 },
    { name: 'run', headerLine: 6, bodyStart: 6, bodyEnd: 8 },
  ]);
});

test('Fortran: programs, subroutines and typed functions up to their end, through contains', () => {
  const source = [
    'program main', //                              1
    '  call work(10)', //                           2
    'contains', //                                  3
    '  subroutine work(n)', //                      4
    '    integer :: n, i', //                       5
    '    do i = 1, n', //                           6
    '      if (i > 2) then; end if', //             7
    '    end do', //                                8
    '  end subroutine work', //                     9
    '  pure real(kind=8) function f(x) ! scale', // 10
    '    real(kind=8), intent(in) :: x', //         11
    '    f = 2 * x', //                             12
    '  end function', //                            13
    'end program main', //                          14
  ].join('\n');
  assert.deepEqual(findFunctionsIn('solver.f90', source), [
    { name: 'main', headerLine: 1, bodyStart: 1, bodyEnd: 14 },
    { name: 'work', headerLine: 4, bodyStart: 4, bodyEnd: 9 },
    { name: 'f', headerLine: 10, bodyStart: 10, bodyEnd: 13 },
  ]);
  assert.deepEqual(findFunctionsIn('notes.txt', source), []);
});
