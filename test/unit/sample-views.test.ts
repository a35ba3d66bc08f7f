// The words for sampled time on a line (server/src/lsp/sampleViews.ts): the hover's table of
// time by class, by thread.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampledHoverSection, sampledSummary } from '../../server/src/lsp/sampleViews';
import { Attribution, ClassMs } from '../../server/src/samples/attribution';
import { LineSampled } from '../../server/src/workspace/profileStore';

const ms = (parts: Partial<ClassMs>): ClassMs => ({ onCpu: 0, io: 0, sync: 0, sched: 0, other: 0, ...parts });

/** samples/blocking's fsync line as a recording of it showed (8.0 ms on the CPU, 29.9 ms in I/O of 742.3 ms). */
function fsyncLine(): LineSampled {
  const line = ms({ onCpu: 8, io: 29.9 });
  return {
    samples: { file: '/w/blocking.c', line: 85, ms: line, byThread: new Map([['blocking 7537', line]]), stacks: [] },
    attribution: { frames: [], lines: [], functions: [], byThread: new Map(), total: ms({ onCpu: 742.3 }), outside: ms({}) } as Attribution,
    profileTotalMs: 742.3,
    profile: 'perf.data',
  };
}

test('the hover table has a column for each class the line has time in, and none for the others', () => {
  const hover = sampledHoverSection(fsyncLine(), 'perf.data');
  const rows = hover.split('\n').filter((row) => row.startsWith('|'));
  assert.deepEqual(rows.slice(0, 2), ['| | total | CPU | I/O |', '|---|---:|---:|---:|']);
  assert.equal(rows[2], '| this line | 37.9 ms | 8.0 ms (1.1%) | 29.9 ms (4.0%) |');
  assert.equal(rows[3], '| thread blocking 7537 | 37.9 ms | 8.0 ms (1.1%) | 29.9 ms (4.0%) |');
  assert.equal(sampledSummary(fsyncLine()), '5.1% · I/O 4.0%');
});
