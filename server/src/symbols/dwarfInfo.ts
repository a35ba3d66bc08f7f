// .debug_info walker, DWARF 2 to 5: per compile unit its line program (DW_AT_stmt_list) and
// comp_dir, and every DW_TAG_inlined_subroutine with its address ranges (low_pc/high_pc,
// .debug_ranges, DWARF 5 .debug_rnglists and .debug_addr indexes), call site and the name of
// the function inlined (through DW_AT_abstract_origin / DW_AT_specification).
// Format: DWARF 5 (https://dwarfstd.org/doc/DWARF5.pdf) §7.5 (unit headers, abbreviations,
// forms), §2.17 (ranges), §3.3.8 (inlined subroutines); DWARF 2–4 in their own §7.5.
// Split DWARF (-gsplit-dwarf: skeleton units, .dwo files) is out of scope and reported as such.

import { ByteReader, stringAt } from './byteReader';
import { ElfFile } from './elf';
import { SymbolError } from './symbolError';

export interface CompileUnit {
  /** Offset of the unit's line program in .debug_line. */
  stmtList?: number;
  compDir?: string;
}

/** One inlined call; ranges are flat [lo, hi) pairs; parent is the enclosing inline or -1. */
export interface InlineCall {
  ranges: number[];
  parent: number;
  depth: number;
  /** Offset of the DIE naming the inlined function, resolved by `functionName`. */
  origin: number;
  /** Index into the unit's line-program file table; -1 when absent. */
  callFile: number;
  callLine: number;
  callColumn: number;
  stmtList: number;
}

export interface DebugInfo {
  units: CompileUnit[];
  inlines: InlineCall[];
  functionName(dieOffset: number): string;
  problems: string[];
}

const TAG_COMPILE_UNIT = 0x11;
const TAG_PARTIAL_UNIT = 0x3c;
const TAG_SKELETON_UNIT = 0x4a;
const TAG_SUBPROGRAM = 0x2e;
const TAG_INLINED_SUBROUTINE = 0x1d;

const AT_NAME = 0x03;
const AT_STMT_LIST = 0x10;
const AT_LOW_PC = 0x11;
const AT_HIGH_PC = 0x12;
const AT_COMP_DIR = 0x1b;
const AT_ABSTRACT_ORIGIN = 0x31;
const AT_SPECIFICATION = 0x47;
const AT_RANGES = 0x55;
const AT_CALL_COLUMN = 0x57;
const AT_CALL_FILE = 0x58;
const AT_CALL_LINE = 0x59;
const AT_LINKAGE_NAME = 0x6e;
const AT_MIPS_LINKAGE_NAME = 0x2007;
const AT_STR_OFFSETS_BASE = 0x72;
const AT_ADDR_BASE = 0x73;
const AT_RNGLISTS_BASE = 0x74;
const AT_DWO_NAME = 0x76;
const AT_GNU_DWO_NAME = 0x2130;

const FORM_ADDR = 0x01;
const FORM_STRP = 0x0e;
const FORM_STRING = 0x08;
const FORM_SEC_OFFSET = 0x17;
const FORM_INDIRECT = 0x16;
const FORM_IMPLICIT_CONST = 0x21;
const FORM_LINE_STRP = 0x1f;
const FORM_RNGLISTX = 0x23;

interface Abbrev {
  tag: number;
  hasChildren: boolean;
  names: number[];
  forms: number[];
  implicit: number[];
  /** Bytes of all attributes when every form has a fixed size for this unit, else -1. */
  fixedSize: number;
}

interface Unit {
  version: number;
  offsetSize: number;
  addressSize: number;
  start: number;
  strOffsetsBase: number;
  addrBase: number;
  rnglistsBase: number;
  lowPc: number;
}

interface Sections {
  where: string;
  info: Buffer;
  abbrev: Buffer;
  str?: Buffer;
  lineStr?: Buffer;
  strOffsets?: Buffer;
  addr?: Buffer;
  ranges?: Buffer;
  rnglists?: Buffer;
}

