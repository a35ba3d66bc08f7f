/**
 * Bench of the perf ingest (issue 3), on a recording made here of a large generated C
 * program (bench/gen-large-c.ts: 120 units, -O2 -g, inlining several levels deep):
 *   1. the whole pipeline (perf script + parse + symbolize + attribute) against
 *      `perf report --no-children --sort srcline --stdio` on the same perf.data, side by side,
 *      and whether both give the same top 20 lines;
 *   2. parsing speed of perf script text (MB/s, median of 3, text of ≥ 200 MB);
 *   3. resident memory while streaming a 1 GB perf script (in a child process).
 *
 *   node out/bench/perf-ingest.js [--data DIR] [--iterations N] [--big-mb 1000] [--dwarf 4]
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { readProfileFile } from '../server/src/import';
import { perfScriptArgs } from '../server/src/import/perfData';
import { attributeSamples, totalMs } from '../server/src/samples/attribution';
import { DEFAULT_LARGE, writeLargeProgram } from './gen-large-c';
import { MB, flag, median, repoRoot } from './stats';

const run = promisify(execFile);
const TOP = 20;

/**
 * A driver that calls every unit's entry over and over, so that perf sees many distinct
 * addresses. DWARF 4 by default: with DWARF 5, perf 6.1's srcline (binutils 2.40 addr2line)
 * names the wrong file for lines of headers (measured: 5% of this program's samples), so
 * the top lines differ because perf is wrong.
 */
async function buildLoopProgram(dir: string, dwarf: string): Promise<string> {
  const binary = path.join(dir, `perf-ingest-loop-dwarf${dwarf}`);
  if (fs.existsSync(binary)) return binary;
  const files = writeLargeProgram(dir, DEFAULT_LARGE).filter((f) => !f.endsWith('main.c'));
  const calls = Array.from({ length: DEFAULT_LARGE.units }, (_, u) => `    sum += unit${u}_entry(seed + i, 3);`);
  const driver = path.join(dir, 'loop.c');
  fs.writeFileSync(
    driver,
    ['#include <stdio.h>', '#include <stdlib.h>', '#include "api.h"', 'int main(int argc, char **argv) {', '  long n = argc > 1 ? atol(argv[1]) : 1000;', '  uint64_t seed = 1, sum = 0;', '  for (long i = 0; i < n; i++) {', ...calls, '  }', '  printf("%llu\\n", (unsigned long long)sum);', '  return 0;', '}', ''].join('\n'),
  );
  await run('gcc', ['-O2', '-g', `-gdwarf-${dwarf}`, '-fno-omit-frame-pointer', '-I', path.join(dir, 'include'), '-o', binary, ...files, driver], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  return binary;
}

/** CPU time of finished children (cutime + cstime of /proc/self/stat), ms. */
function childrenCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  // After the command name: state is field 3, cutime and cstime are fields 16 and 17.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** Wall time, and CPU time of this process and its children: the machine is shared, CPU time is the fairer figure. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: (used.user + used.system) / 1000 + childrenCpuMs() - children };
}

/** `perf report --sort srcline` rows as `file:line` (basenames, as perf prints them), heaviest first. */
function perfReportLines(stdout: string): string[] {
  return [...stdout.matchAll(/^\s*[\d.]+%\s+(\S+:\d+)\s*$/gm)].map((m) => m[1]);
}

async function sideBySide(data: string, what: string): Promise<void> {
  console.log(`-- ${what}`);
  const perf = await timed(() => run('perf', ['report', '-i', data, '--no-children', '--sort', 'srcline', '--stdio', '-q', '-g', 'none'], { maxBuffer: 256 * 1024 * 1024 }));
  const ours = await timed(async () => attributeSamples((await readProfileFile(data)).samples!, () => true));
  const perfTop = perfReportLines(perf.value.stdout).slice(0, TOP);
  const ourTop = ours.value.lines.slice(0, TOP).map((l) => `${path.basename(l.file)}:${l.line}`);
  const same = perfTop.filter((line, i) => ourTop[i] === line).length;
  const sameSet = perfTop.filter((line) => ourTop.includes(line)).length;
  const seconds = (t: { ms: number; cpuMs: number }) => `${(t.ms / 1000).toFixed(2)} s wall, ${(t.cpuMs / 1000).toFixed(2)} s CPU`;
  console.log(`perf report --no-children --sort srcline: ${seconds(perf)}`);
  console.log(`causal-lens (perf script, parse, symbolize, attribute): ${seconds(ours)}; ${(totalMs(ours.value.total) / 1000).toFixed(1)} s of samples`);
  console.log(`speedup: ${(perf.ms / ours.ms).toFixed(1)}x wall, ${(perf.cpuMs / ours.cpuMs).toFixed(1)}x CPU (goal >= 5x)`);
  console.log(`top ${TOP} lines: ${same} at the same rank, ${sameSet} in both lists`);
  for (let i = 0; i < TOP; i++) if (perfTop[i] !== ourTop[i]) console.log(`  rank ${i + 1}: perf ${perfTop[i] ?? '-'}  ours ${ourTop[i] ?? '-'}`);
}

