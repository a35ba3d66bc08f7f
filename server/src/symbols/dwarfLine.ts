// .debug_line reader, DWARF 2 to 5: unit headers (32- and 64-bit DWARF, DWARF 5 entry
// formats), the line-number state machine, and one address-sorted row table for lookups.
// Format: DWARF Debugging Information Format, version 5 (https://dwarfstd.org/doc/DWARF5.pdf)
// §6.2 "Line Number Information"; versions 2–4 in §6.2 of their own standards.
// File names follow llvm-symbolizer's AbsoluteFilePath rule (LLVM DWARFDebugLine.cpp,
// Prologue::getFileNameByIndex), then are normalized (no "." or ".." segments).
// VLIW op_index (maximum_operations_per_instruction > 1) is not modelled: no x86/ARM compiler emits it.

import * as path from 'path';
import { ByteReader, stringAt } from './byteReader';
import { lastAtOrBelow } from './elf';

/** Sections a line program may point into; `where` prefixes messages (the ELF path). */
export interface LineSections {
  where: string;
  line: Buffer;
  str?: Buffer;
  lineStr?: Buffer;
}

/** All sequences of all units, merged: rows ascending by address; an end_sequence row has file -1. */
export class LineTable {
  constructor(
    readonly addresses: Float64Array,
    readonly files: Int32Array,
    readonly lines: Uint32Array,
    readonly columns: Uint32Array,
    readonly fileNames: string[],
    /** Per unit (by .debug_line offset): index as used by the unit's rows and DW_AT_call_file → fileNames index, -1 if none. */
    readonly unitFiles: Map<number, Int32Array>,
  ) {}

  get rowCount(): number {
    return this.addresses.length;
  }

  /** The row covering vaddr, as llvm-symbolizer picks it: the last row at or below it in its sequence. */
  rowFor(vaddr: number): number {
    const i = lastAtOrBelow(this.addresses, vaddr);
    return i >= 0 && this.files[i] >= 0 ? i : -1;
  }

  fileOf(unitOffset: number, fileIndex: number): string | undefined {
    const files = this.unitFiles.get(unitOffset);
    const global = files && fileIndex < files.length ? files[fileIndex] : -1;
    return global >= 0 ? this.fileNames[global] : undefined;
  }
}

export interface LineTableResult {
  table: LineTable;
  problems: string[];
  /** Counted by reason: rows of sequences dropped because they overlap another, or are empty. */
  skipped: Record<string, number>;
}

interface Sequence {
  start: number;
  end: number;
  addresses: number[];
  files: number[];
  lines: number[];
  columns: number[];
}

const DW_LNCT_path = 1;
const DW_LNCT_directory_index = 2;

/**
 * Reads every unit in .debug_line. `compDirs` maps a unit's offset (a CU's DW_AT_stmt_list) to
 * that CU's DW_AT_comp_dir, which DWARF 2–4 file names are relative to. A damaged unit is reported
 * and skipped by its length; rows read before the damage in that unit are kept.
 */
export function readLineTable(sections: LineSections, compDirs: Map<number, string>): LineTableResult {
  const problems: string[] = [];
  const skipped: Record<string, number> = {};
  const fileNames: string[] = [];
  const fileIds = new Map<string, number>();
  const unitFiles = new Map<number, Int32Array>();
  const sequences: Sequence[] = [];
  const internFile = (name: string): number => {
    let id = fileIds.get(name);
    if (id === undefined) {
      id = fileNames.length;
      fileNames.push(name);
      fileIds.set(name, id);
    }
    return id;
  };

  const r = new ByteReader(sections.line, `${sections.where} .debug_line`);
  while (r.remaining > 0) {
    const unitOffset = r.pos;
    let unitEnd: number;
    try {
      ({ unitEnd } = r.initialLength());
    } catch (error) {
      problems.push((error as Error).message);
      break;
    }
    try {
      readUnit(r, unitOffset, unitEnd, sections, compDirs.get(unitOffset) ?? '', internFile, unitFiles, sequences);
    } catch (error) {
      problems.push((error as Error).message);
    }
    r.pos = unitEnd;
  }
  return { table: mergeSequences(sequences, fileNames, unitFiles, skipped), problems, skipped };
}