/** Attribute values of one DIE that this reader uses; strings resolved, references absolute. */
interface Attributes {
  name?: string;
  linkageName?: string;
  stmtList?: number;
  compDir?: string;
  lowPc?: number;
  highPc?: number;
  highPcIsOffset: boolean;
  ranges?: number;
  rangesIsIndex: boolean;
  origin?: number;
  callFile?: number;
  callLine?: number;
  callColumn?: number;
  strOffsetsBase?: number;
  addrBase?: number;
  rnglistsBase?: number;
  splitUnit: boolean;
  /** strx/addrx values seen before the unit's bases are known (DWARF 5 CU DIEs). */
  pendingStrx: { attr: number; index: number }[];
  pendingAddrx: { attr: number; index: number }[];
}

export function readDebugInfo(elf: ElfFile): DebugInfo {
  const problems: string[] = [];
  const units: CompileUnit[] = [];
  const inlines: InlineCall[] = [];
  const names = new Map<number, { name?: string; origin?: number }>();
  const info = elf.section('.debug_info');
  const abbrev = elf.section('.debug_abbrev');
  const functionName = (offset: number) => resolveName(names, offset);
  if (!info || !abbrev) return { units, inlines, functionName, problems };
  const s: Sections = {
    where: elf.path,
    info,
    abbrev,
    str: elf.section('.debug_str'),
    lineStr: elf.section('.debug_line_str'),
    strOffsets: elf.section('.debug_str_offsets'),
    addr: elf.section('.debug_addr'),
    ranges: elf.section('.debug_ranges'),
    rnglists: elf.section('.debug_rnglists'),
  };
  const abbrevCache = new Map<string, Map<number, Abbrev>>();
  const r = new ByteReader(info, `${elf.path} .debug_info`);
  while (r.remaining > 0) {
    const unitOffset = r.pos;
    let unitEnd: number;
    let offsetSize: 4 | 8;
    try {
      ({ unitEnd, offsetSize } = r.initialLength());
    } catch (error) {
      problems.push((error as Error).message);
      break;
    }
    let kind: 'split' | undefined;
    try {
      kind = walkUnit(r, s, unitOffset, unitEnd, offsetSize, abbrevCache, units, inlines, names);
    } catch (error) {
      problems.push((error as Error).message);
    }
    if (kind === 'split') throw splitDwarf(elf.path, unitOffset);
    r.pos = unitEnd;
    r.end = info.length;
  }
  return { units, inlines, functionName, problems };
}

function resolveName(names: Map<number, { name?: string; origin?: number }>, offset: number): string {
  // Abstract origins and specifications chain; a bound keeps a cyclic (corrupt) chain finite.
  for (let hops = 0; hops < 16; hops++) {
    const entry = names.get(offset);
    if (!entry) break;
    if (entry.name) return entry.name;
    if (entry.origin === undefined) break;
    offset = entry.origin;
  }
  return '??';
}

