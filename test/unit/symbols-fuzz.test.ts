// Fuzz test for the ELF/DWARF symbolizer: thousands of seeded mutations of real binaries gcc
// builds here (DWARF 4, DWARF 5, zlib-compressed sections): truncation, flipped bits, extreme
// values in header fields and DWARF sections, zeroed and duplicated runs. Whatever the damage,
// opening gives an image or a SymbolError naming the file (nothing else is ever thrown), lookups
// never throw and give well-formed answers, and every problem names the file. Set FUZZ_SEED to
// replay another seed; a failure names the case.

import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { mulberry32 } from '../../server/src/causal/random';
import { ElfImage, SymbolError, Symbolized } from '../../server/src/symbols';
import { ElfSection, parseElf } from '../../server/src/symbols/elf';
import { UNEXPECTED, openImage } from '../../server/src/symbols/image';

const FIXTURE = path.join(__dirname, '../../../test/fixtures/symbols');
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const CASES_PER_BINARY = 1500;

interface Source {
  name: string;
  bytes: Buffer;
  sections: ElfSection[];
  /** Addresses worth looking up: every function start and a few bytes in. */
  addresses: number[];
}

let dir: string;
const sources: Source[] = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-symbols-fuzz-'));
  const builds: [string, string[]][] = [
    ['dwarf5', ['-gdwarf-5']],
    ['dwarf4', ['-gdwarf-4']],
    ['zlib', ['-gdwarf-5', '-gz=zlib']],
  ];
  for (const [name, flags] of builds) {
    const out = path.join(dir, name);
    await promisify(execFile)('gcc', ['-O2', '-g', ...flags, '-o', out, path.join(FIXTURE, 'main.c'), path.join(FIXTURE, 'checksum.c')]);
    const bytes = fs.readFileSync(out);
    const elf = parseElf(bytes, out);
    const addresses = [...elf.symbols.starts].flatMap((a) => [a, a + 3, a + 17]);
    sources.push({ name, bytes, sections: elf.sections, addresses });
  }
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

type Mutation = (b: Buffer, s: Source, r: () => number) => Buffer;

const int = (r: () => number, n: number) => Math.floor(r() * n);
const EXTREMES = [0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0xfffffff0];

/** A random byte offset, half the time inside a section this reader parses (headers, DWARF, symbols). */
function target(b: Buffer, s: Source, r: () => number): number {
  const parsed = s.sections.filter((x) => /^\.(debug_|symtab|strtab|dynsym|note|shstrtab)/.test(x.name) && x.offset + x.size <= b.length);
  if (r() < 0.5 || parsed.length === 0) return r() < 0.3 ? int(r, Math.min(b.length, 64)) : int(r, b.length);
  const section = parsed[int(r, parsed.length)];
  return section.offset + int(r, Math.max(1, section.size));
}

