/**
 * The symbolizer's yardstick, shared by its tests and bench: a deterministic address sample of
 * a binary, llvm-symbolizer's answers for it, and the agreement rule.
 *
 * "Agree" for one address means:
 *  - the innermost file:line matches llvm-symbolizer's first frame (paths compared normalized;
 *    line 0, which DWARF uses for "no source line", and llvm's "??" match our "no line");
 *  - the inline chain matches: llvm gives n+1 frames when we give n inlined frames; frame i's
 *    function name is our inlined[i].function, and frame i+1's file:line is our inlined[i].callSite.
 * The outermost function name is not compared: ours is the ELF symbol (e.g. `fill.constprop.0`),
 * llvm's the DWARF subprogram name (`fill`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../server/src/causal/random';
import { parseElf } from '../server/src/symbols/elf';
import { readDebugTables } from '../server/src/symbols/image';
import type { Symbolized } from '../server/src/symbols';

export interface LlvmFrame {
  FileName: string;
  FunctionName: string;
  Line: number;
}

/** Every line-table row start, then `randomCount` seeded addresses inside .text; sorted, distinct. */
export function sampleAddresses(binary: string, randomCount: number, seed = 0x5eed): number[] {
  const elf = parseElf(fs.readFileSync(binary), binary);
  const { lines } = readDebugTables(elf);
  const addresses = new Set<number>();
  if (lines) for (let i = 0; i < lines.rowCount; i++) if (lines.files[i] >= 0) addresses.add(lines.addresses[i]);
  const text = elf.sections.find((s) => s.name === '.text');
  if (text) {
    const random = mulberry32(seed);
    for (let i = 0; i < randomCount; i++) addresses.add(text.addr + Math.floor(random() * text.size));
  }
  return [...addresses].sort((a, b) => a - b);
}

/** llvm-symbolizer's frames per address (innermost first), one batch over stdin. */
export function llvmSymbolize(binary: string, addresses: readonly number[]): Promise<LlvmFrame[][]> {
  return new Promise((resolve, reject) => {
    const child = spawn('llvm-symbolizer', [`--obj=${binary}`, '--output-style=JSON', '--inlining'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (text += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`llvm-symbolizer exited with ${code}`));
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      resolve(lines.map((l) => (JSON.parse(l) as { Symbol: LlvmFrame[] }).Symbol));
    });
    child.stdin.end(addresses.map((a) => `0x${a.toString(16)}`).join('\n') + '\n');
  });
}

const samePath = (a: string, b: string) => path.posix.normalize(a) === path.posix.normalize(b);

function sameLine(frame: LlvmFrame | undefined, file: string | undefined, line: number | undefined): boolean {
  // Line 0 means "no source line" (DWARF §6.2.2); llvm then names the unit's file, we give none.
  const llvmHasLine = frame !== undefined && frame.FileName !== '' && frame.FileName !== '??' && frame.Line !== 0;
  if (line === 0) file = undefined;
  if (!llvmHasLine || file === undefined) return !llvmHasLine && file === undefined;
  return samePath(frame.FileName, file) && frame.Line === line;
}

/** Why ours and llvm's answers differ for one address, or undefined when they agree. */
export function disagreement(ours: Symbolized, frames: LlvmFrame[]): string | undefined {
  if (!sameLine(frames[0], ours.line?.file, ours.line?.line)) return `line: ours ${ours.line?.file}:${ours.line?.line}, llvm ${frames[0]?.FileName}:${frames[0]?.Line}`;
  const inlined = ours.inlined ?? [];
  if (!ours.line) return undefined;
  if (frames.length !== inlined.length + 1) return `inline depth: ours ${inlined.length}, llvm ${frames.length - 1} (${frames.map((f) => f.FunctionName).join(' < ')})`;
  for (let i = 0; i < inlined.length; i++) {
    if (frames[i].FunctionName !== inlined[i].function) return `inlined function ${i}: ours ${inlined[i].function}, llvm ${frames[i].FunctionName}`;
    const call = inlined[i].callSite;
    if (!sameLine(frames[i + 1], call.file, call.line)) return `call site ${i}: ours ${call.file}:${call.line}, llvm ${frames[i + 1].FileName}:${frames[i + 1].Line}`;
  }
  return undefined;
}

export interface Agreement {
  total: number;
  agreed: number;
  /** Up to 20 examples: address and reason. */
  examples: string[];
}

export function agreement(addresses: readonly number[], ours: Symbolized[], reference: LlvmFrame[][]): Agreement {
  const result: Agreement = { total: addresses.length, agreed: 0, examples: [] };
  addresses.forEach((address, i) => {
    const why = disagreement(ours[i], reference[i] ?? []);
    if (!why) result.agreed++;
    else if (result.examples.length < 20) result.examples.push(`0x${address.toString(16)}: ${why}`);
  });
  return result;
}