function walkUnit(
  r: ByteReader,
  s: Sections,
  unitOffset: number,
  unitEnd: number,
  offsetSize: 4 | 8,
  abbrevCache: Map<string, Map<number, Abbrev>>,
  units: CompileUnit[],
  inlines: InlineCall[],
  names: Map<number, { name?: string; origin?: number }>,
): 'split' | undefined {
  r.end = unitEnd;
  const version = r.u16();
  if (version < 2 || version > 5) r.fail(`unit version ${version} (unit at 0x${unitOffset.toString(16)}) is not DWARF 2–5`);
  let abbrevOffset: number;
  let addressSize: number;
  if (version >= 5) {
    const unitType = r.u8();
    addressSize = r.u8();
    abbrevOffset = r.unsigned(offsetSize);
    if (unitType === 4 || unitType === 5) return 'split';
    if (unitType === 2 || unitType === 6) return undefined; // type units carry no code addresses
    if (unitType !== 1 && unitType !== 3) r.fail(`unknown unit type ${unitType}`);
  } else {
    abbrevOffset = r.unsigned(offsetSize);
    addressSize = r.u8();
  }
  const unit: Unit = { version, offsetSize, addressSize, start: unitOffset, strOffsetsBase: 0, addrBase: 0, rnglistsBase: 0, lowPc: 0 };
  const key = `${abbrevOffset}:${offsetSize}:${addressSize}:${version}`;
  let abbrevs = abbrevCache.get(key);
  if (!abbrevs) {
    abbrevs = readAbbrevs(s, abbrevOffset, unit);
    abbrevCache.set(key, abbrevs);
  }

  // Innermost enclosing inline call per nesting depth; -1 when none.
  const inlineStack: number[] = [];
  let depth = 0;
  let stmtList = -1;
  let first = true;
  while (r.remaining > 0) {
    const dieOffset = r.pos;
    const code = r.uleb();
    if (code === 0) {
      if (depth > 0) depth--;
      continue;
    }
    const a = abbrevs.get(code);
    if (!a) r.fail(`abbreviation code ${code} is not in the table at .debug_abbrev 0x${abbrevOffset.toString(16)}`, dieOffset);
    const interesting = first || a.tag === TAG_SUBPROGRAM || a.tag === TAG_INLINED_SUBROUTINE;
    if (!interesting) {
      if (a.fixedSize >= 0) r.skip(a.fixedSize);
      else for (let i = 0; i < a.forms.length; i++) skipForm(r, a.forms[i], unit);
    } else {
      const attrs = readAttributes(r, a, unit, s);
      if (first) {
        first = false;
        if (a.tag !== TAG_COMPILE_UNIT && a.tag !== TAG_PARTIAL_UNIT && a.tag !== TAG_SKELETON_UNIT) r.fail(`unit at 0x${unitOffset.toString(16)} does not start with a compile unit DIE`, dieOffset);
        if (attrs.splitUnit || a.tag === TAG_SKELETON_UNIT) return 'split';
        unit.strOffsetsBase = attrs.strOffsetsBase ?? (version >= 5 ? 8 : 0);
        unit.addrBase = attrs.addrBase ?? (version >= 5 ? 8 : 0);
        unit.rnglistsBase = attrs.rnglistsBase ?? 0;
        resolvePending(attrs, unit, s);
        unit.lowPc = attrs.lowPc ?? 0;
        if (attrs.stmtList !== undefined) stmtList = attrs.stmtList;
        units.push({ stmtList: attrs.stmtList, compDir: attrs.compDir });
      } else {
        resolvePending(attrs, unit, s);
        if (attrs.name !== undefined || attrs.linkageName !== undefined || attrs.origin !== undefined) {
          names.set(dieOffset, { name: attrs.linkageName ?? attrs.name, origin: attrs.origin });
        }
        if (a.tag === TAG_INLINED_SUBROUTINE) {
          const parent = depth > 0 ? inlineStack[depth - 1] : -1;
          const index = inlines.length;
          inlines.push({
            ranges: rangesOf(attrs, unit, s),
            parent,
            depth: parent >= 0 ? inlines[parent].depth + 1 : 0,
            origin: attrs.origin ?? dieOffset,
            callFile: attrs.callFile ?? -1,
            callLine: attrs.callLine ?? 0,
            callColumn: attrs.callColumn ?? 0,
            stmtList,
          });
          if (a.hasChildren) {
            inlineStack[depth] = index;
            depth++;
          }
          continue;
        }
      }
    }
    if (a.hasChildren) {
      // A nested subprogram (a local class's method) starts a new inline chain.
      inlineStack[depth] = depth > 0 && a.tag !== TAG_SUBPROGRAM ? inlineStack[depth - 1] : -1;
      depth++;
    }
  }
  return undefined;
}

function splitDwarf(where: string, unitOffset: number): SymbolError {
  return new SymbolError(
    `${where} .debug_info at offset 0x${unitOffset.toString(16)}: split DWARF (-gsplit-dwarf, a skeleton unit pointing to a .dwo file) is not supported; rebuild without -gsplit-dwarf`,
  );
}

function readAbbrevs(s: Sections, offset: number, unit: Unit): Map<number, Abbrev> {
  const r = new ByteReader(s.abbrev, `${s.where} .debug_abbrev`, offset);
  const table = new Map<number, Abbrev>();
  for (;;) {
    const code = r.uleb();
    if (code === 0) break;
    const tag = r.uleb();
    const hasChildren = r.u8() !== 0;
    const a: Abbrev = { tag, hasChildren, names: [], forms: [], implicit: [], fixedSize: 0 };
    for (;;) {
      const name = r.uleb();
      const form = r.uleb();
      if (name === 0 && form === 0) break;
      a.names.push(name);
      a.forms.push(form);
      a.implicit.push(form === FORM_IMPLICIT_CONST ? r.sleb() : 0);
      const size = fixedFormSize(form, unit);
      a.fixedSize = size < 0 || a.fixedSize < 0 ? -1 : a.fixedSize + size;
    }
    table.set(code, a);
  }
  return table;
}