const MUTATIONS: Record<string, Mutation> = {
  truncate: (b, _s, r) => b.subarray(0, int(r, b.length + 1)),
  flipBits: (b, s, r) => {
    for (let n = 1 + int(r, 8); n > 0; n--) {
      const at = target(b, s, r);
      if (at < b.length) b[at] ^= 1 << int(r, 8);
    }
    return b;
  },
  extremeField: (b, s, r) => {
    const at = target(b, s, r);
    const value = EXTREMES[int(r, EXTREMES.length)];
    if (at + 4 <= b.length) b.writeUInt32LE(value >>> 0, at);
    if (r() < 0.3 && at + 8 <= b.length) b.writeUInt32LE(value >>> 0, at + 4);
    return b;
  },
  sectionHeaderField: (b, _s, r) => {
    if (b.length < 64) return b;
    const shoff = b.readUInt32LE(0x28);
    const shnum = b.readUInt16LE(0x3c);
    const at = shoff + 64 * int(r, Math.max(1, shnum)) + 8 * int(r, 8);
    if (at + 8 <= b.length) b.writeUInt32LE(EXTREMES[int(r, EXTREMES.length)] >>> 0, at);
    return b;
  },
  elfHeaderField: (b, _s, r) => {
    if (b.length < 64) return b;
    const at = 16 + 2 * int(r, 24);
    b.writeUInt16LE(EXTREMES[int(r, EXTREMES.length)] & 0xffff, at);
    return b;
  },
  zeroRun: (b, s, r) => {
    const at = target(b, s, r);
    b.fill(0, at, Math.min(b.length, at + 1 + int(r, 256)));
    return b;
  },
  garbageRun: (b, s, r) => {
    const at = target(b, s, r);
    for (let i = at; i < Math.min(b.length, at + 1 + int(r, 64)); i++) b[i] = r() < 0.5 ? 0xff : int(r, 256);
    return b;
  },
  duplicateRun: (b, s, r) => {
    const from = target(b, s, r);
    const to = target(b, s, r);
    b.copyWithin(to, from, Math.min(b.length, from + 1 + int(r, 512)));
    return b;
  },
};

function assertWellFormed(result: Symbolized, where: string): void {
  if (result.function !== undefined) assert.equal(typeof result.function, 'string', where);
  if (result.functionOffset !== undefined) assert.ok(Number.isFinite(result.functionOffset) && result.functionOffset >= 0, where);
  if (result.line) {
    assert.equal(typeof result.line.file, 'string', where);
    assert.ok(Number.isInteger(result.line.line) && result.line.line >= 0, where);
  }
  assert.ok(Array.isArray(result.inlined), where);
  for (const frame of result.inlined!) {
    assert.equal(typeof frame.function, 'string', where);
    assert.ok(Number.isInteger(frame.callSite.line), where);
  }
}

test(`${CASES_PER_BINARY} mutations per binary: an image or a SymbolError, never anything else`, () => {
  const random = mulberry32(SEED);
  const names = Object.keys(MUTATIONS);
  const outcomes = { opened: 0, refused: 0 };
  let problemsSeen = 0;
  for (const source of sources) {
    for (let c = 0; c < CASES_PER_BINARY; c++) {
      const applied: string[] = [];
      let bytes = Buffer.alloc(source.bytes.length);
      bytes.set(source.bytes);
      for (let n = 1 + int(random, 3); n > 0; n--) {
        const name = names[int(random, names.length)];
        applied.push(name);
        bytes = MUTATIONS[name](bytes, source, random);
      }
      const where = `FUZZ_SEED=${SEED} ${source.name} case ${c} (${applied.join(', ')})`;
      const file = `${source.name}-case-${c}`;
      let image: ElfImage;
      try {
        image = openImage(bytes, file);
      } catch (error) {
        assert.ok(error instanceof SymbolError, `${where}: threw ${(error as Error).stack}`);
        assert.ok(error.message.startsWith(file), `${where}: message names the file: ${error.message}`);
        // openImage wraps an unexpected exception (a reader bug) in this wording: there must be none.
        assert.ok(!error.message.includes(UNEXPECTED), `${where}: ${error.message}`);
        outcomes.refused++;
        continue;
      }
      outcomes.opened++;
      problemsSeen += image.problems.length;
      for (const problem of image.problems) assert.ok(problem.startsWith(file), `${where}: problem names the file: ${problem}`);
      const addresses = [...source.addresses, int(random, 2 ** 20), 2 ** 53];
      image.symbolizeMany(addresses).forEach((result) => assertWellFormed(result, where));
      image.fileOffsetToVaddr(int(random, bytes.length));
    }
  }
  // Refusals, and damage reported on images that opened, must both occur, or the mutations are
  // too weak (or too strong) to test anything.
  assert.ok(outcomes.opened > 0 && outcomes.refused > 0 && problemsSeen > 0, JSON.stringify({ ...outcomes, problemsSeen }));
});
