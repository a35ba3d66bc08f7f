/**
 * Writes a large, synthetic but realistic C program and builds it with gcc -O2 -g, for the
 * symbolizer's cross-check and bench: many translation units, shared headers full of
 * `static inline` helpers that call each other (so -O2 inlines several levels deep), static and
 * extern functions, loops, switches and calls across units. Seeded: the same options give the
 * same sources.
 *
 *   node out/bench/gen-large-c.js [--out DIR] [--units 120] [--functions 40] [--dwarf 5]
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { mulberry32 } from '../server/src/causal/random';
import { flag } from './stats';

export interface LargeProgramOptions {
  units: number;
  functionsPerUnit: number;
  headers: number;
  seed: number;
}

export const DEFAULT_LARGE: LargeProgramOptions = { units: 120, functionsPerUnit: 40, headers: 12, seed: 7 };

/** Writes the sources into `dir` (src/*.c, include/*.h); returns the .c files. */
export function writeLargeProgram(dir: string, options: LargeProgramOptions): string[] {
  const random = mulberry32(options.seed);
  const int = (n: number) => Math.floor(random() * n);
  const src = path.join(dir, 'src');
  const include = path.join(dir, 'include');
  fs.mkdirSync(src, { recursive: true });
  fs.mkdirSync(include, { recursive: true });

  const helpersPerHeader = 8;
  for (let h = 0; h < options.headers; h++) {
    const lines = [`#ifndef HELPERS_${h}_H`, `#define HELPERS_${h}_H`, '#include <stdint.h>', ''];
    if (h > 0) lines.push(`#include "helpers_${h - 1}.h"`, '');
    for (let k = 0; k < helpersPerHeader; k++) {
      const name = `h${h}_op${k}`;
      // Call an earlier helper of this header or of the one below: chains of inlining.
      const callee = k > 0 ? `h${h}_op${int(k)}` : h > 0 ? `h${h - 1}_op${int(helpersPerHeader)}` : '';
      lines.push(`static inline uint64_t ${name}(uint64_t x, uint64_t y)`, '{');
      lines.push(`  uint64_t acc = x * ${0x9e3779b1 + int(1000)}u + y;`);
      if (int(2)) lines.push(`  for (int i = 0; i < ${2 + int(4)}; i++)`, `    acc = (acc << ${1 + int(7)}) ^ (acc >> ${1 + int(11)}) ^ (uint64_t)i;`);
      else lines.push(`  if (acc & ${1 << int(8)})`, `    acc ^= acc >> ${1 + int(20)};`, '  else', `    acc += y * ${3 + int(50)};`);
      if (callee) lines.push(`  acc += ${callee}(acc, y ^ ${int(97)});`);
      lines.push('  return acc;', '}', '');
    }
    lines.push('#endif', '');
    writeIfChanged(path.join(include, `helpers_${h}.h`), lines.join('\n'));
  }

  const api = ['#ifndef API_H', '#define API_H', '#include <stdint.h>', ''];
  for (let u = 0; u < options.units; u++) api.push(`uint64_t unit${u}_entry(uint64_t seed, int depth);`);
  api.push('', '#endif', '');
  writeIfChanged(path.join(include, 'api.h'), api.join('\n'));

  const files: string[] = [];
  for (let u = 0; u < options.units; u++) {
    const header = int(options.headers);
    const lines = ['#include <stdint.h>', '#include <string.h>', '#include "api.h"', `#include "helpers_${header}.h"`, ''];
    const helper = () => `h${int(header + 1)}_op${int(helpersPerHeader)}`;
    for (let f = 0; f < options.functionsPerUnit; f++) {
      const name = `u${u}_f${f}`;
      lines.push(`static uint64_t ${name}(uint64_t x, const uint64_t *table, int n)`, '{');
      lines.push(`  uint64_t state = x ^ ${int(1 << 30)}u;`);
      switch (int(4)) {
        case 0:
          lines.push('  for (int i = 0; i < n; i++) {', `    state += ${helper()}(table[i & 15], state);`, '    if (state % 7 == 3)', `      state ^= ${helper()}(state, (uint64_t)i);`, '  }');
          break;
        case 1:
          lines.push('  switch (state % 5) {', `  case 0: state = ${helper()}(state, 1); break;`, `  case 1: state = ${helper()}(state, 2); break;`, `  case 2: state *= ${3 + int(100)}; break;`, '  default: state += table[state & 15]; break;', '  }');
          break;
        case 2:
          lines.push('  while (n-- > 0) {', '    state = (state >> 3) | (state << 61);', `    state += ${helper()}(state, table[n & 15]);`, '  }');
          break;
        default:
          lines.push('  uint64_t local[8];', '  memcpy(local, table, sizeof local);', `  for (int i = 0; i < 8; i++) local[i] = ${helper()}(local[i], state + (uint64_t)i);`, '  state ^= local[state & 7];');
      }
      if (f > 0) lines.push(`  if (state & 1) state += u${u}_f${int(f)}(state, table, n / 2);`);
      lines.push('  return state;', '}', '');
    }
    lines.push('uint64_t unit' + u + '_entry(uint64_t seed, int depth)', '{', '  uint64_t table[16];', `  for (int i = 0; i < 16; i++) table[i] = ${helper()}(seed, (uint64_t)i);`, '  uint64_t sum = 0;');
    for (let c = 0; c < 4; c++) lines.push(`  sum += u${u}_f${int(options.functionsPerUnit)}(seed + ${c}, table, ${4 + int(12)});`);
    if (u > 0) lines.push(`  if (depth > 0) sum += unit${int(u)}_entry(sum, depth - 1);`);
    lines.push('  return sum;', '}', '');
    const file = path.join(src, `unit_${u}.c`);
    writeIfChanged(file, lines.join('\n'));
    files.push(file);
  }
  const main = ['#include <stdio.h>', '#include <stdlib.h>', '#include "api.h"', '', 'int main(int argc, char **argv)', '{', '  uint64_t seed = argc > 1 ? strtoull(argv[1], 0, 10) : 1;', '  uint64_t sum = 0;'];
  for (let u = options.units - 1; u >= 0; u -= Math.max(1, Math.floor(options.units / 8))) main.push(`  sum += unit${u}_entry(seed, 3);`);
  main.push('  printf("%llu\\n", (unsigned long long)sum);', '  return 0;', '}', '');
  const mainFile = path.join(src, 'main.c');
  writeIfChanged(mainFile, main.join('\n'));
  files.push(mainFile);
  return files;
}

