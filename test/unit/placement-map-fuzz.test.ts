// Rank → node map files (`causal-lens whatif --map FILE`, the panel's custom maps): parsed by
// parseMapText and placed by mapPlacement (server/src/pem/scenario.ts). Every problem names the
// file and the entry; mutations of valid maps either place every rank on a node or are refused
// so. FUZZ_SEED=n replays a seed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mulberry32 } from '../../server/src/causal/random';
import { spawnSync } from 'node:child_process';
import { mapPlacement, parseMapText, ScenarioError } from '../../server/src/pem/scenario';
import { mutatedCase, Mutation, textMutations } from './textMutations';

const SEED = Number(process.env.FUZZ_SEED ?? 0x3a9);
const CASES = 3000;
const RANKS = 8;

test('a map is node indices, rank 0 first, as JSON or words; nodes are its distinct indices in order', () => {
  assert.deepEqual(parseMapText('0 0 1 1\n', 'm.txt'), [0, 0, 1, 1]);
  assert.deepEqual(parseMapText(' [0, 1, 0, 1] ', 'm.json'), [0, 1, 0, 1]);
  // A cluster's own node numbers: two nodes, whatever their numbers.
  const placed = mapPlacement(parseMapText('7 7 12 12', 'm.txt'), 4, 2, 'm.txt');
  assert.deepEqual(placed, { label: 'map (4/2)', nodeOf: [0, 0, 1, 1], coresPerNode: [2, 2] });
  // A node number as large as a safe integer is one node, not that many.
  assert.deepEqual(mapPlacement([0, 9007199254740991], 2, 1, 'm.txt').coresPerNode, [1, 1]);
});

test("a map's problems name its file and entry", () => {
  const refused = (text: string, message: RegExp) => assert.throws(() => parseMapText(text, 'm.txt'), (error: Error) => error instanceof ScenarioError && message.test(error.message));
  refused('', /^m\.txt: no node indices \(expected a JSON array of node indices/);
  refused('  \n', /^m\.txt: no node indices/);
  refused('0 0 x 1', /^m\.txt: word 3 \("x"\) is not a node index \(a whole number ≥ 0\)$/);
  refused('0 -1', /^m\.txt: word 2 \("-1"\) is not a node index/);
  refused('0 1e3', /^m\.txt: word 2 \("1e3"\)/);
  refused('[0, 1.5]', /^m\.txt: entry 1 \(1\.5\) is not a node index/);
  refused('[0, "1"]', /^m\.txt: entry 1 \("1"\) is not a node index/);
  refused('[0, 1', /^m\.txt: not JSON/);
  assert.throws(() => mapPlacement([0, 0, 1], 4, 1, 'm.txt'), /^Error: m\.txt: the map names 3 ranks, the trace has 4$/);
});

test('whatif --map names the file of a map that does not fit the trace', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-map-'));
  try {
    const trace = path.join(__dirname, '../../../test/fixtures/otf2/stencil8_otf2/traces.otf2');
    const run = (text: string) => {
      const file = path.join(dir, 'map.txt');
      fs.writeFileSync(file, text);
      const cli = spawnSync(process.execPath, [path.join(__dirname, '../../../bin/causal-lens.js'), 'whatif', trace, '--map', file], { encoding: 'utf8' });
      return { code: cli.status, err: cli.stderr, file };
    };
    const short = run('0 0 1');
    assert.equal(short.code, 1);
    assert.equal(short.err, `causal-lens whatif: ${short.file}: the map names 3 ranks, the trace has 8\n`);
    const empty = run('');
    assert.equal(empty.code, 1);
    assert.equal(empty.err, `causal-lens whatif: ${empty.file}: no node indices (expected a JSON array of node indices, or node indices separated by white space, rank 0 first)\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const MUTATIONS: Record<string, Mutation> = textMutations({
  garbage: ['[', ']', ',', ' ', '\n', '-', '.', 'e9', '"', 'null', '{}', '0x1'],
  oddNumbers: ['9'.repeat(40), '1e999', '-0', '0.5', '-1', '9007199254740993', '1e3', '7'],
});

test(`${CASES} mutations of map files place every rank on a node or are refused with the file named`, () => {
  const sources = [
    { name: 'block.txt', text: '0 0 0 0\n1 1 1 1\n' },
    { name: 'cyclic.json', text: '[0, 1, 2, 3, 0, 1, 2, 3]\n' },
    { name: 'cluster.txt', text: '17 17 17 17 42 42 42 42' },
  ];
  const random = mulberry32(SEED);
  let placed = 0;
  for (let n = 0; n < CASES; n++) {
    const { source, text, label } = mutatedCase(sources, MUTATIONS, random, n, SEED);
    let placement;
    try {
      placement = mapPlacement(parseMapText(text, source.name), RANKS, 1, source.name);
    } catch (error) {
      assert.ok(error instanceof ScenarioError, `${label} threw ${(error as Error).stack}`);
      assert.ok(error.message.startsWith(`${source.name}: `), `${label}: ${error.message}`);
      continue;
    }
    placed++;
    const nodes = placement.coresPerNode.length;
    assert.equal(placement.nodeOf.length, RANKS, label);
    assert.ok(nodes >= 1 && nodes <= RANKS, `${label}: ${nodes} nodes`);
    assert.deepEqual([...new Set(placement.nodeOf)].sort((a, b) => a - b), Array.from({ length: nodes }, (_, i) => i), `${label}: every node holds a rank`);
  }
  assert.ok(placed > 0 && placed < CASES, `${placed} of ${CASES} placed`);
});
