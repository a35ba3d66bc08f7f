/**
 * Writes a large, realistic COZ profile (G1 legacy TSV, as COZ 0.2.2 writes it) for the benches.
 * Deterministic for a given --seed and --mb, streamed to disk in ~1 MiB chunks.
 *
 *   node out/bench/generate-profile.js [--mb 100] [--out bench/data/large.coz] [--seed 1]
 *
 * Shape (see /work/shared/reference/coz.md §1): runs delimited by `startup`; each experiment
 * targets one of LINES source lines over FILES files of /build/src/moduleN.c, chosen by a
 * zipf-like weight (COZ picks lines in proportion to their samples); speedup 0 with
 * probability 8/28, else 0.05..1.00 uniformly; after each experiment one record per progress
 * point of the run (one throughput point, sometimes two, sometimes plus a latency point);
 * every 32 experiments a `runtime` record (ns since that experiment started: COZ's quirk) and
 * a cumulative `samples` block; at the end of a run the real runtime and a last block.
 * The file stops at the end of the run during which it reached the requested size.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../server/src/causal/random';

export const FILES = 36;
export const LINES = 320;
export const MAX_LINE = 2000;
const SAMPLE_LOG_INTERVAL = 32;
const SPEEDUP_DIVISIONS = 20;
const ZERO_SPEEDUP_WEIGHT = 7;
const THREADS = 4;
const CHUNK_BYTES = 1 << 20;
const MAIN_POINT = 'module0.c:57';
const SECOND_POINT = 'batches';
const LATENCY_POINT = 'request';

interface SourceLine {
  location: string;
  /** Relative sample weight (zipf-like), normalized to sum 1. */
  weight: number;
  /** Program speedup per unit of line speedup: most lines ~0, a few up to 0.4. */
  effect: number;
}

export interface GenerateResult {
  bytes: number;
  runs: number;
  experiments: number;
  sampleBytes: number;
}

function parseArgs(argv: string[]): { mb: number; out: string; seed: number } {
  const options = { mb: 100, out: 'bench/data/large.coz', seed: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--mb') options.mb = Number(value);
    else if (flag === '--out') options.out = value;
    else if (flag === '--seed') options.seed = Number(value);
    else throw new Error(`unknown flag ${flag}; usage: [--mb 100] [--out bench/data/large.coz] [--seed 1]`);
  }
  if (!(options.mb > 0)) throw new Error('--mb must be a positive number');
  return options;
}

/** The profiled program's lines: distinct (file, line) pairs, hottest first. */
function sourceLines(random: () => number): SourceLine[] {
  const seen = new Set<string>();
  const lines: SourceLine[] = [];
  while (lines.length < LINES) {
    // Files are themselves zipf-like: a few modules hold most hot lines.
    const file = Math.min(FILES - 1, Math.floor(FILES * random() ** 2));
    const location = `/build/src/module${file}.c:${10 + Math.floor(random() * (MAX_LINE - 10))}`;
    if (seen.has(location)) continue;
    seen.add(location);
    const rank = lines.length + 1;
    const effect = random() < 0.1 ? 0.05 + 0.35 * random() : 0.02 * random();
    lines.push({ location, weight: 1 / rank ** 1.05, effect });
  }
  const total = lines.reduce((sum, line) => sum + line.weight, 0);
  for (const line of lines) line.weight /= total;
  return lines;
}

