// ELF64 little-endian reader: headers, PT_LOAD segments, sections (SHF_COMPRESSED zlib
// inflated), function symbols and the GNU build-id.
// Format: System V ABI, "Object Files" chapter (gABI 4.1, https://www.sco.com/developers/gabi/latest/ch4.intro.html)
// and the x86-64 psABI; build-id notes: binutils `ld --build-id` (NT_GNU_BUILD_ID = 3, owner "GNU").
// 32-bit and big-endian files get a SymbolError: every target this tool profiles is x86-64/aarch64 LE.

import * as zlib from 'zlib';
import { ByteReader, stringAt } from './byteReader';
import { SymbolError } from './symbolError';

export interface ElfSection {
  name: string;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

export interface LoadSegment {
  fileOffset: number;
  vaddr: number;
  fileSize: number;
  memSize: number;
  executable: boolean;
}

/** Function symbols sorted by start; `sizes[i]` 0 means "until the next symbol". */
export interface FunctionSymbols {
  starts: Float64Array;
  sizes: Float64Array;
  names: string[];
  source: '.symtab' | '.dynsym' | 'none';
}

export interface ElfFile {
  path: string;
  isPositionIndependent: boolean;
  loadSegments: LoadSegment[];
  sections: ElfSection[];
  buildId?: string;
  symbols: FunctionSymbols;
  /** Section contents by name, decompressed; undefined when absent or SHT_NOBITS. */
  section(name: string): Buffer | undefined;
  /** Problems that did not stop the read (a bad symbol table, a compressed section we cannot inflate). */
  problems: string[];
}

const ET_EXEC = 2;
const ET_DYN = 3;
const PT_LOAD = 1;
const PF_X = 1;
const SHT_SYMTAB = 2;
const SHT_NOTE = 7;
const SHT_NOBITS = 8;
const SHT_DYNSYM = 11;
const SHF_COMPRESSED = 0x800;
const ELFCOMPRESS_ZLIB = 1;
const ELFCOMPRESS_ZSTD = 2;
const STT_FUNC = 2;
const STT_GNU_IFUNC = 10;
const NT_GNU_BUILD_ID = 3;
const SYMBOL_SIZE = 24;

export function parseElf(buf: Buffer, path: string): ElfFile {
  if (buf.length < 16 || buf.readUInt32BE(0) !== 0x7f454c46) throw new SymbolError(`${path}: not an ELF file (no \\x7fELF magic at offset 0)`);
  if (buf[4] !== 2) throw new SymbolError(`${path}: 32-bit ELF (EI_CLASS ${buf[4]} at offset 4) is not supported; only 64-bit ELF is`);
  if (buf[5] !== 1) throw new SymbolError(`${path}: big-endian ELF (EI_DATA ${buf[5]} at offset 5) is not supported; only little-endian is`);
  const header = new ByteReader(buf, `${path} ELF header`, 16);
  const type = header.u16();
  header.skip(2 + 4 + 8); // e_machine, e_version, e_entry
  const phoff = header.u64();
  const shoff = header.u64();
  header.skip(4 + 2); // e_flags, e_ehsize
  const phentsize = header.u16();
  const phnum = header.u16();
  const shentsize = header.u16();
  let shnum = header.u16();
  let shstrndx = header.u16();
  if (type !== ET_EXEC && type !== ET_DYN) throw new SymbolError(`${path}: ELF type ${type} at offset 0x10 is not an executable or shared object`);

  const loadSegments = readSegments(buf, path, phoff, phentsize, phnum);
  const problems: string[] = [];
  let sections: ElfSection[] = [];
  if (shoff !== 0) {
    if (shentsize < 64) throw new SymbolError(`${path}: section header size ${shentsize} at offset 0x3a is below 64`);
    const first = new ByteReader(buf, `${path} section headers`, shoff);
    // Extended numbering: more than 0xff00 sections put the real counts in section 0.
    if (shnum === 0 || shstrndx === 0xffff) {
      first.skip(32);
      const size0 = first.u64();
      const link0 = first.u32();
      if (shnum === 0) shnum = size0;
      if (shstrndx === 0xffff) shstrndx = link0;
    }
    sections = readSections(buf, path, shoff, shentsize, shnum, shstrndx, problems);
  }

  const cache = new Map<string, Buffer | undefined>();
  const section = (name: string): Buffer | undefined => {
    if (!cache.has(name)) cache.set(name, sectionData(buf, path, sections.find((s) => s.name === name), problems));
    return cache.get(name);
  };
  return {
    path,
    isPositionIndependent: type === ET_DYN,
    loadSegments,
    sections,
    buildId: findBuildId(buf, path, sections, problems),
    symbols: readFunctionSymbols(buf, path, sections, problems),
    section,
    problems,
  };
}

function readSegments(buf: Buffer, path: string, phoff: number, phentsize: number, phnum: number): LoadSegment[] {
  if (phnum === 0) return [];
  if (phentsize < 56) throw new SymbolError(`${path}: program header size ${phentsize} at offset 0x36 is below 56`);
  const segments: LoadSegment[] = [];
  for (let i = 0; i < phnum; i++) {
    const r = new ByteReader(buf, `${path} program header ${i}`, phoff + i * phentsize);
    const ptype = r.u32();
    const flags = r.u32();
    const fileOffset = r.u64();
    const vaddr = r.u64();
    r.skip(8);
    const fileSize = r.u64();
    const memSize = r.u64();
    if (ptype === PT_LOAD) segments.push({ fileOffset, vaddr, fileSize, memSize, executable: (flags & PF_X) !== 0 });
  }
  return segments;
}

function readSections(buf: Buffer, path: string, shoff: number, shentsize: number, shnum: number, shstrndx: number, problems: string[]): ElfSection[] {
  const sections: ElfSection[] = [];
  const count = Math.min(shnum, Math.floor((buf.length - shoff) / shentsize));
  if (count < shnum) problems.push(`${path}: ${shnum - count} of ${shnum} section headers lie past the end of the file (truncated?)`);
  const nameOffsets: number[] = [];
  for (let i = 0; i < count; i++) {
    const r = new ByteReader(buf, `${path} section header ${i}`, shoff + i * shentsize);
    nameOffsets.push(r.u32());
    const type = r.u32();
    const flags = r.u64();
    const addr = r.u64();
    const offset = r.u64();
    const size = r.u64();
    const link = r.u32();
    r.skip(4 + 8);
    const entsize = r.u64();
    sections.push({ name: '', type, flags, addr, offset, size, link, entsize });
  }
  const names = shstrndx < sections.length ? rawSection(buf, sections[shstrndx]) : undefined;
  if (!names) {
    problems.push(`${path}: section name table (index ${shstrndx}) is missing or outside the file; sections are unnamed`);
    return sections;
  }
  sections.forEach((s, i) => {
    if (nameOffsets[i] < names.length) s.name = stringAt(names, nameOffsets[i], path);
  });
  return sections;
}

function rawSection(buf: Buffer, s: ElfSection): Buffer | undefined {
  if (s.type === SHT_NOBITS || s.offset + s.size > buf.length) return undefined;
  return buf.subarray(s.offset, s.offset + s.size);
}

function sectionData(buf: Buffer, path: string, s: ElfSection | undefined, problems: string[]): Buffer | undefined {
  if (!s || s.type === SHT_NOBITS) return undefined;
  const raw = rawSection(buf, s);
  if (!raw) {
    problems.push(`${path}: section ${s.name} (offset 0x${s.offset.toString(16)}, size ${s.size}) runs past the end of the file`);
    return undefined;
  }
  if ((s.flags & SHF_COMPRESSED) === 0) return raw;
  if (raw.length < 24) {
    problems.push(`${path}: compressed section ${s.name} is shorter than its 24-byte header`);
    return undefined;
  }
  const kind = raw.readUInt32LE(0);
  if (kind === ELFCOMPRESS_ZSTD) {
    problems.push(`${path}: section ${s.name} is zstd-compressed (-gz=zstd), which Node 20 cannot inflate; rebuild with -gz=zlib or without -gz`);
    return undefined;
  }
  if (kind !== ELFCOMPRESS_ZLIB) {
    problems.push(`${path}: section ${s.name} uses unknown compression ${kind}`);
    return undefined;
  }
  try {
    return zlib.inflateSync(new Uint8Array(raw.buffer as ArrayBuffer, raw.byteOffset + 24, raw.length - 24));
  } catch (error) {
    problems.push(`${path}: section ${s.name} does not inflate: ${(error as Error).message}`);
    return undefined;
  }
}

function findBuildId(buf: Buffer, path: string, sections: ElfSection[], problems: string[]): string | undefined {
  for (const s of sections) {
    if (s.type !== SHT_NOTE) continue;
    const data = rawSection(buf, s);
    if (!data) continue;
    const r = new ByteReader(data, `${path} ${s.name}`);
    try {
      while (r.remaining >= 12) {
        const nameSize = r.u32();
        const descSize = r.u32();
        const noteType = r.u32();
        const name = data.toString('latin1', r.pos, Math.min(r.end, r.pos + nameSize));
        r.skip(align4(nameSize));
        const descStart = r.pos;
        r.skip(align4(descSize));
        if (noteType === NT_GNU_BUILD_ID && name === 'GNU\0') return data.toString('hex', descStart, descStart + descSize);
      }
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return undefined;
}

const align4 = (n: number) => (n + 3) & ~3;

function readFunctionSymbols(buf: Buffer, path: string, sections: ElfSection[], problems: string[]): FunctionSymbols {
  const table = sections.find((s) => s.type === SHT_SYMTAB) ?? sections.find((s) => s.type === SHT_DYNSYM);
  const none: FunctionSymbols = { starts: new Float64Array(0), sizes: new Float64Array(0), names: [], source: 'none' };
  if (!table) return none;
  const data = rawSection(buf, table);
  const strings = table.link < sections.length ? rawSection(buf, sections[table.link]) : undefined;
  if (!data || !strings) {
    problems.push(`${path}: symbol table ${table.name} or its string table lies outside the file`);
    return none;
  }
  const found: { start: number; size: number; name: string; rank: number }[] = [];
  const count = Math.floor(data.length / SYMBOL_SIZE);
  if (data.length % SYMBOL_SIZE !== 0) problems.push(`${path}: ${table.name} size ${data.length} is not a multiple of ${SYMBOL_SIZE}; the partial entry is skipped`);
  let badNames = 0;
  for (let i = 1; i < count; i++) {
    const at = i * SYMBOL_SIZE;
    const info = data[at + 4];
    const kind = info & 0xf;
    const shndx = data.readUInt16LE(at + 6);
    if ((kind !== STT_FUNC && kind !== STT_GNU_IFUNC) || shndx === 0) continue;
    const nameOffset = data.readUInt32LE(at);
    if (nameOffset >= strings.length) {
      badNames++;
      continue;
    }
    const start = data.readUInt32LE(at + 12) * 4294967296 + data.readUInt32LE(at + 8);
    const size = data.readUInt32LE(at + 20) * 4294967296 + data.readUInt32LE(at + 16);
    // Aliases at one address: a global name beats a weak one beats a local one, as perf shows.
    const binding = info >> 4;
    const rank = binding === 1 ? 0 : binding === 2 ? 1 : 2;
    found.push({ start, size, name: stringAt(strings, nameOffset, path), rank });
  }
  if (badNames > 0) problems.push(`${path}: ${badNames} function symbols in ${table.name} have a name offset outside the string table; skipped`);
  found.sort((a, b) => a.start - b.start || a.rank - b.rank || a.name.localeCompare(b.name));
  const kept = found.filter((f, i) => i === 0 || found[i - 1].start !== f.start);
  return {
    starts: Float64Array.from(kept, (f) => f.start),
    sizes: Float64Array.from(kept, (f) => f.size),
    names: kept.map((f) => f.name),
    source: table.type === SHT_SYMTAB ? '.symtab' : '.dynsym',
  };
}

/** Index of the last element ≤ value in an ascending array, or -1. */
export function lastAtOrBelow(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
