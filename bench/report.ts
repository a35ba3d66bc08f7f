/**
 * Prints the figures the benches recorded in $BENCH_RESULTS (see stats.ts `record`) as a
 * Markdown table for the README, with the machine they were measured on.
 *
 *   node out/bench/report.js bench/data/results.jsonl
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { describeMachine } from './machine';
import { Figure } from './stats';

const file = process.argv[2];
const figures = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Figure);
const cell = (text: string): string => text.replace(/\|/g, '\\|');
const rows = figures.map((f) => {
  const verdict = f.met === undefined ? '' : f.met ? 'met' : '**missed**';
  return `| ${cell(f.what)} | ${cell(f.value)} | ${cell(f.goal ?? '')} | ${verdict} |`;
});
console.log('| Measure | Result | Goal | |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
console.log();
console.log(
  `Machine: ${describeMachine()}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} when the table was printed.`,
);