/** Size of a form's value when it does not depend on the data, else -1. */
function fixedFormSize(form: number, unit: Unit): number {
  switch (form) {
    case 0x19: // flag_present
    case FORM_IMPLICIT_CONST:
      return 0;
    case 0x0b: // data1
    case 0x0c: // flag
    case 0x11: // ref1
    case 0x25: // strx1
    case 0x29: // addrx1
      return 1;
    case 0x05: // data2
    case 0x12: // ref2
    case 0x26: // strx2
    case 0x2a: // addrx2
      return 2;
    case 0x27: // strx3
    case 0x2b: // addrx3
      return 3;
    case 0x06: // data4
    case 0x13: // ref4
    case 0x1c: // ref_sup4
    case 0x28: // strx4
    case 0x2c: // addrx4
      return 4;
    case 0x07: // data8
    case 0x14: // ref8
    case 0x20: // ref_sig8
    case 0x24: // ref_sup8
      return 8;
    case 0x1e: // data16
      return 16;
    case FORM_ADDR:
      return unit.addressSize;
    case 0x10: // ref_addr
      return unit.version <= 2 ? unit.addressSize : unit.offsetSize;
    case FORM_STRP:
    case FORM_SEC_OFFSET:
    case FORM_LINE_STRP:
    case 0x1d: // strp_sup
    case 0x1f20: // GNU_ref_alt
    case 0x1f21: // GNU_strp_alt
      return unit.offsetSize;
    default:
      return -1;
  }
}

function skipForm(r: ByteReader, form: number, unit: Unit): void {
  const size = fixedFormSize(form, unit);
  if (size >= 0) {
    r.skip(size);
    return;
  }
  switch (form) {
    case FORM_STRING:
      r.cstr();
      return;
    case 0x0a: // block1
      r.skip(r.u8());
      return;
    case 0x03: // block2
      r.skip(r.u16());
      return;
    case 0x04: // block4
      r.skip(r.u32());
      return;
    case 0x09: // block
    case 0x18: // exprloc
      r.skip(r.uleb());
      return;
    case 0x0d: // sdata
      r.sleb();
      return;
    case 0x0f: // udata
    case 0x15: // ref_udata
    case 0x1a: // strx
    case 0x1b: // addrx
    case 0x22: // loclistx
    case FORM_RNGLISTX:
    case 0x1f01: // GNU_addr_index
    case 0x1f02: // GNU_str_index
      r.uleb();
      return;
    case FORM_INDIRECT:
      skipForm(r, r.uleb(), unit);
      return;
    default:
      r.fail(`unknown attribute form 0x${form.toString(16)}`);
  }
}

