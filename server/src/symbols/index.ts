// The symbolizer: ELF virtual addresses to function, file:line and inlined call chain, read
// in-process from the binary's symbol tables, .debug_line and .debug_info (no external tool).
// Inlined call sites come from .debug_info DW_TAG_inlined_subroutine ranges, not llvm-symbolizer.

import * as fs from 'fs';
import { openImage } from './image';
import { SymbolError } from './symbolError';
import { readErrorReason } from '../readError';

export { SymbolError };

export interface SourceLine {
  file: string;
  line: number;
  column?: number;
}

/** One inlined call: the function inlined and where it was called; innermost first. */
export interface InlineFrame {
  function: string;
  callSite: SourceLine;
}

/** A lookup's answer. Its `line` and `inlined` objects are frozen and shared between answers. */
export interface Symbolized {
  /** The enclosing ELF symbol from .symtab (or .dynsym), not demangled. */
  function?: string;
  /** vaddr - symbol start, for "func+0x1a" when there is no line information. */
  functionOffset?: number;
  /** The .debug_line row covering vaddr; file absolute when the unit gives comp_dir. */
  line?: SourceLine;
  /** DW_TAG_inlined_subroutine frames containing vaddr, innermost first; empty if none. */
  inlined?: InlineFrame[];
}

export interface ElfImage {
  path: string;
  /** Hex of NT_GNU_BUILD_ID. */
  buildId?: string;
  /** False for stripped binaries: lookups still give function+offset. */
  hasDebugLine: boolean;
  /** PT_LOAD segments: for converting perf's file offsets and runtime addresses. */
  loadSegments: { fileOffset: number; vaddr: number; fileSize: number; memSize: number; executable: boolean }[];
  /** ET_DYN. */
  isPositionIndependent: boolean;
  /** Damage that did not stop the read, each naming the file and place; what could be read is used. */
  problems: string[];
  /** Things left out, counted by reason (e.g. overlapping line-table sequences). */
  skipped: Record<string, number>;
  fileOffsetToVaddr(offset: number): number | undefined;
  symbolize(vaddr: number): Symbolized;
  /** The fast path: sorted-table lookups for many addresses. */
  symbolizeMany(vaddrs: Float64Array | number[]): Symbolized[];
}

/** Reads the whole file synchronously; throws SymbolError (never anything else) when it is unusable. */
export function openElf(path: string): ElfImage {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(path);
  } catch (error) {
    throw new SymbolError(`${path}: cannot read: ${readErrorReason(error)}`);
  }
  return openImage(buf, path);
}

/** One ElfImage (or the SymbolError that opening it gave) per path, for one ingest. */
export function symbolCache(): { get(path: string): ElfImage | SymbolError } {
  const images = new Map<string, ElfImage | SymbolError>();
  return {
    get(path: string) {
      let image = images.get(path);
      if (!image) {
        try {
          image = openElf(path);
        } catch (error) {
          image = error instanceof SymbolError ? error : new SymbolError(`${path}: ${(error as Error).message}`);
        }
        images.set(path, image);
      }
      return image;
    },
  };
}
