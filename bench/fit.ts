// Fitting accuracy and speed: the 24 cachegrind predictions of docs/scaling.md (fit the small
// runs of each series in test/fixtures/scaling/, predict its two large runs) and issue 6's
// robustness case, as a markdown table, with the time each fit took.
//
//   node out/bench/fit.js [--dir test/fixtures/scaling]

import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fitRuns, predict } from '../server/src/fit';
import { SCALING_FIXTURES, checkSeries, plogpTruth, plogpWithOutlier, seriesNames } from '../test/unit/fit-data';
import { flag, ms } from './stats';

const dir = path.resolve(flag('dir', SCALING_FIXTURES));
const percent = (e: number) => `${(100 * e).toFixed(3)}%`;
const count = (v: number) => Math.round(v).toLocaleString('en-US');

const lines = ['| series | x | model (sum of the components) | predicted [band] | measured | error |', '|---|---|---|---|---|---|'];
let under1 = 0;
let inBand = 0;
let total = 0;
const times: number[] = [];
for (const series of seriesNames(dir)) {
  const start = performance.now();
  const { fit, checked } = checkSeries(series, dir);
  times.push(performance.now() - start);
  for (const c of checked) {
    total++;
    if (Math.abs(c.error) < 0.01) under1++;
    if (c.low <= c.measured && c.measured <= c.high) inBand++;
    lines.push(`| ${series} | ${c.x} | ${fit.formula} | ${count(c.predicted)} [${count(c.low)}, ${count(c.high)}] | ${count(c.measured)} | ${percent(c.error)} |`);
  }
}
process.stdout.write(lines.join('\n') + `\n\n${under1} of ${total} predictions under 1% error; ${inBand} of ${total} measured values inside the band.\n`);

const start = performance.now();
const robust = fitRuns(plogpWithOutlier(), { parameter: 'p' });
const robustMs = performance.now() - start;
const [at1024] = predict(robust, [1024]);
const c = robust.components[0];
process.stdout.write(
  `\nrobustness case: ${robust.formula}; p=1024: ${at1024.y.toFixed(1)} [${at1024.low.toFixed(1)}, ${at1024.high.toFixed(1)}], ` +
    `truth ${plogpTruth(1024).toFixed(1)}, error ${percent((plogpTruth(1024) - at1024.y) / plogpTruth(1024))}; ` +
    `down-weighted: ${c.downWeighted.map((d) => `p=${d.x} y=${d.y.toFixed(2)} w=${d.weight.toFixed(4)}`).join(', ')}\n`,
);
const sorted = [...times].sort((a, b) => a - b);
process.stdout.write(`\nfit time per series (all components): median ${ms(sorted[sorted.length >> 1])} ms, max ${ms(sorted[sorted.length - 1])} ms; robustness case ${ms(robustMs)} ms\n`);