function readAttributes(r: ByteReader, a: Abbrev, unit: Unit, s: Sections): Attributes {
  const attrs: Attributes = { highPcIsOffset: false, rangesIsIndex: false, splitUnit: false, pendingStrx: [], pendingAddrx: [] };
  for (let i = 0; i < a.forms.length; i++) {
    let form = a.forms[i];
    const name = a.names[i];
    if (form === FORM_INDIRECT) form = r.uleb();
    if (name === AT_DWO_NAME || name === AT_GNU_DWO_NAME) attrs.splitUnit = true;
    if (!isUsed(name)) {
      skipForm(r, form, unit);
      continue;
    }
    switch (form) {
      case FORM_STRING:
        setString(attrs, name, r.cstr());
        continue;
      case FORM_STRP:
        setString(attrs, name, stringAt(s.str, r.unsigned(unit.offsetSize), `${s.where} .debug_str`));
        continue;
      case FORM_LINE_STRP:
        setString(attrs, name, stringAt(s.lineStr, r.unsigned(unit.offsetSize), `${s.where} .debug_line_str`));
        continue;
      case 0x1a: // strx
      case 0x1f02: // GNU_str_index
        attrs.pendingStrx.push({ attr: name, index: r.uleb() });
        continue;
      case 0x25:
      case 0x26:
      case 0x27:
      case 0x28: // strx1–4
        attrs.pendingStrx.push({ attr: name, index: r.unsigned(form - 0x24) });
        continue;
      case 0x1b: // addrx
      case 0x1f01: // GNU_addr_index
        attrs.pendingAddrx.push({ attr: name, index: r.uleb() });
        continue;
      case 0x29:
      case 0x2a:
      case 0x2b:
      case 0x2c: // addrx1–4
        attrs.pendingAddrx.push({ attr: name, index: r.unsigned(form - 0x28) });
        continue;
    }
    const value = readNumber(r, form, unit, a.implicit[i]);
    if (value === undefined) continue;
    switch (name) {
      case AT_STMT_LIST:
        attrs.stmtList = value;
        break;
      case AT_LOW_PC:
        attrs.lowPc = value;
        break;
      case AT_HIGH_PC:
        attrs.highPc = value;
        attrs.highPcIsOffset = form !== FORM_ADDR;
        break;
      case AT_RANGES:
        attrs.ranges = value;
        attrs.rangesIsIndex = form === FORM_RNGLISTX;
        break;
      case AT_ABSTRACT_ORIGIN:
      case AT_SPECIFICATION:
        attrs.origin = isUnitRelative(form) ? unit.start + value : value;
        break;
      case AT_CALL_FILE:
        attrs.callFile = value;
        break;
      case AT_CALL_LINE:
        attrs.callLine = value;
        break;
      case AT_CALL_COLUMN:
        attrs.callColumn = value;
        break;
      case AT_STR_OFFSETS_BASE:
        attrs.strOffsetsBase = value;
        break;
      case AT_ADDR_BASE:
        attrs.addrBase = value;
        break;
      case AT_RNGLISTS_BASE:
        attrs.rnglistsBase = value;
        break;
    }
  }
  return attrs;
}

function isUsed(name: number): boolean {
  switch (name) {
    case AT_NAME:
    case AT_LINKAGE_NAME:
    case AT_MIPS_LINKAGE_NAME:
    case AT_STMT_LIST:
    case AT_COMP_DIR:
    case AT_LOW_PC:
    case AT_HIGH_PC:
    case AT_RANGES:
    case AT_ABSTRACT_ORIGIN:
    case AT_SPECIFICATION:
    case AT_CALL_FILE:
    case AT_CALL_LINE:
    case AT_CALL_COLUMN:
    case AT_STR_OFFSETS_BASE:
    case AT_ADDR_BASE:
    case AT_RNGLISTS_BASE:
      return true;
    default:
      return false;
  }
}

const isUnitRelative = (form: number) => form >= 0x11 && form <= 0x15;

function setString(attrs: Attributes, name: number, value: string): void {
  if (name === AT_NAME) attrs.name = value;
  else if (name === AT_LINKAGE_NAME || name === AT_MIPS_LINKAGE_NAME) attrs.linkageName = value;
  else if (name === AT_COMP_DIR) attrs.compDir = value;
}

/** A numeric value, or undefined for forms that carry none this reader uses (blocks, expressions). */
function readNumber(r: ByteReader, form: number, unit: Unit, implicit: number): number | undefined {
  switch (form) {
    case FORM_ADDR:
      return r.unsigned(unit.addressSize);
    case 0x0b:
    case 0x11:
    case 0x0c:
      return r.u8();
    case 0x05:
    case 0x12:
      return r.u16();
    case 0x06:
    case 0x13:
      return r.u32();
    case 0x07:
    case 0x14:
      return r.u64();
    case 0x0f:
    case 0x15:
    case FORM_RNGLISTX:
      return r.uleb();
    case 0x0d:
      return r.sleb();
    case FORM_SEC_OFFSET:
      return r.unsigned(unit.offsetSize);
    case 0x10: // ref_addr: an offset in .debug_info
      return r.unsigned(unit.version <= 2 ? unit.addressSize : unit.offsetSize);
    case FORM_IMPLICIT_CONST:
      return implicit;
    default:
      skipForm(r, form, unit);
      return undefined;
  }
}

