// The ELF/DWARF symbolizer against llvm-symbolizer, on binaries gcc builds here at test time:
// the fixture program at DWARF 2–5, a generated multi-unit -O2 program (deep inlining) at
// DWARF 4 and 5, compressed debug sections, stripped and split-DWARF builds, damaged headers.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ElfImage, SymbolError, openElf, symbolCache } from '../../server/src/symbols';
import { parseElf } from '../../server/src/symbols/elf';
import { agreement, llvmSymbolize, sampleAddresses } from '../../bench/symbols-reference';
import { buildLargeBinary } from '../../bench/gen-large-c';

const run = promisify(execFile);
const FIXTURE = path.join(__dirname, '../../../test/fixtures/symbols');
const SOURCES = ['main.c', 'checksum.c'].map((f) => path.join(FIXTURE, f));
/** Small enough to build in a few seconds, big enough for thousands of inlined addresses. */
const LARGE = { units: 16, functionsPerUnit: 30, headers: 8, seed: 11 };

let dir: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-symbols-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function gcc(name: string, ...flags: string[]): Promise<string> {
  const out = path.join(dir, name);
  await run('gcc', ['-O2', ...flags, '-o', out, ...SOURCES], { cwd: dir });
  return out;
}

async function assertAgrees(binary: string, randomCount: number): Promise<ElfImage> {
  const image = openElf(binary);
  const addresses = sampleAddresses(binary, randomCount);
  const result = agreement(addresses, image.symbolizeMany(addresses), await llvmSymbolize(binary, addresses));
  assert.ok(sampleAddresses(binary, 0).length > 20, `${binary}: the sample has line-table rows`);
  assert.ok(result.agreed / result.total >= 0.999, `${binary}: ${result.agreed} of ${result.total} agree with llvm-symbolizer\n${result.examples.join('\n')}`);
  assert.deepEqual(image.problems, []);
  return image;
}