function readUnit(
  r: ByteReader,
  unitOffset: number,
  unitEnd: number,
  sections: LineSections,
  compDir: string,
  internFile: (name: string) => number,
  unitFiles: Map<number, Int32Array>,
  sequences: Sequence[],
): void {
  const outerEnd = r.end;
  r.end = unitEnd;
  try {
    const offsetSize = r.pos - unitOffset === 12 ? 8 : 4;
    const version = r.u16();
    if (version < 2 || version > 5) r.fail(`line table version ${version} (unit at 0x${unitOffset.toString(16)}) is not DWARF 2–5`);
    let addressSize = 8;
    if (version >= 5) {
      addressSize = r.u8();
      r.u8(); // segment_selector_size
    }
    const headerLength = r.unsigned(offsetSize);
    const programStart = r.pos + headerLength;
    if (programStart > unitEnd) r.fail(`header_length 0x${headerLength.toString(16)} runs past the unit end`);
    const minInstLength = r.u8();
    if (version >= 4) r.u8(); // maximum_operations_per_instruction
    r.u8(); // default_is_stmt: llvm-symbolizer uses every row, statement or not
    const lineBase = r.i8();
    const lineRange = r.u8();
    const opcodeBase = r.u8();
    if (lineRange === 0) r.fail('line_range is 0');
    const opcodeLengths: number[] = [0];
    for (let i = 1; i < opcodeBase; i++) opcodeLengths.push(r.u8());

    const names = version >= 5 ? readV5Files(r, sections, offsetSize, compDir) : readV4Files(r, compDir);
    const local = Int32Array.from(names, (n) => (n === undefined ? -1 : internFile(n)));
    unitFiles.set(unitOffset, local);

    r.pos = programStart;
    runProgram(r, { minInstLength, lineBase, lineRange, opcodeBase, opcodeLengths, addressSize, version, compDir }, local, internFile, unitFiles, unitOffset, sequences);
  } finally {
    r.end = outerEnd;
  }
}

/** DWARF 2–4: include_directories then file_names, each list ended by an empty string. Index 0 is unused. */
function readV4Files(r: ByteReader, compDir: string): (string | undefined)[] {
  const dirs: string[] = [];
  for (let d = r.cstr(); d !== ''; d = r.cstr()) dirs.push(d);
  const files: (string | undefined)[] = [undefined];
  for (let name = r.cstr(); name !== ''; name = r.cstr()) {
    const dir = r.uleb();
    r.uleb(); // mtime
    r.uleb(); // length
    files.push(v4Path(name, dir, dirs, compDir));
  }
  return files;
}

function v4Path(name: string, dirIndex: number, dirs: string[], compDir: string): string {
  if (name.startsWith('/')) return path.posix.normalize(name);
  const dir = dirIndex > 0 && dirIndex <= dirs.length ? dirs[dirIndex - 1] : '';
  return dir.startsWith('/') ? path.posix.join(dir, name) : path.posix.join(compDir, dir, name);
}

type EntryFormat = { content: number; form: number }[];

function readFormats(r: ByteReader): EntryFormat {
  const formats: EntryFormat = [];
  for (let n = r.u8(); n > 0; n--) formats.push({ content: r.uleb(), form: r.uleb() });
  return formats;
}

/** DWARF 5: described entries; directory 0 is the compilation directory, file 0 the primary source. */
function readV5Files(r: ByteReader, sections: LineSections, offsetSize: number, compDir: string): string[] {
  const dirFormat = readFormats(r);
  const dirs: string[] = [];
  for (let n = r.uleb(); n > 0; n--) dirs.push(readEntry(r, dirFormat, sections, offsetSize).path);
  const fileFormat = readFormats(r);
  const files: string[] = [];
  for (let n = r.uleb(); n > 0; n--) {
    const entry = readEntry(r, fileFormat, sections, offsetSize);
    files.push(v5Path(entry.path, entry.dir, dirs, compDir));
  }
  return files;
}

function v5Path(name: string, dirIndex: number, dirs: string[], compDir: string): string {
  if (name.startsWith('/')) return path.posix.normalize(name);
  const dir = dirIndex < dirs.length ? dirs[dirIndex] : '';
  return dirIndex === 0 || dir.startsWith('/') ? path.posix.join(dir, name) : path.posix.join(compDir, dir, name);
}

function readEntry(r: ByteReader, format: EntryFormat, sections: LineSections, offsetSize: number): { path: string; dir: number } {
  let entryPath = '';
  let dir = 0;
  for (const { content, form } of format) {
    const value = readEntryValue(r, form, sections, offsetSize);
    if (content === DW_LNCT_path && typeof value === 'string') entryPath = value;
    else if (content === DW_LNCT_directory_index && typeof value === 'number') dir = value;
  }
  return { path: entryPath, dir };
}

function readEntryValue(r: ByteReader, form: number, sections: LineSections, offsetSize: number): string | number | undefined {
  switch (form) {
    case 0x08: // string
      return r.cstr();
    case 0x1f: // line_strp
      return stringAt(sections.lineStr, r.unsigned(offsetSize), `${sections.where} .debug_line_str`);
    case 0x0e: // strp
      return stringAt(sections.str, r.unsigned(offsetSize), `${sections.where} .debug_str`);
    case 0x0b: // data1
      return r.u8();
    case 0x05: // data2
      return r.u16();
    case 0x06: // data4
      return r.u32();
    case 0x07: // data8
      return r.u64();
    case 0x0f: // udata
      return r.uleb();
    case 0x1e: // data16 (MD5)
      r.skip(16);
      return undefined;
    case 0x09: // block
      r.skip(r.uleb());
      return undefined;
    default:
      return r.fail(`unsupported form 0x${form.toString(16)} in a DWARF 5 file or directory entry`);
  }
}

