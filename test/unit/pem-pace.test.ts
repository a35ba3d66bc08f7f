// A prediction gives the event loop turns while it works (pace.ts): the language server answers
// other requests meanwhile and a cancellation stops it. On a trace of 256 ranks written by the
// bench's spool generator and the recorder's converter (the engine's operations cost more at many
// ranks, and its first pass reads every rank).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeHaloSpool } from '../../bench/synthSpool';
import { CancelledError, predictScenarios } from '../../server/src/pem';
import { buildMpi, MPI_BUILD } from './mpiBuild';

const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-pace-'));
const TRACE = path.join(WORK, 'traces.otf2');

before(() => {
  buildMpi();
  writeHaloSpool(WORK, 256, 60);
  execFileSync(path.join(MPI_BUILD, 'causal-lens-otf2'), [WORK], { stdio: 'pipe' });
});

after(() => fs.rmSync(WORK, { recursive: true, force: true }));

test('the event loop turns while a prediction of 256 ranks runs', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = Date.now();
  const fractions: number[] = [];
  const prediction = await predictScenarios(TRACE, [{}], {}, (fraction) => fractions.push(fraction));
  const took = Date.now() - started;
  clearInterval(timer);
  assert.equal(prediction.scenarios.length, 1);
  assert.ok(prediction.scenarios[0].predictedSeconds > 0);
  // A turn at least every 50 ms of work, and a prediction that lasts well beyond that.
  assert.ok(took > 200, `the prediction took ${took} ms: too short to tell`);
  assert.ok(ticks >= 3, `${ticks} timer ticks in ${took} ms`);
  // Progress moves in the first pass (its first half: one pass, one replay) and in the replay, never back, to the end.
  assert.ok(fractions.some((f) => f > 0 && f < 0.5), `first pass: ${fractions.join(' ')}`);
  assert.ok(fractions.some((f) => f > 0.5 && f < 1), `replay: ${fractions.join(' ')}`);
  assert.ok(fractions.every((f, i) => i === 0 || f >= fractions[i - 1]), fractions.join(' '));
  assert.equal(fractions.at(-1), 1);
});

test('a cancellation stops a prediction at its next turn, in its first pass or in the replay', async () => {
  // Progress 0 (at once: in the first pass) and past a half (in the replay).
  for (const after of [0, 0.5]) {
    let progressed = 0;
    const started = Date.now();
    await assert.rejects(
      predictScenarios(TRACE, [{}], {}, (fraction) => (progressed = fraction), () => progressed >= after),
      (error: unknown) => error instanceof CancelledError,
    );
    assert.ok(Date.now() - started < 2000, `cancelled after ${Date.now() - started} ms`);
  }
});

test("with another trace's computations (--compute-from), progress counts the matching of the two traces as a unit of its own", async () => {
  const fractions: number[] = [];
  const prediction = await predictScenarios(TRACE, [{}], { computeFrom: TRACE }, (fraction) => fractions.push(fraction));
  assert.ok(prediction.scenarios[0].predictedSeconds > 0);
  // Four units: the first passes over the two traces, their matching, the replay; the matching
  // moves it once per rank matched (256), where nothing else reports in its quarter.
  const matching = fractions.filter((f) => f > 0.5 && f <= 0.75);
  assert.ok(matching.length >= 256, `${matching.length} steps while matching: ${fractions.join(' ')}`);
  assert.ok(fractions.some((f) => f > 0.75 && f < 1), `replay: ${fractions.join(' ')}`);
  assert.ok(fractions.every((f, i) => i === 0 || f >= fractions[i - 1]), fractions.join(' '));
  assert.equal(fractions.at(-1), 1);
});