/** The line in a fixture source holding `text`, 1-based. */
function lineOf(file: string, text: string): number {
  const index = fs.readFileSync(path.join(FIXTURE, file), 'utf8').split('\n').findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${text} in ${file}`);
  return index + 1;
}

for (const version of [2, 3, 4, 5]) {
  test(`DWARF ${version} line programs and inlined frames agree with llvm-symbolizer`, async () => {
    const image = await assertAgrees(await gcc(`fixture-dwarf${version}`, '-g', `-gdwarf-${version}`), 200);
    assert.equal(image.hasDebugLine, true);
    // fill() inlines mix() from the header: some address must say so, with fill's call line.
    const callLine = lineOf('main.c', 'data[i] = mix(');
    const addresses = sampleAddresses(image.path, 0);
    const inlinedMix = image.symbolizeMany(addresses).filter((s) => s.inlined?.some((f) => f.function === 'mix' && f.callSite.line === callLine));
    assert.ok(inlinedMix.length > 0, 'mix inlined into fill at its call line');
    for (const s of inlinedMix) {
      assert.equal(s.line?.file, path.join(FIXTURE, 'mathops.h'));
      assert.equal(s.inlined!.at(-1)!.callSite.file, path.join(FIXTURE, 'main.c'));
    }
  });
}

for (const version of [4, 5]) {
  test(`a generated multi-unit -O2 program at DWARF ${version}: at least 99.9% agreement, inline chains included`, async () => {
    const binary = await buildLargeBinary(path.join(dir, `large${version}`), version, LARGE);
    const image = await assertAgrees(binary, 5000);
    const depths = image.symbolizeMany(sampleAddresses(binary, 0)).map((s) => s.inlined?.length ?? 0);
    assert.ok(Math.max(...depths) >= 3, 'helpers calling helpers inline several levels deep');
  });
}

test('zlib-compressed debug sections (-gz) give the same answers as uncompressed ones', async () => {
  const plain = openElf(await gcc('plain', '-g'));
  const compressed = openElf(await gcc('compressed', '-g', '-gz=zlib'));
  assert.ok(parseElf(fs.readFileSync(compressed.path), compressed.path).sections.some((s) => s.name === '.debug_line' && (s.flags & 0x800) !== 0));
  const addresses = sampleAddresses(plain.path, 0);
  assert.ok(addresses.length > 50);
  assert.deepEqual(compressed.symbolizeMany(addresses), plain.symbolizeMany(addresses));
});

test('a zstd-compressed section is named with how to rebuild, and the symbol table still works', async () => {
  const binary = await gcc('zstd', '-g', '-gz=zlib');
  const buf = fs.readFileSync(binary);
  const line = parseElf(buf, binary).sections.find((s) => s.name === '.debug_line')!;
  buf.writeUInt32LE(2, line.offset); // ch_type ELFCOMPRESS_ZSTD, which gcc here cannot produce
  const patched = path.join(dir, 'zstd-patched');
  fs.writeFileSync(patched, new Uint8Array(buf));
  const image = openElf(patched);
  assert.equal(image.hasDebugLine, false);
  assert.ok(image.problems.some((p) => p.includes('.debug_line') && p.includes('zstd')), image.problems.join('\n'));
  const main = symbolAddress(image, 'main');
  assert.equal(image.symbolize(main).function, 'main');
});

/** The address of a function symbol, found through the image itself by scanning .text. */
function symbolAddress(image: ElfImage, name: string): number {
  const elf = parseElf(fs.readFileSync(image.path), image.path);
  const i = elf.symbols.names.indexOf(name);
  assert.ok(i >= 0, `${name} in the symbol table`);
  return elf.symbols.starts[i];
}

test('stripped of debug info: function + offset from .symtab, as llvm-symbolizer names them', async () => {
  const binary = await gcc('nodebug', '-g');
  await run('strip', ['--strip-debug', binary]);
  const image = openElf(binary);
  assert.equal(image.hasDebugLine, false);
  const main = symbolAddress(image, 'main');
  const result = image.symbolize(main + 5);
  assert.equal(result.function, 'main');
  assert.equal(result.functionOffset, 5);
  assert.equal(result.line, undefined);
  const [frames] = await llvmSymbolize(binary, [main + 5]);
  assert.equal(frames[0].FunctionName, 'main');
});

test('fully stripped: no names, and a problem saying so', async () => {
  const binary = await gcc('stripped', '-g', '-s');
  const image = openElf(binary);
  const text = parseElf(fs.readFileSync(binary), binary).sections.find((s) => s.name === '.text')!;
  assert.deepEqual(image.symbolize(text.addr + 4), { inlined: [] });
  assert.ok(image.problems.some((p) => p.includes('fully stripped')), image.problems.join('\n'));
});

test('build-id matches readelf, PT_LOAD segments map file offsets to addresses', async () => {
  const binary = await gcc('buildid', '-g', '-Wl,--build-id=sha1');
  const image = openElf(binary);
  const { stdout } = await run('readelf', ['-n', binary]);
  assert.equal(image.buildId, /Build ID: ([0-9a-f]+)/.exec(stdout)![1]);
  assert.equal(image.isPositionIndependent, true);
  const text = parseElf(fs.readFileSync(binary), binary).sections.find((s) => s.name === '.text')!;
  assert.equal(image.fileOffsetToVaddr(text.offset + 16), text.addr + 16);
  assert.ok(image.loadSegments.some((s) => s.executable && s.vaddr <= text.addr && text.addr < s.vaddr + s.memSize));
  assert.equal(image.fileOffsetToVaddr(fs.statSync(binary).size + 4096), undefined);
  const fixed = openElf(await gcc('nopie', '-g', '-no-pie'));
  assert.equal(fixed.isPositionIndependent, false);
});

test('split DWARF (-gsplit-dwarf) is refused with a SymbolError that says how to rebuild', async () => {
  const binary = await gcc('split', '-g', '-gsplit-dwarf');
  assert.throws(() => openElf(binary), (e: unknown) => e instanceof SymbolError && /split DWARF.*rebuild without -gsplit-dwarf/.test(e.message) && e.message.includes(binary));
});

test('32-bit, big-endian, non-ELF and missing files are SymbolErrors naming the file and offset', async () => {
  const binary = await gcc('header', '-g');
  const variants: [string, (b: Buffer) => void, RegExp][] = [
    ['elf32', (b) => (b[4] = 1), /32-bit ELF .*offset 4/],
    ['bigendian', (b) => (b[5] = 2), /big-endian ELF .*offset 5/],
    ['notelf', (b) => (b[1] = 0x46), /not an ELF file/],
    ['truncated', () => undefined, /ELF header at offset 0x[0-9a-f]+: truncated/],
  ];
  for (const [name, patch, message] of variants) {
    const buf = name === 'truncated' ? fs.readFileSync(binary).subarray(0, 40) : fs.readFileSync(binary);
    patch(buf);
    const file = path.join(dir, name);
    fs.writeFileSync(file, new Uint8Array(buf));
    assert.throws(() => openElf(file), (e: unknown) => e instanceof SymbolError && message.test(e.message) && e.message.startsWith(file), name);
  }
  assert.throws(() => openElf(path.join(dir, 'absent')), (e: unknown) => e instanceof SymbolError && /absent: cannot read: no such file/.test(e.message));
});

test('symbolCache opens each path once and keeps the error of an unusable one', async () => {
  const binary = await gcc('cached', '-g');
  const cache = symbolCache();
  const image = cache.get(binary);
  assert.ok(!(image instanceof SymbolError));
  assert.equal(cache.get(binary), image);
  const missing = cache.get(path.join(dir, 'nothing'));
  assert.ok(missing instanceof SymbolError);
  assert.equal(cache.get(path.join(dir, 'nothing')), missing);
});
