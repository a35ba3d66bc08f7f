/**
 * Ingestion throughput: readProfileFile on the generated profile, N times in one process.
 * Prints MB/s (10^6 bytes/s, as the goal is written: the first, cold read; the median; the slowest) by wall time and by this process's
 * CPU time (less sensitive to other load on the machine), the peak RSS and the heap the
 * parsed profile keeps alive, then the time computeCurves takes on it (not part of ingestion:
 * the server does it right after reading).
 *
 *   node --expose-gc out/bench/ingest.js [--file bench/data/large.coz] [--runs 5]
 */
import * as fs from 'node:fs';
import { DEFAULT_CURVE_OPTIONS, computeCurves } from '../server/src/causal/curves';
import { readProfileFile } from '../server/src/import';
import { Profile } from '../server/src/model/profile';
import { DEFAULT_PROFILE, MB, MiB, flag, median, ms, record } from './stats';

const gc = (globalThis as { gc?: () => void }).gc;

function heapMiB(): number {
  gc?.();
  return process.memoryUsage().heapUsed / MiB;
}

async function main(): Promise<void> {
  const file = flag('file', DEFAULT_PROFILE);
  const runs = Number(flag('runs', '5'));
  const bytes = fs.statSync(file).size;
  const size = bytes / MB;
  const baseHeap = heapMiB();
  const rates: number[] = [];
  const cpuRates: number[] = [];
  let profile: Profile | undefined;
  let retained = 0;
  for (let i = 0; i < runs; i++) {
    profile = undefined;
    gc?.();
    const cpu = process.cpuUsage();
    const start = performance.now();
    profile = await readProfileFile(file);
    rates.push(size / ((performance.now() - start) / 1000));
    const used = process.cpuUsage(cpu);
    cpuRates.push(size / ((used.user + used.system) / 1e6));
    retained = Math.max(retained, heapMiB() - baseHeap);
  }
  const p = profile!;
  const curveTimes: number[] = [];
  let curves = 0;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const computed = computeCurves(p, DEFAULT_CURVE_OPTIONS);
    curveTimes.push(performance.now() - start);
    curves = computed.filter((c) => c.status.kind === 'curve').length;
  }
  const peakRss = process.resourceUsage().maxRSS / 1024;
  const fmt = (rate: number): string => rate.toFixed(0);
  console.log(
    `ingest: ${size.toFixed(1)} MB (${(bytes / MiB).toFixed(1)} MiB), ${p.runs.length} runs, ${p.experiments.length} experiments, ${p.problems.length} problems; ${runs} reads`,
  );
  console.log(`ingest MB/s (wall): first ${fmt(rates[0])}, median ${fmt(median(rates))}, slowest ${fmt(Math.min(...rates))}`);
  // CPU time of this process (parser + GC threads): what the figure would be on an idle machine.
  console.log(`ingest MB/s (CPU time): first ${fmt(cpuRates[0])}, median ${fmt(median(cpuRates))}, slowest ${fmt(Math.min(...cpuRates))}`);
  console.log(`ingest memory: peak RSS ${peakRss.toFixed(0)} MiB, heap kept by the profile ${gc ? retained.toFixed(0) : '? (run with --expose-gc)'} MiB`);
  record(
    {
      what: `Ingestion: readProfileFile, ${size.toFixed(0)} MB COZ profile, median of ${runs}`,
      value: `${fmt(median(rates))} MB/s (CPU time ${fmt(median(cpuRates))}; first, cold read ${fmt(rates[0])}; slowest ${fmt(Math.min(...rates))})`,
      goal: '≥ 100 MB/s',
      met: median(rates) >= 100,
    },
    { what: 'Ingestion: peak RSS / heap kept by the parsed profile', value: `${peakRss.toFixed(0)} MiB / ${retained.toFixed(0)} MiB` },
    { what: `computeCurves on it (${curves} curves, ${DEFAULT_CURVE_OPTIONS.resamples} bootstrap resamples)`, value: `${ms(median(curveTimes))} ms` },
  );
  console.log(`computeCurves: median ${ms(median(curveTimes))} ms, first ${ms(curveTimes[0])} ms (${curves} curves, ${DEFAULT_CURVE_OPTIONS.resamples} resamples)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
