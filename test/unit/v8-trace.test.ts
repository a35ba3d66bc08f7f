// bench/v8Trace.ts: V8's --trace-opt and --trace-deopt-verbose lines (node 20 on this machine),
// read by `pemInstructions --compile` for what a cold prediction compiles and compiles again.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptimizationTrace, recompileMs } from '../../bench/v8Trace';

// As a cold prediction printed them: a marking (not a compilation), compilations of two
// functions named `next` (told apart by their SharedFunctionInfo), an anonymous one, an OSR
// one, an eager deoptimization at a position inside an inlined function, a lazy one (no
// position; its input frame follows), and the program's own output between them.
const TRACE = `[marking 0x07c199336da1 <JSFunction (sfi = 0x139327922099)> for optimization to TURBOFAN, ConcurrencyMode::kConcurrent, reason: small function]
[completed compiling 0x0e68d9c3f2c9 <JSFunction next (sfi = 0x20e9e5768229)> (target TURBOFAN) - took 0.005, 22.310, 0.087 ms]
[completed optimizing 0x0e68d9c3f2c9 <JSFunction next (sfi = 0x20e9e5768229)> (target TURBOFAN)]
[completed compiling 0x3deb8a0c1891 <JSFunction next (sfi = 0x20e9e5756899)> (target TURBOFAN) - took 0.010, 4.000, 0.090 ms]
[completed compiling 0x30eb6c5ceaf1 <JSFunction (sfi = 0x139327922099)> (target TURBOFAN) - took 0.152, 12.280, 0.081 ms]
[bailout (kind: deopt-eager, reason: out of bounds): begin. deoptimizing 0x0b033174d531 <JSFunction regionRecord (sfi = 0x261cb2128811)>, 0x147b9f836cf9 <Code TURBOFAN>, opt id 12, bytecode offset 12, deopt exit 70, FP to SP delta 72, caller SP 0x7ffe204b2360, pc 0x7f465b7fe194]
            ;;; deoptimize at </work/main/out/server/src/pem/idTable.js:48:24> inlined at </work/main/out/server/src/pem/otf2Ops.js:396:33>
  reading input frame regionRecord => bytecode_offset=229, args=2, height=10, retval=0(#0); inputs:
1000080
[bailout (kind: deopt-lazy, reason: (unknown)): begin. deoptimizing 0x0b033174aa59 <JSFunction nextOp (sfi = 0x261cb2111389)>, 0x2c97a1bb0ac1 <Code TURBOFAN>, opt id 78, bytecode offset 17, deopt exit 86, FP to SP delta 120, caller SP 0x7ffe204b2240, pc 0x7f465b84ba27]
  reading input frame nextOp => bytecode_offset=10, args=3, height=7, retval=0(#1); inputs:
[completed compiling 0x0e68d9c3f2c9 <JSFunction next (sfi = 0x20e9e5768229)> (target TURBOFAN) OSR - took 0.008, 30.000, 0.092 ms]
`;

test('compilations: name, function, the three phases summed, OSR; markings and the program output skipped', () => {
  const { compilations } = parseOptimizationTrace(TRACE);
  assert.deepEqual(
    compilations.map((c) => [c.name, c.sfi, +c.ms.toFixed(3), c.osr]),
    [
      ['next', '0x20e9e5768229', 22.402, false],
      ['next', '0x20e9e5756899', 4.1, false],
      ['(anonymous)', '0x139327922099', 12.513, false],
      ['next', '0x20e9e5768229', 30.1, true],
    ],
  );
});

test('deoptimizations: kind, reason, function, and the position an eager one gives (inside the inlined function it is in)', () => {
  const { deoptimizations } = parseOptimizationTrace(TRACE);
  assert.deepEqual(deoptimizations, [
    { kind: 'eager', reason: 'out of bounds', name: 'regionRecord', at: '/work/main/out/server/src/pem/idTable.js:48:24' },
    { kind: 'lazy', reason: '(unknown)', name: 'nextOp' },
  ]);
});

test('compiling again is counted per function, not per name: the second `next` is a first compilation', () => {
  assert.equal(+recompileMs(parseOptimizationTrace(TRACE).compilations).toFixed(3), 30.1);
});

test('text with no V8 trace in it gives nothing, not an error', () => {
  assert.deepEqual(parseOptimizationTrace('1000080\nsome output\n'), { compilations: [], deoptimizations: [] });
});