/** Picks an index by weight with a precomputed cumulative table (binary search). */
function picker(weights: number[], random: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const weight of weights) cumulative.push((sum += weight));
  return () => {
    const r = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function generateProfile(file: string, targetBytes: number, seed: number): GenerateResult {
  const random = mulberry32(seed);
  const lines = sourceLines(random);
  const pickLine = picker(lines.map((line) => line.weight), random);
  const fd = fs.openSync(file, 'w');
  let buffer = '';
  let bytes = 0;
  let sampleBytes = 0;
  const write = (text: string): void => {
    buffer += text;
    if (buffer.length >= CHUNK_BYTES) flush();
  };
  const flush = (): void => {
    bytes += fs.writeSync(fd, buffer);
    buffer = '';
  };
  /** ~1 sample per ms of task clock per thread, spread over the lines by weight (with noise). */
  const addSamples = (counts: number[], ns: number): void => {
    const samples = (ns / 1e6) * THREADS;
    counts.forEach((_, i) => (counts[i] += Math.floor(samples * lines[i].weight * (0.8 + 0.4 * random()))));
  };
  const writeSamples = (counts: number[]): void => {
    let block = '';
    counts.forEach((count, i) => {
      if (count > 0) block += `samples\tlocation=${lines[i].location}\tcount=${count}\n`;
    });
    sampleBytes += block.length;
    write(block);
  };

  let runs = 0;
  let experiments = 0;
  let time = 1_795_315_271_503_947_298n;
  try {
    while (bytes + buffer.length < targetBytes) {
      runs++;
      const runExperiments = 500 + Math.floor(random() * 2500);
      const pointsKind = random();
      const secondPoint = pointsKind >= 0.6 && pointsKind < 0.85;
      const latencyPoint = pointsKind >= 0.85;
      const counts = new Array<number>(lines.length).fill(0);
      let runtimeNs = 0;
      let sinceLog = 0;
      write(`startup\ttime=${time}\n`);
      for (let e = 1; e <= runExperiments && bytes + buffer.length < targetBytes; e++) {
        experiments++;
        const line = lines[pickLine()];
        const r = Math.floor(random() * (SPEEDUP_DIVISIONS + ZERO_SPEEDUP_WEIGHT + 1));
        const speedup = r <= ZERO_SPEEDUP_WEIGHT ? 0 : (r - ZERO_SPEEDUP_WEIGHT) / SPEEDUP_DIVISIONS;
        const duration = Math.round(480_000_000 + random() * 30_000_000);
        const selectedSamples = Math.round((duration / 1e6) * THREADS * line.weight * (0.5 + random()));
        // Virtually speeding the line up shortens the period between progress-point visits.
        const rate = (1 + line.effect * speedup) * (0.9 + 0.2 * random());
        const delta = Math.max(1, Math.round((duration / 5_500_000) * rate));
        write(
          `experiment\tselected=${line.location}\tspeedup=${speedup.toFixed(2)}\tduration=${duration}\tselected-samples=${selectedSamples}\n` +
            `throughput-point\tname=${MAIN_POINT}\tdelta=${delta}\n`,
        );
        if (secondPoint) write(`throughput-point\tname=${SECOND_POINT}\tdelta=${Math.max(1, Math.round(delta / 8 + random() * 3))}\n`);
        if (latencyPoint) {
          const arrivals = Math.max(1, Math.round(delta / 2 + random() * 4));
          // Items in flight (Little's law: L = λW) shrink when the line is sped up.
          const inFlight = Math.max(0, Math.round((6 / rate) * (0.8 + 0.4 * random())));
          write(`latency-point\tname=${LATENCY_POINT}\tarrivals=${arrivals}\tdepartures=${arrivals - Math.floor(random() * 3)}\tdifference=${inFlight}\n`);
        }
        runtimeNs += duration + 10_000_000;
        sinceLog += duration;
        if (e % SAMPLE_LOG_INTERVAL === 0) {
          write(`runtime\ttime=${duration + Math.floor(random() * 2_000_000)}\n`);
          addSamples(counts, sinceLog);
          sinceLog = 0;
          writeSamples(counts);
        }
      }
      write(`runtime\ttime=${runtimeNs}\n`);
      addSamples(counts, sinceLog);
      writeSamples(counts);
      time += BigInt(runtimeNs) + 5_000_000_000n;
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, runs, experiments, sampleBytes };
}

if (require.main === module) {
  const options = parseArgs(process.argv.slice(2));
  fs.mkdirSync(path.dirname(options.out), { recursive: true });
  const started = performance.now();
  const result = generateProfile(options.out, options.mb * 1024 * 1024, options.seed);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${options.out}: ${(result.bytes / 2 ** 20).toFixed(1)} MiB, ${result.runs} runs, ${result.experiments} experiments, ` +
      `${Math.round((100 * result.sampleBytes) / result.bytes)}% of bytes in samples blocks (${seconds.toFixed(1)} s)`,
  );
}
