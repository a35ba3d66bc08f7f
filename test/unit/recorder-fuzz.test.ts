// Fuzz test for the spool-to-OTF2 converter (recorder/otf2_out.c, the reader of the recorder's
// spool): seeded mutations of a real spool recorded here (cut files, flipped bytes, duplicated or
// garbage records, damaged or missing metadata and communicator lines). Whatever the damage, the
// converter must end normally (never a signal), report each problem naming the file, and when
// it says it wrote an archive, otf2-print must read it. Set FUZZ_SEED to replay another seed.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mulberry32 } from '../../server/src/causal/random';
import { recordTrace } from '../../server/src/mpi/recordTrace';
import { buildMpi, MPI_BUILD } from './mpiBuild';

const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-spool-fuzz-'));
after(() => fs.rmSync(WORK, { recursive: true, force: true }));
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const CASES = 60;
const RECORD = 48;

let spool = '';
before(async () => {
  buildMpi();
  const source = path.join(WORK, 'source');
  const run = await recordTrace({ np: 3, outDir: source, program: path.join(MPI_BUILD, 'halo'), args: ['300', '30'], flushThresholdBytes: 20_000 });
  assert.equal(run.exitCode, 0);
  spool = path.join(source, 'spool');
});

type Mutation = (dir: string, random: () => number) => void;
const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)];
const files = (dir: string, ext: string) => fs.readdirSync(dir).filter((n) => n.endsWith(ext)).map((n) => path.join(dir, n));

function editBytes(file: string, edit: (bytes: Uint8Array) => Uint8Array) {
  fs.writeFileSync(file, edit(new Uint8Array(fs.readFileSync(file))));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) out.set(part, at), (at += part.length);
  return out;
}

const MUTATIONS: Record<string, Mutation> = {
  cutEvents: (dir, r) => editBytes(pick(files(dir, '.evt'), r), (b) => b.subarray(0, Math.floor(r() * b.length))),
  flipEventBytes: (dir, r) =>
    editBytes(pick(files(dir, '.evt'), r), (b) => {
      for (let n = 1 + Math.floor(r() * 16); n > 0 && b.length; n--) b[Math.floor(r() * b.length)] ^= 1 << Math.floor(r() * 8);
      return b;
    }),
  duplicateRecords: (dir, r) =>
    editBytes(pick(files(dir, '.evt'), r), (b) => {
      const at = Math.floor((r() * b.length) / RECORD) * RECORD;
      return concat([b.subarray(0, at), b.subarray(at, at + RECORD * 5), b.subarray(at)]);
    }),
  garbageRecords: (dir, r) =>
    editBytes(pick(files(dir, '.evt'), r), (b) => {
      const junk = new Uint8Array(RECORD * (1 + Math.floor(r() * 4)));
      for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(r() * 256);
      const at = Math.floor(r() * b.length);
      return concat([b.subarray(0, at), junk, b.subarray(at)]);
    }),
  removeEvents: (dir, r) => fs.rmSync(pick(files(dir, '.evt'), r)),
  removeMeta: (dir, r) => fs.rmSync(pick(files(dir, '.meta'), r)),
  damageMeta: (dir, r) =>
    editBytes(pick(files(dir, '.meta'), r), (b) => {
      const lines = new TextDecoder().decode(b).split('\n');
      lines[Math.floor(r() * lines.length)] = pick(['start_ns -5', 'host', 'rank x', 'finished', '\0\0\0', 'cpu_set ' + 'x'.repeat(900)], r);
      return new TextEncoder().encode(lines.join('\n'));
    }),
  damageComms: (dir, r) =>
    editBytes(pick(files(dir, '.comm'), r), (b) =>
      new TextEncoder().encode(new TextDecoder().decode(b) + pick(['0.0 99 1 2\n', 'world 3 0 1\n', 'x -1\n', '1.1 2 0 7\n', 'k 4294967295 0\n'], r)),
    ),
  removeComms: (dir, r) => fs.rmSync(pick(files(dir, '.comm'), r)),
  strayMeta: (dir, r) => fs.writeFileSync(path.join(dir, `rank-${3 + Math.floor(r() * 5)}.meta`), 'rank 9\n'),
};

function run(program: string, args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(program, args, { maxBuffer: 1 << 28 }, (error, _stdout, stderr) => {
      const failed = error as (Error & { code?: number; signal?: string }) | null;
      resolve({ code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0, signal: failed?.signal ?? null, stderr });
    });
  });
}

test(`the converter survives ${CASES} damaged spools and every archive it writes is readable`, async () => {
  const random = mulberry32(SEED);
  const names = Object.keys(MUTATIONS);
  for (let i = 0; i < CASES; i++) {
    const dir = path.join(WORK, `case-${i}`);
    fs.cpSync(spool, path.join(dir, 'spool'), { recursive: true });
    const applied = [pick(names, random), pick(names, random)];
    for (const name of applied) MUTATIONS[name](path.join(dir, 'spool'), random);
    const what = `case ${i} (${applied.join(', ')}, seed ${SEED})`;
    const converted = await run(path.join(MPI_BUILD, 'causal-lens-otf2'), ['--reason', 'fuzz', dir]);
    assert.equal(converted.signal, null, `${what}: the converter was killed`);
    assert.ok(converted.code === 0 || converted.code === 1, `${what}: exit ${converted.code}`);
    for (const line of converted.stderr.split('\n').filter(Boolean)) {
      assert.match(line, /^causal-lens-otf2: \S+/, `${what}: every problem names a file: "${line}"`);
    }
    if (converted.code === 0) {
      const read = await run('otf2-print', ['--silent', path.join(dir, 'traces.otf2')]);
      assert.equal(read.code, 0, `${what}: otf2-print reads the archive: ${read.stderr}`);
    }
    fs.rmSync(dir, { recursive: true });
  }
});
