// Fuzz test for the OTF2 reader and the what-if pipeline on top of it: random mutations of the
// real stencil8 archive (truncated files, flipped bytes, inserted and deleted bytes, huge
// compressed integers, swapped chunks of bytes, empty files) in the anchor, the global and local
// definitions and the event files. Whatever the damage, nothing may throw: reading returns what
// it could with problems naming the file and the offset, and a prediction either runs or
// refuses with one message naming the file. Seeded (FUZZ_SEED replays another seed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mulberry32 } from '../../server/src/causal/random';
import { predictScenarios } from '../../server/src/pem';
import { ScenarioError } from '../../server/src/pem/scenario';
import { openOtf2Archive, openRankEvents } from '../../server/src/trace/otf2Archive';

const SOURCE = path.join(__dirname, '../../../test/fixtures/otf2/stencil8_otf2');
const SEED = Number(process.env.FUZZ_SEED ?? 0x0f72);
const CASES = 500;

type Mutation = (bytes: Uint8Array, random: () => number) => Uint8Array;
const at = (bytes: Uint8Array, random: () => number) => Math.floor(random() * (bytes.length + 1));

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const MUTATIONS: Record<string, Mutation> = {
  truncate: (b, r) => b.subarray(0, at(b, r)),
  flipBytes: (b, r) => {
    const copy = b.slice();
    for (let n = 1 + Math.floor(r() * 8); n > 0 && copy.length > 0; n--) copy[Math.floor(r() * copy.length)] ^= 1 << Math.floor(r() * 8);
    return copy;
  },
  randomByte: (b, r) => {
    const copy = b.slice();
    if (copy.length > 0) copy[Math.floor(r() * copy.length)] = [0, 1, 2, 3, 5, 6, 8, 0xff][Math.floor(r() * 8)];
    return copy;
  },
  insertBytes: (b, r) => {
    const p = at(b, r);
    const junk = Uint8Array.from({ length: 1 + Math.floor(r() * 16) }, () => Math.floor(r() * 256));
    return concat(b.subarray(0, p), junk, b.subarray(p));
  },
  deleteBytes: (b, r) => {
    const p = at(b, r);
    return concat(b.subarray(0, p), b.subarray(p + 1 + Math.floor(r() * 16)));
  },
  hugeInteger: (b, r) => {
    const p = at(b, r);
    return concat(b.subarray(0, p), Uint8Array.from([8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), b.subarray(p + 1));
  },
  swapRanges: (b, r) => {
    const copy = b.slice();
    const n = Math.min(32, Math.floor(copy.length / 4));
    if (n === 0) return copy;
    const i = Math.floor(r() * (copy.length - n));
    const j = Math.floor(r() * (copy.length - n));
    const a = copy.slice(i, i + n);
    copy.copyWithin(i, j, j + n);
    copy.set(a, j);
    return copy;
  },
  empty: () => new Uint8Array(0),
};

function listFiles(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

test(`${CASES} mutated archives: the reader and the prediction never throw`, async () => {
  const random = mulberry32(SEED);
  const files = listFiles(SOURCE);
  const originals = new Map(files.map((f) => [f, new Uint8Array(fs.readFileSync(path.join(SOURCE, f)))]));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-otf2-fuzz-'));
  const names = Object.keys(MUTATIONS);
  try {
    for (let i = 0; i < CASES; i++) {
      const dir = path.join(work, String(i % 8));
      fs.rmSync(dir, { recursive: true, force: true });
      for (const [file, bytes] of originals) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), bytes);
      }
      // Event files dominate the archive; damage one of them most of the time.
      const target = random() < 0.6 ? files.filter((f) => f.endsWith('.evt'))[Math.floor(random() * 8)] : files[Math.floor(random() * files.length)];
      const mutation = names[Math.floor(random() * names.length)];
      fs.writeFileSync(path.join(dir, target), MUTATIONS[mutation](originals.get(target)!, random));
      const label = `case ${i} (${mutation} of ${target}, seed ${SEED})`;
      const anchor = path.join(dir, 'traces.otf2');
      const archive = openOtf2Archive(anchor);
      if (archive.fatal) {
        assert.ok(archive.fatal.includes(dir), `${label}: the message names the file: ${archive.fatal}`);
        continue;
      }
      for (const problem of archive.problems) assert.ok(problem.file.startsWith(dir) && problem.offset >= 0, `${label}: ${JSON.stringify(problem)}`);
      for (const rank of archive.ranks) {
        if (!fs.existsSync(rank.eventFile)) continue;
        const reader = openRankEvents(archive, rank, 4096);
        let events = 0;
        while (reader.next()) events++;
        assert.ok(events <= 100_000, `${label}: ${events} events from a 10 KB file`);
        for (const problem of reader.problems) assert.ok(problem.file === rank.eventFile && problem.offset >= 0 && problem.message.length > 0, `${label}: ${JSON.stringify(problem)}`);
      }
      try {
        const prediction = await predictScenarios(anchor, [{}, { nodes: 2 }]);
        for (const s of prediction.scenarios) assert.ok(Number.isFinite(s.predictedSeconds) && s.predictedSeconds >= 0, `${label}: ${s.predictedSeconds}`);
      } catch (error) {
        assert.ok(error instanceof ScenarioError, `${label}: ${(error as Error).stack}`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
