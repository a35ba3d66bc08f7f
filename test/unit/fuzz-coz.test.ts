// Fuzz test for the COZ importer: thousands of random mutations of the real and
// hand-written fixtures (truncation, flipped bytes, deleted/duplicated/swapped lines,
// garbage, huge numbers, NaN, unicode, empty files). Whatever the damage, parsing must
// not throw and what comes out must stay well-formed. Seeded, so a failure names the
// case that reproduces it (set FUZZ_SEED to replay another seed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ProfileReader, parseProfileText } from '../../server/src/import';
import { Profile } from '../../server/src/model/profile';
import { mulberry32 } from '../../server/src/causal/random';
import { mutatedCase, Mutation, pick, textMutations } from './textMutations';

const FIXTURES = path.join(__dirname, '../../../test/fixtures');
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const CASES = 5000;
/** Lines kept from each fixture, so that a case stays small and fast. */
const MAX_SOURCE_LINES = 300;

function loadSources(): { name: string; text: string }[] {
  const files = [
    ...fs.readdirSync(path.join(FIXTURES, 'coz')).map((n) => `coz/${n}`),
    ...fs.readdirSync(path.join(FIXTURES, 'coz-upstream')).map((n) => `coz-upstream/${n}`),
  ].filter((n) => /\.(coz|jsonl)$/.test(n));
  return files.map((name) => {
    const lines = fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n');
    return { name, text: lines.slice(0, MAX_SOURCE_LINES).join('\n') + (lines.length > MAX_SOURCE_LINES ? '\n' : '') };
  });
}

const GARBAGE = ['\t', '=', '{', '}', '"', '\r', '\0', ':', '(', '|)', '%', ',', '\\', 'experiment', 'startup', '{"type":', 'selected=', '\n'];
const ODD_NUMBERS = ['9'.repeat(25), '9'.repeat(400), '18446744073709551615', '9223372036854775808', '1e999', '-1e999', '-0', 'NaN', 'nan', 'inf', '-inf', '', '0x1F', '1,5', '١٢٣'];

const MUTATIONS: Record<string, Mutation> = {
  ...textMutations({ garbage: GARBAGE, oddNumbers: ODD_NUMBERS }),
  dropFinalNewline: (text) => text.replace(/\n+$/, ''),
  renameKey: (text, r) => text.replace(pick([/selected=/, /duration=/, /delta=/, /"speedup"/, /count=/, /name=/], r), pick(['', 'x=', 'selected_samples=', '"speedup_"'], r)),
};

function lineCountOf(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

function checkProfile(profile: Profile, source: string, lineCount: number): void {
  const maxLine = Math.max(1, lineCount);
  assert.equal(profile.source, source);
  for (const problem of profile.problems) {
    assert.equal(problem.file, source);
    assert.ok(Number.isInteger(problem.line) && problem.line >= 1 && problem.line <= maxLine, `problem line ${problem.line} of ${lineCount}: ${problem.message}`);
    assert.ok(problem.severity === 'error' || problem.severity === 'warning');
    assert.ok(problem.message.length > 0);
  }
  // 100 listed per file plus a bounded number of summaries (one per reason, 21 for unknown types).
  assert.ok(profile.problems.length <= 130, `${profile.problems.length} problems`);
  for (const count of Object.values(profile.skipped)) assert.ok(Number.isInteger(count) && count >= 0);
  for (const run of profile.runs) {
    if (run.startTimeNs !== undefined) assert.ok(finite(run.startTimeNs));
    if (run.runtimeNs !== undefined) assert.ok(finite(run.runtimeNs));
    for (const count of run.samples.values()) assert.ok(finite(count));
  }
  for (const e of profile.experiments) {
    assert.ok(finite(e.speedup) && e.speedup >= 0 && e.speedup <= 1, `speedup ${e.speedup}`);
    assert.ok(finite(e.durationNs) && e.durationNs >= 0 && e.durationNs <= 2 ** 63, `duration ${e.durationNs}`);
    assert.ok(finite(e.selectedSamples));
    if (e.delayNs !== undefined) assert.ok(finite(e.delayNs));
    assert.ok(e.selected.length > 0);
    assert.ok(Number.isInteger(e.run) && e.run >= 0 && e.run < profile.runs.length);
    assert.ok(Number.isInteger(e.recordLine) && e.recordLine >= 1 && e.recordLine <= maxLine);
    if (e.target.based) assert.ok(finite(e.target.based.speedup) && e.target.based.speedup >= 0 && e.target.based.speedup <= 1);
    for (const point of e.points) {
      if (point.kind === 'throughput') assert.ok(finite(point.delta));
      else assert.ok(finite(point.arrivals) && finite(point.departures) && finite(point.difference));
    }
  }
}

test(`fuzz: ${CASES} mutated fixtures never throw and give well-formed profiles (seed ${SEED})`, () => {
  const sources = loadSources();
  assert.ok(sources.length >= 20);
  const random = mulberry32(SEED);
  let experimentsSeen = 0;
  for (let n = 0; n < CASES; n++) {
    const { source, text, label } = mutatedCase(sources, MUTATIONS, random, n, SEED);
    const name = `fuzz/${source.name}`;
    let profile: Profile;
    try {
      profile = parseProfileText(text, name);
    } catch (error) {
      assert.fail(`${label} threw: ${(error as Error).stack}`);
    }
    try {
      checkProfile(profile, name, lineCountOf(text));
      // Every tenth case also goes in random pieces: chunking must not change anything.
      if (n % 10 === 0) {
        const reader = new ProfileReader(name);
        for (let i = 0; i < text.length; ) {
          const size = 1 + Math.floor(random() * 64);
          reader.push(text.slice(i, i + size));
          i += size;
        }
        assert.deepEqual(reader.end(), profile);
      }
    } catch (error) {
      (error as Error).message = `${label}: ${(error as Error).message}`;
      throw error;
    }
    experimentsSeen += profile.experiments.length;
  }
  // The mutations must leave most of the data parseable, or the test checks nothing.
  assert.ok(experimentsSeen > CASES * 10, `only ${experimentsSeen} experiments over all cases`);
});