/** Writes `text` repeated until the file has at least `bytes` bytes, streamed. */
async function repeatInto(file: string, text: string, bytes: number): Promise<number> {
  const out = fs.createWriteStream(file);
  let written = 0;
  while (written < bytes) {
    if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
    written += Buffer.byteLength(text);
  }
  await new Promise((resolve) => out.end(resolve));
  return written;
}

async function parseSpeed(text: string, dir: string): Promise<void> {
  const file = path.join(dir, 'script-200mb.txt');
  const bytes = await repeatInto(file, text, 200 * MB);
  const runs: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < 3; i++) runs.push(await timed(() => readProfileFile(file)));
  const wall = median(runs.map((r) => r.ms)) / 1000;
  const cpu = median(runs.map((r) => r.cpuMs)) / 1000;
  console.log(`parse perf script text: ${(bytes / MB).toFixed(0)} MB, median ${wall.toFixed(2)} s wall = ${(bytes / MB / wall).toFixed(0)} MB/s; ${cpu.toFixed(2)} s CPU = ${(bytes / MB / cpu).toFixed(0)} MB per CPU-second (goal >= 100 MB/s)`);
  fs.rmSync(file);
}

async function streamedMemory(text: string, dir: string, megabytes: number): Promise<void> {
  const file = path.join(dir, 'script-big.txt');
  const bytes = await repeatInto(file, text, megabytes * MB);
  const child = spawnSync(process.execPath, [__filename, '--rss-of', file], { encoding: 'utf8' });
  const result = JSON.parse(child.stdout) as { maxRssKb: number; seconds: number };
  console.log(`streamed ${(bytes / MB).toFixed(0)} MB perf script: ${result.seconds.toFixed(1)} s, peak RSS ${(result.maxRssKb / 1024).toFixed(0)} MiB (goal < 1024 MiB)`);
  fs.rmSync(file);
}

async function main(): Promise<void> {
  const rssOf = flag('rss-of', '');
  if (rssOf) {
    const start = Date.now();
    await readProfileFile(rssOf);
    process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, seconds: (Date.now() - start) / 1000 }));
    return;
  }
  const dir = path.resolve(flag('data', path.join(repoRoot, 'bench/data/perf-ingest')));
  fs.mkdirSync(dir, { recursive: true });
  const binary = await buildLoopProgram(dir, flag('dwarf', '4'));
  const record = (name: string, callchains: string[]): string => {
    const data = path.join(dir, name);
    const result = spawnSync('perf', ['record', '-q', '-o', data, '-e', 'task-clock', '-c', '100000', ...callchains, '--', binary, flag('iterations', '4000')], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`perf record failed: ${result.stderr}`);
    return data;
  };
  const data = record('loop.data', ['-g']);
  await sideBySide(data, 'recording with frame-pointer callchains (perf record -g)');
  await sideBySide(record('loop-leaf.data', []), 'recording without callchains (leaf samples only)');

  const script = spawn('perf', perfScriptArgs(data), { stdio: ['ignore', 'pipe', 'ignore'] });
  script.stdout.setEncoding('latin1');
  let text = '';
  for await (const chunk of script.stdout) text += chunk as string;
  console.log(`perf script text of the recording: ${(text.length / MB).toFixed(1)} MB`);
  await parseSpeed(text, dir);
  await streamedMemory(text, dir, Number(flag('big-mb', '1000')));
}

main().catch((error) => {
  console.error(`perf-ingest bench: ${(error as Error).message}`);
  process.exitCode = 1;
});
