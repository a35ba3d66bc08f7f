// `causal-lens fit [--json] [--predict X]... CSV`: the scaling model of a run table (seed 003),
// computed by the same module as the Scaling panel's, and its predictions at larger x.

import { ComponentModel, FitResult, ModelTerm, Prediction, finitePredictions, fitRuns, overflowProblem, predictComponent } from '../fit';
import { ScalingTable, readScalingCsv } from '../import/scalingCsv';
import { UsageError, parseFlags, repeated } from './flags';

/** The `--predict` values as positive numbers. */
function predictionXs(values: readonly string[]): number[] {
  return values.map((value) => {
    const x = Number(value);
    if (!(x > 0) || !Number.isFinite(x)) throw new UsageError(`--predict needs a positive number, got "${value}"`);
    return x;
  });
}

function termJson(t: ModelTerm) {
  const term = t.term;
  return {
    term: t.label,
    coefficient: t.coefficient,
    exponent: !term ? 0 : term.kind === 'power' ? term.num / term.den : null,
    log: !term ? 0 : term.kind === 'power' ? term.log : null,
  };
}

function toJson(table: ScalingTable, result: FitResult, predictions: Prediction[], overflowAt: number[]): unknown {
  const xs = predictions.map((p) => p.x);
  const componentJson = (c: ComponentModel) => ({
    component: c.component ?? null,
    model: c.formula,
    terms: c.terms.map(termJson),
    looError: c.looError,
    downWeighted: c.downWeighted,
    predictions: predictComponent(c, xs),
  });
  return {
    parameter: table.parameter,
    metric: table.metric,
    model: result.formula,
    terms: result.terms.map(termJson),
    predictions,
    // The --predict x where the model has no finite value: left out of predictions, not dropped unsaid.
    noPredictionAt: overflowAt,
    components: result.components.map(componentJson),
    skipped: table.skipped,
    problems: table.problems,
  };
}

const count = (v: number) => (Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : String(Number(v.toPrecision(6))));
const percent = (v: number) => `${(100 * v).toPrecision(2)}%`;

function toText(table: ScalingTable, result: FitResult, predictions: Prediction[]): string {
  const lines = [`${table.metric}(${result.parameter}) = ${result.formula}`];
  const named = result.components.filter((c) => c.component !== undefined);
  if (named.length > 0) lines.push(`  the sum of ${result.components.length} component models:`);
  for (const c of result.components) {
    const name = c.component === undefined ? '' : `${c.component}: `;
    lines.push(`  ${name}${c.formula}   (leave-one-out error ${percent(c.looError)})`);
    for (const d of c.downWeighted) lines.push(`    down-weighted: ${result.parameter}=${d.x} ${table.metric}=${count(d.y)} (Cauchy weight ${d.weight.toPrecision(2)})`);
  }
  if (predictions.length > 0) {
    const rows = predictions.map((p) => [String(p.x), count(p.y), `${count(p.low)} … ${count(p.high)}`]);
    const header = [result.parameter, `predicted ${table.metric}`, 'band'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
    lines.push('', format(header), ...rows.map(format));
  }
  return lines.join('\n') + '\n';
}

export async function runFit(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const parsed = parseFlags(args, { json: 'boolean', predict: 'strings' });
  const { flags, positional } = parsed;
  const xs = predictionXs(repeated(parsed, 'predict'));
  if (positional.length !== 1) throw new UsageError('fit needs exactly one CSV file');
  const table = await readScalingCsv(positional[0]);
  for (const problem of table.problems) err(`${problem.file}:${problem.line}: ${problem.severity}: ${problem.message}\n`);
  if (table.runs.length === 0) return 1;
  let result: FitResult;
  try {
    result = fitRuns(table.runs, { parameter: table.parameter });
  } catch (error) {
    err(`${table.source}: ${(error as Error).message}\n`);
    return 1;
  }
  const { predictions, overflowAt } = finitePredictions(result, xs);
  for (const x of overflowAt) err(`causal-lens fit: ${overflowProblem(x, result.formula)}\n`);
  out(flags.json ? JSON.stringify(toJson(table, result, predictions, overflowAt), null, 2) + '\n' : toText(table, result, predictions));
  return table.problems.length > 0 || overflowAt.length > 0 ? 1 : 0;
}
