// Fuzz of the communication-time table's parser (server/src/network/commTable.ts): mutations of
// this machine's calibrations (samples/mpi/comm-table.json; test/fixtures/network/, measured three
// times, with each point's extremes) and of a model table either parse into
// a table that keeps the schema's rules or are refused with a CommTableError naming the file;
// nothing else is thrown. FUZZ_SEED=n replays a seed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../../server/src/causal/random';
import { CommTableError, modelCommTable, parseCommTable, SharedCorePoint } from '../../server/src/network/commTable';
import { mutatedCase, Mutation, textMutations } from './textMutations';

const SEED = Number(process.env.FUZZ_SEED ?? 0xc0ffee);
const CASES = 3000;

const GARBAGE = ['{', '}', '[', ']', ',', ':', '"', '""', 'null', 'true', '-', '.', 'e', '\n', '{"bytes": 1}', '[]'];
const ODD_NUMBERS = ['9'.repeat(400), '1e999', '-1e999', '-0', '0', '-1', '0.5', '1e-400', '-2e-7', '1.5e308', '3', '17'];

const MUTATIONS: Record<string, Mutation> = {
  ...textMutations({ garbage: GARBAGE, oddNumbers: ODD_NUMBERS }),
  // Drops one "key": value line, so optional and required fields go missing.
  dropField: (text, r) => {
    const lines = text.split('\n');
    const keyed = lines.flatMap((line, i) => (/^\s*"[A-Za-z]+":/.test(line) ? [i] : []));
    if (keyed.length) lines.splice(keyed[Math.floor(r() * keyed.length)], 1);
    return lines.join('\n');
  },
};

function increasing(points: readonly SharedCorePoint[] | undefined, label: string): void {
  if (!points) return;
  points.forEach((p, i) => {
    assert.ok(Number.isInteger(p.ranksPerCore) && p.ranksPerCore >= 1 && Number.isFinite(p.seconds) && p.seconds >= 0, `${label}: ${JSON.stringify(p)}`);
    assert.ok((p.low ?? 0) <= p.seconds && p.seconds <= (p.high ?? Infinity), `${label}: ${JSON.stringify(p)}`);
    if (i > 0) assert.ok(p.ranksPerCore > points[i - 1].ranksPerCore, label);
  });
}

test(`${CASES} mutations of real tables parse into valid tables or are refused with the file named`, () => {
  const measured = fs.readFileSync(path.join(__dirname, '../../../samples/mpi/comm-table.json'), 'utf8');
  const sources = [
    { name: 'comm-table.json', text: measured },
    { name: 'comm-table-repeat3.json', text: fs.readFileSync(path.join(__dirname, '../../../test/fixtures/network/comm-table-repeat3.json'), 'utf8') },
    { name: 'model.json', text: `${JSON.stringify(modelCommTable('gbe', 5e-5, 1.25e8), null, 2)}\n` },
  ];
  const random = mulberry32(SEED);
  let parsed = 0;
  for (let n = 0; n < CASES; n++) {
    const { source, text, label } = mutatedCase(sources, MUTATIONS, random, n, SEED);
    let table;
    try {
      table = parseCommTable(text, source.name);
    } catch (error) {
      assert.ok(error instanceof CommTableError, `${label} threw ${(error as Error).stack}`);
      assert.ok((error as Error).message.startsWith(`${source.name}: `), `${label}: ${(error as Error).message}`);
      continue;
    }
    parsed++;
    assert.ok(table.intraNode?.length || table.interNode?.length || table.model, `${label}: a table with no times`);
    for (const list of [table.intraNode, table.interNode]) {
      list?.forEach((p, i) => {
        assert.ok(Number.isFinite(p.seconds) && p.seconds >= 0 && p.bytes >= 0, `${label}: ${JSON.stringify(p)}`);
        assert.ok((p.low ?? 0) <= p.seconds && p.seconds <= (p.high ?? Infinity), `${label}: ${JSON.stringify(p)}`);
        if (i > 0) assert.ok(p.bytes > list[i - 1].bytes, `${label}: sizes increase`);
      });
    }
    increasing(table.sharedCore, label);
    increasing(table.relayTurn, label);
    increasing(table.recorderTurn, label);
    if (table.relayTurn) assert.ok(table.relayTurn.length >= 2, label);
    assert.ok(Number.isFinite(table.eagerLimitBytes) && table.eagerLimitBytes >= 0, label);
  }
  // Some mutations leave a valid table (a digit changed, a line of whitespace); most are refused.
  assert.ok(parsed > 0 && parsed < CASES, `${parsed} of ${CASES} parsed`);
});