function resolvePending(attrs: Attributes, unit: Unit, s: Sections): void {
  for (const { attr, index } of attrs.pendingStrx) {
    const at = unit.strOffsetsBase + index * unit.offsetSize;
    const table = new ByteReader(s.strOffsets ?? Buffer.alloc(0), `${s.where} .debug_str_offsets`, at);
    setString(attrs, attr, stringAt(s.str, table.unsigned(unit.offsetSize), `${s.where} .debug_str`));
  }
  for (const { attr, index } of attrs.pendingAddrx) {
    const value = addressAt(unit, s, index);
    if (attr === AT_LOW_PC) attrs.lowPc = value;
    else if (attr === AT_HIGH_PC) {
      attrs.highPc = value;
      attrs.highPcIsOffset = false;
    }
  }
  attrs.pendingStrx = [];
  attrs.pendingAddrx = [];
}

function addressAt(unit: Unit, s: Sections, index: number): number {
  const r = new ByteReader(s.addr ?? Buffer.alloc(0), `${s.where} .debug_addr`, unit.addrBase + index * unit.addressSize);
  return r.unsigned(unit.addressSize);
}

function rangesOf(attrs: Attributes, unit: Unit, s: Sections): number[] {
  if (attrs.lowPc !== undefined && attrs.highPc !== undefined) {
    const hi = attrs.highPcIsOffset ? attrs.lowPc + attrs.highPc : attrs.highPc;
    return hi > attrs.lowPc ? [attrs.lowPc, hi] : [];
  }
  if (attrs.ranges === undefined) return [];
  return unit.version >= 5 ? rangeList5(attrs.ranges, attrs.rangesIsIndex, unit, s) : rangeList4(attrs.ranges, unit, s);
}

/** .debug_ranges: (begin, end) pairs relative to the base address; all-ones begin sets the base; (0, 0) ends. */
function rangeList4(offset: number, unit: Unit, s: Sections): number[] {
  const r = new ByteReader(s.ranges ?? Buffer.alloc(0), `${s.where} .debug_ranges`, offset);
  const allOnes = unit.addressSize === 8 ? 2 ** 64 : 2 ** 32 - 1;
  const out: number[] = [];
  let base = unit.lowPc;
  for (;;) {
    const begin = r.unsigned(unit.addressSize);
    const end = r.unsigned(unit.addressSize);
    if (begin === 0 && end === 0) return out;
    if (begin === allOnes) base = end;
    else if (end > begin) out.push(base + begin, base + end);
  }
}

/** .debug_rnglists entries (DW_RLE_*). */
function rangeList5(value: number, isIndex: boolean, unit: Unit, s: Sections): number[] {
  const section = s.rnglists ?? Buffer.alloc(0);
  const where = `${s.where} .debug_rnglists`;
  let offset = value;
  if (isIndex) offset = unit.rnglistsBase + new ByteReader(section, where, unit.rnglistsBase + value * unit.offsetSize).unsigned(unit.offsetSize);
  const r = new ByteReader(section, where, offset);
  const out: number[] = [];
  let base = unit.lowPc;
  const push = (lo: number, hi: number) => {
    if (hi > lo) out.push(lo, hi);
  };
  for (;;) {
    const kind = r.u8();
    switch (kind) {
      case 0: // end_of_list
        return out;
      case 1: // base_addressx
        base = addressAt(unit, s, r.uleb());
        break;
      case 2: {
        // startx_endx
        const lo = addressAt(unit, s, r.uleb());
        push(lo, addressAt(unit, s, r.uleb()));
        break;
      }
      case 3: {
        // startx_length
        const lo = addressAt(unit, s, r.uleb());
        push(lo, lo + r.uleb());
        break;
      }
      case 4: {
        // offset_pair
        const lo = base + r.uleb();
        push(lo, base + r.uleb());
        break;
      }
      case 5: // base_address
        base = r.unsigned(unit.addressSize);
        break;
      case 6: {
        // start_end
        const lo = r.unsigned(unit.addressSize);
        push(lo, r.unsigned(unit.addressSize));
        break;
      }
      case 7: {
        // start_length
        const lo = r.unsigned(unit.addressSize);
        push(lo, lo + r.uleb());
        break;
      }
      default:
        r.fail(`unknown range list entry kind ${kind}`, r.pos - 1);
    }
  }
}
