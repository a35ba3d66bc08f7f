// Fuzz test for the run-table importer: mutations of the committed cachegrind tables (truncation,
// flipped bytes, deleted/duplicated/swapped lines, garbage, huge numbers, NaN, unicode, quotes).
// Parsing must not throw, and what comes out must be well-formed and account for every line.
// Seeded (FUZZ_SEED replays another seed); the house style of fuzz-coz.test.ts.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { mulberry32 } from '../../server/src/causal/random';
import { parseScalingCsv } from '../../server/src/import/scalingCsv';
import { SCALING_FIXTURES } from './fit-data';
import { mutatedCase, Mutation, textMutations } from './textMutations';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5ca1e);
const CASES = 4000;

const GARBAGE = [',', '"', '""', '\r', '\0', '#', ' ', '\t', 'e', '-', '.', '\n', ',,', '"a,b"'];
const ODD_NUMBERS = ['9'.repeat(400), '1e999', '-1e999', '-0', '0', 'NaN', 'Infinity', '', '0x1F', '1,5', '١٢٣', '1e-400', '.5', '5.'];

const MUTATIONS: Record<string, Mutation> = {
  ...textMutations({ garbage: GARBAGE, oddNumbers: ODD_NUMBERS }),
  crlf: (text) => text.replace(/\n/g, '\r\n'),
  dropHeader: (text) => text.slice(text.indexOf('\n') + 1),
  empty: () => '',
};

test(`fuzz: ${CASES} mutated run tables never throw, and every line is a run, a problem or ignored (seed ${SEED})`, () => {
  const sources = fs
    .readdirSync(SCALING_FIXTURES)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => ({ name: f, text: fs.readFileSync(path.join(SCALING_FIXTURES, f), 'utf8') }));
  const random = mulberry32(SEED);
  let runsSeen = 0;
  for (let n = 0; n < CASES; n++) {
    const { source, text, label } = mutatedCase(sources, MUTATIONS, random, n, SEED);
    let table;
    try {
      table = parseScalingCsv(text, source.name);
    } catch (error) {
      assert.fail(`${label} threw: ${(error as Error).stack}`);
    }
    const lineCount = text.split('\n').length;
    const lines = new Set<number>();
    for (const run of table.runs) {
      assert.ok(Number.isFinite(run.x) && run.x > 0 && Number.isFinite(run.y), `${label}: ${JSON.stringify(run)}`);
      assert.ok(run.component === undefined || run.component.length > 0, label);
      assert.ok(Number.isInteger(run.line) && run.line >= 1 && run.line <= lineCount && !lines.has(run.line), label);
      lines.add(run.line);
    }
    for (const problem of table.problems) {
      assert.equal(problem.file, source.name, label);
      assert.ok(Number.isInteger(problem.line) && problem.line >= 1 && problem.line <= lineCount, `${label}: line ${problem.line}`);
      assert.ok(problem.message.length > 0 && problem.message.length < 300, label);
    }
    assert.ok(table.problems.length <= 101, label);
    assert.ok(table.runs.length + table.skipped <= lineCount, label);
    // Every listed problem is a skipped row, but for one summary line ("more not listed", "no runs").
    assert.ok(table.skipped >= table.problems.length - 1, label);
    runsSeen += table.runs.length;
  }
  assert.ok(runsSeen > CASES * 10, `only ${runsSeen} runs over all cases`);
});
