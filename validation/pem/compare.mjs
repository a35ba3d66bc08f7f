// Judges a model change on many kept placement runs at once: which cases miss in most runs (a
// bias of the model) and which now and then (the runs' noise), and what the change moved.
//   for d in DIR...; do node validation/pem/validate.mjs --kept $d --results BEFORE/$(basename $d).json; done
//   (change the model, npx tsc -p ., the same into AFTER/)
//   node validation/pem/compare.mjs BEFORE [AFTER]
// BEFORE and AFTER hold validate.mjs results files, one per kept run, with the same names. Prints
// per run the targets within 5% (traced / untraced), over all runs the mean |error|, and per case
// that misses in some run its mean error and the runs it misses in; with AFTER, both, and the
// cases whose mean moved by more than 0.1 point.

import './closed-pipe.mjs';
import * as fs from 'node:fs';
import * as path from 'node:path';

const GOAL_PERCENT = 5;
const [before, after] = process.argv.slice(2);
if (!before) {
  process.stderr.write('usage: node validation/pem/compare.mjs BEFORE_DIR [AFTER_DIR]\n');
  process.exit(2);
}

/** The results files of a directory, by name. */
function resultsIn(dir) {
  const runs = new Map();
  const fail = (message) => {
    process.stderr.write(`compare.mjs: ${message}\n`);
    process.exit(2);
  };
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) fail(`${dir} is not a directory`);
  for (const name of fs.readdirSync(dir).filter((file) => file.endsWith('.json')).sort()) {
    let results;
    try {
      results = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    } catch (error) {
      fail(`${path.join(dir, name)}: ${error.message}`);
    }
    if (Array.isArray(results?.rows)) runs.set(name.replace(/\.json$/, ''), results.rows);
  }
  if (runs.size === 0) fail(`${dir} holds no validate.mjs results (*.json with rows)`);
  return runs;
}

const within = (percent) => Math.abs(percent) <= GOAL_PERCENT;
const count = (rows, key) => rows.filter((row) => within(row[key])).length;
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
const signed = (percent) => `${percent >= 0 ? '+' : ''}${percent.toFixed(2)}%`;

/** Per case (program, traced placement, predicted placement): its errors over the runs. */
function byCase(runs) {
  const cases = new Map();
  for (const rows of runs.values()) {
    for (const row of rows) {
      const name = `${row.program} ${row.from} → ${row.to}`;
      const errors = cases.get(name) ?? { traced: [], untraced: [] };
      errors.traced.push(row.targetComputeErrorPercent);
      errors.untraced.push(row.untracedTargetErrorPercent);
      cases.set(name, errors);
    }
  }
  return cases;
}

const first = resultsIn(before);
const second = after ? resultsIn(after) : undefined;
const names = second ? [...first.keys()].filter((name) => second.has(name)) : [...first.keys()];
const missing = second ? [...first.keys()].filter((name) => !second.has(name)) : [];
if (missing.length > 0) process.stderr.write(`compare.mjs: not in ${after}, left out: ${missing.join(', ')}\n`);

/** A run's targets within the goal and its summed |error|, traced and untraced. */
function summary(rows) {
  const sum = (key) => rows.reduce((total, row) => total + Math.abs(row[key]), 0);
  return {
    traced: count(rows, 'targetComputeErrorPercent'),
    untraced: count(rows, 'untracedTargetErrorPercent'),
    tracedError: sum('targetComputeErrorPercent'),
    untracedError: sum('untracedTargetErrorPercent'),
  };
}

const models = second ? [first, second] : [first];
const totals = models.map(() => ({ traced: 0, untraced: 0, tracedError: 0, untracedError: 0 }));
let cases = 0;
for (const name of names) {
  const runs = models.map((runsOf) => summary(runsOf.get(name)));
  process.stdout.write(`${name}: ${runs.map((run) => `${run.traced} / ${run.untraced}`).join(' → ')} of ${first.get(name).length}\n`);
  runs.forEach((run, i) => {
    for (const key of Object.keys(run)) totals[i][key] += run[key];
  });
  cases += first.get(name).length;
}
const across = (show) => totals.map(show).join(' → ');
process.stdout.write(
  `all ${names.length} runs: traced targets within ${GOAL_PERCENT}% ${across((t) => t.traced)}, untraced ${across((t) => t.untraced)}, of ${cases}; ` +
    `mean |error| traced ${across((t) => `${(t.tracedError / cases).toFixed(2)}%`)}, untraced ${across((t) => `${(t.untracedError / cases).toFixed(2)}%`)}\n\n`,
);

const pick = (runs) => byCase(new Map(names.map((name) => [name, runs.get(name)])));
const casesBefore = pick(first);
const casesAfter = second ? pick(second) : undefined;
const describe = (errors) => `${signed(mean(errors))}, misses ${errors.filter((e) => !within(e)).length}`;
process.stdout.write(`case: traced targets (mean error, runs missed) | untraced targets${second ? ', before → after' : ''}\n`);
for (const [name, errors] of casesBefore) {
  const later = casesAfter?.get(name);
  if (later && Math.abs(mean(later.traced) - mean(errors.traced)) + Math.abs(mean(later.untraced) - mean(errors.untraced)) <= 0.1) continue;
  const traced = later ? `${describe(errors.traced)} → ${describe(later.traced)}` : describe(errors.traced);
  const untraced = later ? `${describe(errors.untraced)} → ${describe(later.untraced)}` : describe(errors.untraced);
  if (!later && errors.traced.every(within) && errors.untraced.every(within)) continue;
  process.stdout.write(`${name}: ${traced} | ${untraced}\n`);
}