interface ProgramHeader {
  minInstLength: number;
  lineBase: number;
  lineRange: number;
  opcodeBase: number;
  opcodeLengths: number[];
  addressSize: number;
  version: number;
  compDir: string;
}

function runProgram(
  r: ByteReader,
  h: ProgramHeader,
  initialFiles: Int32Array,
  internFile: (name: string) => number,
  unitFiles: Map<number, Int32Array>,
  unitOffset: number,
  sequences: Sequence[],
): void {
  let files = initialFiles;
  let seq = newSequence();
  let address = 0;
  let file = 1;
  let line = 1;
  let column = 0;
  const fileAt = (index: number) => (index < files.length ? files[index] : -1);
  const emit = () => {
    seq.addresses.push(address);
    seq.files.push(fileAt(file));
    seq.lines.push(line);
    seq.columns.push(column);
  };
  const reset = () => {
    address = 0;
    file = 1;
    line = 1;
    column = 0;
  };
  while (r.remaining > 0) {
    const opcode = r.u8();
    if (opcode >= h.opcodeBase) {
      const adjusted = opcode - h.opcodeBase;
      address += Math.floor(adjusted / h.lineRange) * h.minInstLength;
      line += h.lineBase + (adjusted % h.lineRange);
      emit();
      continue;
    }
    switch (opcode) {
      case 0: {
        const length = r.uleb();
        const end = r.pos + length;
        if (length === 0) break;
        const sub = r.u8();
        if (sub === 1) {
          // end_sequence: its address closes the sequence; it is a row of its own with no file.
          seq.addresses.push(address);
          seq.files.push(-1);
          seq.lines.push(0);
          seq.columns.push(0);
          seq.start = seq.addresses[0];
          seq.end = address;
          sequences.push(seq);
          seq = newSequence();
          reset();
        } else if (sub === 2) {
          address = r.unsigned(length - 1);
        } else if (sub === 3 && h.version <= 4) {
          const name = r.cstr();
          const dir = r.uleb();
          files = Int32Array.from([...files, internFile(v4Path(name, dir, [], h.compDir))]);
          unitFiles.set(unitOffset, files);
        }
        if (end > r.end) r.fail(`extended opcode length ${length} runs past the unit end`);
        r.pos = end;
        break;
      }
      case 1: // copy
        emit();
        break;
      case 2: // advance_pc
        address += r.uleb() * h.minInstLength;
        break;
      case 3: // advance_line
        line += r.sleb();
        break;
      case 4: // set_file
        file = r.uleb();
        break;
      case 5: // set_column
        column = r.uleb();
        break;
      case 8: // const_add_pc
        address += Math.floor((255 - h.opcodeBase) / h.lineRange) * h.minInstLength;
        break;
      case 9: // fixed_advance_pc
        address += r.u16();
        break;
      case 6: // negate_stmt
      case 7: // set_basic_block
      case 10: // set_prologue_end
      case 11: // set_epilogue_begin
        break;
      default:
        // set_isa (12) and opcodes this reader does not know: skip their ULEB operands.
        for (let n = h.opcodeLengths[opcode] ?? 0; n > 0; n--) r.uleb();
    }
  }
  if (seq.addresses.length > 0) r.fail('line program ends without DW_LNE_end_sequence; its last rows are dropped');
}

function newSequence(): Sequence {
  return { start: 0, end: 0, addresses: [], files: [], lines: [], columns: [] };
}

function mergeSequences(sequences: Sequence[], fileNames: string[], unitFiles: Map<number, Int32Array>, skipped: Record<string, number>): LineTable {
  sequences.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Sequence[] = [];
  let total = 0;
  let lastEnd = -Infinity;
  for (const seq of sequences) {
    // Empty sequences cover nothing; an overlap (a discarded COMDAT copy at address 0, say) would
    // break the binary search, so the first sequence at an address wins, as in LLVM's sorted lookup.
    const reason = seq.end <= seq.start ? 'emptySequenceRows' : seq.start < lastEnd ? 'overlappingSequenceRows' : undefined;
    if (reason) {
      skipped[reason] = (skipped[reason] ?? 0) + seq.addresses.length;
      continue;
    }
    kept.push(seq);
    total += seq.addresses.length;
    lastEnd = seq.end;
  }
  const addresses = new Float64Array(total);
  const files = new Int32Array(total);
  const lines = new Uint32Array(total);
  const columns = new Uint32Array(total);
  let at = 0;
  for (const seq of kept) {
    addresses.set(seq.addresses, at);
    files.set(seq.files, at);
    lines.set(seq.lines, at);
    columns.set(seq.columns, at);
    at += seq.addresses.length;
  }
  return new LineTable(addresses, files, lines, columns, fileNames, unitFiles);
}
