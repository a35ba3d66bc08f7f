/**
 * The symbolizer's speed and agreement on a large -g binary built here (bench/gen-large-c.ts):
 * load time (openElf: ELF, .debug_line, .debug_info inline ranges), lookups per second once
 * loaded (symbolizeMany with inline chains, addresses in shuffled order), agreement with
 * llvm-symbolizer on the same addresses (every line-table row start plus seeded random .text
 * addresses; the rule is in bench/symbols-reference.ts), and the time llvm-symbolizer and
 * addr2line take for those addresses.
 *
 *   node out/bench/symbolize.js [--dir bench/data/large-c] [--dwarf 5] [--units 120] [--random 20000]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../server/src/causal/random';
import { openElf } from '../server/src/symbols';
import { DEFAULT_LARGE, buildLargeBinary } from './gen-large-c';
import { agreement, llvmSymbolize, sampleAddresses } from './symbols-reference';
import { flag, median, ms, record, repoRoot } from './stats';

async function timed<T>(work: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

function addr2line(binary: string, addresses: readonly number[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('addr2line', ['-f', '-i', '-a', '-e', binary], { stdio: ['pipe', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`addr2line exited with ${code}`))));
    child.stdin.end(addresses.map((a) => `0x${a.toString(16)}`).join('\n') + '\n');
  });
}

function shuffled(values: readonly number[], seed: number): Float64Array {
  const out = Float64Array.from(values);
  const random = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function main(): Promise<void> {
  const dwarf = Number(flag('dwarf', '5'));
  const units = Number(flag('units', String(DEFAULT_LARGE.units)));
  const dir = path.resolve(flag('dir', path.join(repoRoot, 'bench', 'data', 'large-c')));
  process.stdout.write(`building (unless up to date) ${units} units with gcc -O2 -g -gdwarf-${dwarf} in ${dir}…\n`);
  const binary = await buildLargeBinary(dir, dwarf, { ...DEFAULT_LARGE, units });
  const size = fs.statSync(binary).size / 1e6;

  const loads: number[] = [];
  let image = openElf(binary);
  for (let i = 0; i < 5; i++) {
    const load = await timed(() => openElf(binary));
    loads.push(load.ms);
    image = load.value;
  }
  const addresses = sampleAddresses(binary, Number(flag('random', '20000')));
  const order = shuffled(addresses, 1);
  const rates: number[] = [];
  for (let round = 0; round < 5; round++) {
    let done = 0;
    const start = performance.now();
    while (performance.now() - start < 1000) {
      image.symbolizeMany(order);
      done += order.length;
    }
    rates.push(done / ((performance.now() - start) / 1000));
  }
  const ours = image.symbolizeMany(addresses);
  const llvm = await timed(() => llvmSymbolize(binary, addresses));
  const agreed = agreement(addresses, ours, llvm.value);
  const binutils = await timed(() => addr2line(binary, addresses));
  const rate = median(rates);
  const share = agreed.agreed / agreed.total;

  process.stdout.write(
    [
      `binary: ${binary} (${size.toFixed(1)} MB, DWARF ${dwarf})`,
      `load (openElf), median of 5: ${ms(median(loads))} ms`,
      `lookups once loaded, median of 5 one-second rounds: ${Math.round(rate).toLocaleString('en')}/s over ${addresses.length.toLocaleString('en')} addresses`,
      `agreement with llvm-symbolizer: ${agreed.agreed} of ${agreed.total} (${(share * 100).toFixed(3)}%)`,
      ...agreed.examples.map((e) => `  ${e}`),
      `llvm-symbolizer, same addresses in one batch: ${ms(llvm.ms)} ms (${Math.round(addresses.length / (llvm.ms / 1000)).toLocaleString('en')}/s)`,
      `addr2line -f -i, same addresses in one batch: ${ms(binutils.ms)} ms (${Math.round(addresses.length / (binutils.ms / 1000)).toLocaleString('en')}/s)`,
      '',
    ].join('\n'),
  );
  record(
    { what: `symbolizer load, ${size.toFixed(1)} MB -g binary (DWARF ${dwarf})`, value: `${ms(median(loads))} ms` },
    { what: 'symbolizer lookups once loaded (file:line + inline chain)', value: `${Math.round(rate / 1000)}k/s`, goal: '≥ 500k/s', met: rate >= 500e3 },
    { what: `symbolizer agreement with llvm-symbolizer (${agreed.total} addresses)`, value: `${(share * 100).toFixed(3)}%`, goal: '≥ 99.9%', met: share >= 0.999 },
    { what: 'llvm-symbolizer on the same addresses', value: `${Math.round(addresses.length / (llvm.ms / 1000) / 1000)}k/s` },
    { what: 'addr2line on the same addresses', value: `${Math.round(addresses.length / (binutils.ms / 1000) / 1000)}k/s` },
  );
}

main().catch((error) => {
  process.stderr.write(`bench symbolize: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