/** Leaves an unchanged file untouched, so its mtime says whether the binary is stale. */
function writeIfChanged(file: string, text: string): void {
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
}

/** Builds `dir/large-dwarfN` with gcc -O2 -g -gdwarf-N unless it is newer than every source; returns its path. */
export async function buildLargeBinary(dir: string, dwarfVersion: number, options = DEFAULT_LARGE): Promise<string> {
  const files = writeLargeProgram(dir, options);
  const output = path.join(dir, `large-dwarf${dwarfVersion}`);
  const sources = [...files, ...fs.readdirSync(path.join(dir, 'include')).map((h) => path.join(dir, 'include', h))];
  const built = fs.existsSync(output) ? fs.statSync(output).mtimeMs : -Infinity;
  if (sources.every((f) => fs.statSync(f).mtimeMs < built)) return output;
  await promisify(execFile)('gcc', ['-O2', '-g', `-gdwarf-${dwarfVersion}`, '-I', path.join(dir, 'include'), '-o', output, ...files], { cwd: dir });
  return output;
}

async function main(): Promise<void> {
  const dir = path.resolve(flag('out', 'bench/data/large-c'));
  const options: LargeProgramOptions = {
    ...DEFAULT_LARGE,
    units: Number(flag('units', String(DEFAULT_LARGE.units))),
    functionsPerUnit: Number(flag('functions', String(DEFAULT_LARGE.functionsPerUnit))),
  };
  const binary = await buildLargeBinary(dir, Number(flag('dwarf', '5')), options);
  process.stdout.write(`${binary} (${(fs.statSync(binary).size / 1e6).toFixed(1)} MB)\n`);
}

if (require.main === module) main();
