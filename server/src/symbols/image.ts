// An opened ELF image: symbol table, line table and inline-call index, and the lookups on them.

import { readDebugInfo, DebugInfo } from './dwarfInfo';
import { readLineTable, LineTable } from './dwarfLine';
import { ElfFile, FunctionSymbols, lastAtOrBelow, parseElf } from './elf';
import { InlineIndex, NO_FRAMES } from './inlineIndex';
import type { ElfImage, SourceLine, Symbolized } from './index';
import { SymbolError } from './symbolError';

/** Wording of the SymbolError that stands for an unexpected exception (a bug in a reader). */
export const UNEXPECTED = 'unreadable ELF/DWARF';

export function openImage(buf: Buffer, path: string): ElfImage {
  try {
    return buildImage(buf, path);
  } catch (error) {
    if (error instanceof SymbolError) throw error;
    // A parser bug must still reach the user as one clear line, never a stack trace.
    throw new SymbolError(`${path}: ${UNEXPECTED}: ${(error as Error).message}`);
  }
}

export interface DebugTables {
  info?: DebugInfo;
  lines?: LineTable;
  problems: string[];
  skipped: Record<string, number>;
}

/** The line table and .debug_info facts of an ELF file; absent when it has no .debug_line. */
export function readDebugTables(elf: ElfFile): DebugTables {
  const problems: string[] = [];
  const skipped: Record<string, number> = {};
  const lineSection = elf.section('.debug_line');
  if (!lineSection) {
    if (elf.sections.some((s) => s.name === '.zdebug_line')) {
      problems.push(`${elf.path}: .zdebug_line (old GNU compressed debug sections, -gz=zlib-gnu) is not supported; rebuild with -gz=zlib`);
    }
    return { problems, skipped };
  }
  const info = readDebugInfo(elf);
  problems.push(...info.problems);
  const compDirs = new Map<number, string>();
  for (const unit of info.units) if (unit.stmtList !== undefined && unit.compDir !== undefined) compDirs.set(unit.stmtList, unit.compDir);
  const result = readLineTable({ where: elf.path, line: lineSection, str: elf.section('.debug_str'), lineStr: elf.section('.debug_line_str') }, compDirs);
  problems.push(...result.problems);
  Object.assign(skipped, result.skipped);
  return { info, lines: result.table, problems, skipped };
}

function buildImage(buf: Buffer, path: string): ElfImage {
  const elf = parseElf(buf, path);
  const { info, lines, problems: debugProblems, skipped } = readDebugTables(elf);
  const problems = [...elf.problems, ...debugProblems];
  const inlines = info && lines ? new InlineIndex(info, lines) : undefined;
  const symbols = elf.symbols;
  // Only these outlive the read: the file's bytes and sections are not kept alive by the image.
  const segments = elf.loadSegments;
  if (symbols.starts.length === 0 && !lines) {
    problems.push(`${path}: fully stripped (no function symbols in .symtab or .dynsym, no .debug_line): addresses cannot be named; symbolize an unstripped copy`);
  }

  // Answers share one frozen SourceLine per row (and one inline chain per range), so that a
  // batch of lookups allocates little: fewer objects to promote and collect keeps it fast.
  const rowLines: (SourceLine | undefined)[] = lines ? new Array(lines.rowCount) : [];
  const symbolize = (vaddr: number): Symbolized => {
    const result: Symbolized = {};
    nameFunction(symbols, vaddr, result);
    if (lines) {
      const row = lines.rowFor(vaddr);
      if (row >= 0) result.line = rowLines[row] ??= sourceLine(lines, row);
    }
    result.inlined = inlines ? inlines.framesAt(vaddr) : NO_FRAMES;
    return result;
  };
  return {
    path,
    buildId: elf.buildId,
    hasDebugLine: lines !== undefined && lines.rowCount > 0,
    loadSegments: segments,
    isPositionIndependent: elf.isPositionIndependent,
    problems,
    skipped,
    fileOffsetToVaddr(offset: number) {
      const segment = segments.find((s) => offset >= s.fileOffset && offset < s.fileOffset + s.fileSize);
      return segment ? segment.vaddr + (offset - segment.fileOffset) : undefined;
    },
    symbolize,
    symbolizeMany(vaddrs: Float64Array | number[]) {
      const out: Symbolized[] = new Array(vaddrs.length);
      for (let i = 0; i < vaddrs.length; i++) out[i] = symbolize(vaddrs[i]);
      return out;
    },
  };
}

function sourceLine(lines: LineTable, row: number): SourceLine {
  const column = lines.columns[row];
  return Object.freeze({ file: lines.fileNames[lines.files[row]], line: lines.lines[row], ...(column ? { column } : {}) });
}

function nameFunction(symbols: FunctionSymbols, vaddr: number, result: Symbolized): void {
  const i = lastAtOrBelow(symbols.starts, vaddr);
  if (i < 0) return;
  const size = symbols.sizes[i];
  const offset = vaddr - symbols.starts[i];
  // A sized symbol covers only its bytes; gaps between functions (padding, PLT) stay unnamed.
  if (size > 0 && offset >= size) return;
  result.function = symbols.names[i];
  result.functionOffset = offset;
}
