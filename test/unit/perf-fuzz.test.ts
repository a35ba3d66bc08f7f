// Fuzz test for the perf script and perf/bperf report importers: random mutations of
// the real fixtures (truncation, flipped bytes, lost/duplicated/swapped lines, perf-
// specific garbage, huge numbers). Parsing must not throw and the sample data must stay
// well-formed. Seeded (FUZZ_SEED replays another seed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parseProfileText } from '../../server/src/import';
import { Profile, SAMPLE_CLASSES } from '../../server/src/model/profile';
import { mulberry32 } from '../../server/src/causal/random';
import { attributeSamples, workspaceFilter } from '../../server/src/samples/attribution';
import { mutatedCase, Mutation, textMutations } from './textMutations';

const FIXTURES = path.join(__dirname, '../../../test/fixtures/perf');
const SEED = Number(process.env.FUZZ_SEED ?? 0xbe4f);
const CASES = 1500;

const sources = fs
  .readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.txt'))
  .map((name) => ({ name, text: fs.readFileSync(path.join(FIXTURES, name), 'utf8') }));

const GARBAGE = ['\t', '  ', ' (inlined)', '+0x', 'ffffffffffffffff', ' (', ')', ':', 'PERF_RECORD_SWITCH OUT', 'prev_state=', ' ==> ', '%', '[I] ', '\0', '\r', '\n', '1e999', 'é'];

const MUTATIONS: Record<string, Mutation> = {
  ...textMutations({ garbage: GARBAGE, oddNumbers: ['9'.repeat(40), '18446744073709551615', '0', '-1'] }),
  stripTabs: (text) => text.replace(/\t/g, ''),
};

function check(profile: Profile, name: string, lineCount: number): void {
  assert.equal(profile.source, name);
  for (const problem of profile.problems) {
    assert.ok(Number.isInteger(problem.line) && problem.line >= 1 && problem.line <= Math.max(1, lineCount), `problem line ${problem.line}`);
    assert.ok(problem.message.length > 0);
  }
  assert.ok(profile.problems.length <= 60 + 20, `${profile.problems.length} problems`);
  const data = profile.samples;
  if (!data) return;
  for (const stack of data.stacks) {
    assert.ok(Number.isFinite(stack.ms) && stack.ms > 0, `ms ${stack.ms}`);
    assert.ok(SAMPLE_CLASSES.includes(stack.cls));
    for (const id of stack.frames) assert.ok(Number.isInteger(id) && id >= 0 && id < data.frames.length);
  }
  for (const count of Object.values(data.skipped)) assert.ok(Number.isInteger(count) && count >= 0);
  for (const entry of attributeSamples(data, workspaceFilter([])).lines) assert.ok(Number.isInteger(entry.line));
}

test(`fuzz: ${CASES} mutated perf fixtures never throw and give well-formed sample data (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  let stacks = 0;
  for (let n = 0; n < CASES; n++) {
    const { source, text, label } = mutatedCase(sources, MUTATIONS, random, n, SEED);
    let profile: Profile;
    try {
      profile = parseProfileText(text, source.name);
    } catch (error) {
      assert.fail(`${label} threw: ${(error as Error).stack}`);
    }
    const lineCount = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    try {
      check(profile, source.name, lineCount);
    } catch (error) {
      (error as Error).message = `${label}: ${(error as Error).message}`;
      throw error;
    }
    stacks += profile.samples?.stacks.length ?? 0;
  }
  assert.ok(stacks > CASES * 2, `only ${stacks} stacks over all cases`);
});
