// `causal-lens whatif [--json] TRACE [--placement N/M[:cyclic]]... [--map FILE]... [--network FILE|PRESET]...
//  [--cores C] [--traced-network FILE|PRESET] [--event-cost-ns NS|auto] [--compute-from TRACE
//  [--compute-from-network FILE|PRESET]] [--spread]`: PEM predictions from one OTF2 trace.
// Every placement is combined with every network; with no scenario flag the traced
// configuration itself is predicted.

import { openTrace, predictionProblems, predictScenarios, readMapFile, resolveNetwork, ScenarioSpec } from '../pem';
import { ScenarioError } from '../pem/scenario';
import { parseFlags, repeated, UsageError } from './flags';

function placementSpec(text: string, ranks: number): ScenarioSpec {
  const m = /^(\d+)\/(\d+)(?::(block|cyclic))?$/.exec(text.trim());
  if (!m) throw new UsageError(`--placement "${text}" is not N/M, N/M:block or N/M:cyclic`);
  if (Number(m[1]) !== ranks) throw new UsageError(`--placement ${text}: the trace has ${ranks} ranks (PEM moves the traced processes, it does not change their number)`);
  const nodes = Number(m[2]);
  if (nodes < 1 || nodes > ranks) throw new UsageError(`--placement ${text}: needs 1 to ${ranks} nodes`);
  return { nodes, cyclic: m[3] === 'cyclic' };
}

function eventCost(text: string | undefined): number | 'auto' | undefined {
  if (text === undefined || text === 'auto') return text;
  const ns = Number(text);
  // A tracer costing a millisecond a call would be the program: a typo, which would zero every computation.
  if (!(ns >= 0 && ns <= 1e6)) throw new UsageError(`--event-cost-ns needs "auto" or 0 to 1000000 nanoseconds, got "${text}"`);
  return ns * 1e-9;
}

export async function runWhatif(args: string[], out: (t: string) => void, err: (t: string) => void, progress?: (fraction: number) => void): Promise<number> {
  const parsed = parseFlags(args, {
    json: 'boolean',
    cores: 'integer',
    'traced-network': 'string',
    'event-cost-ns': 'string',
    'compute-from': 'string',
    'compute-from-network': 'string',
    placement: 'strings',
    map: 'strings',
    network: 'strings',
    spread: 'boolean',
  });
  const { flags, positional } = parsed;
  const values = { placement: repeated(parsed, 'placement'), map: repeated(parsed, 'map'), network: repeated(parsed, 'network') };
  if (positional.length !== 1) throw new UsageError('whatif needs exactly one TRACE (the .otf2 anchor file)');
  const trace = positional[0];
  if (flags.cores === 0) throw new UsageError('--cores needs at least 1');
  if (flags['compute-from-network'] !== undefined && flags['compute-from'] === undefined) throw new UsageError('--compute-from-network says which network the --compute-from trace was recorded on: give --compute-from TRACE too');
  let ranks: number;
  try {
    ranks = openTrace(trace).ranks.length;
  } catch (error) {
    if (error instanceof ScenarioError) throw new Error(error.message);
    throw error;
  }
  const placements: ScenarioSpec[] = [
    ...values.placement.map((text) => placementSpec(text, ranks)),
    ...values.map.map((file) => ({ map: readMapFile(file), mapSource: file })),
  ];
  const networks: (string | undefined)[] = values.network.length > 0 ? values.network : [undefined];
  const scenarios: ScenarioSpec[] = [];
  for (const placement of placements.length > 0 ? placements : [{}]) {
    for (const network of networks) scenarios.push({ ...placement, ...(network !== undefined ? { network } : {}) });
  }
  let prediction;
  try {
    prediction = await predictScenarios(trace, scenarios, {
      coresPerNode: flags.cores as number | undefined,
      tracedNetwork: flags['traced-network'] !== undefined ? resolveNetwork(flags['traced-network'] as string) : undefined,
      eventCostSeconds: eventCost(flags['event-cost-ns'] as string | undefined),
      computeFrom: flags['compute-from'] as string | undefined,
      computeFromNetwork: flags['compute-from-network'] !== undefined ? resolveNetwork(flags['compute-from-network'] as string) : undefined,
      tableSpread: flags.spread === true,
    }, progress);
  } catch (error) {
    if (error instanceof ScenarioError) throw new Error(error.message);
    throw error;
  }
  const problems = predictionProblems(prediction);
  if (flags.json) {
    out(
      `${JSON.stringify({
        measuredSeconds: prediction.measuredSeconds,
        scenarios: prediction.scenarios.map(({ placement, network, predictedSeconds, perRank, criticalPath, tableSpread }) => ({ placement, network, predictedSeconds, perRank, criticalPath, ...(tableSpread ? { tableSpread } : {}) })),
      })}\n`,
    );
  } else {
    out(`measured ${prediction.measuredSeconds.toFixed(4)} s (suspensions removed)\n`);
    for (const s of prediction.scenarios) {
      const c = s.criticalPath;
      const vsMeasured = ((s.predictedSeconds - prediction.measuredSeconds) / prediction.measuredSeconds) * 100;
      const spread = s.tableSpread ? `, ${s.tableSpread.lowSeconds.toFixed(4)}–${s.tableSpread.highSeconds.toFixed(4)} s over the tables' spread` : '';
      out(
        `${s.placement.padEnd(18)} ${s.network.padEnd(40)} ${s.predictedSeconds.toFixed(4)} s (${vsMeasured >= 0 ? '+' : ''}${vsMeasured.toFixed(1)}% vs measured${spread})  (critical path: compute ${c.computeSeconds.toFixed(4)}, communication ${c.commSeconds.toFixed(4)}, waiting for a CPU ${c.waitSeconds.toFixed(4)})\n`,
      );
    }
  }
  for (const warning of prediction.warnings) err(`causal-lens whatif: warning: ${warning}\n`);
  for (const note of prediction.notes) err(`causal-lens whatif: note: ${note}\n`);
  for (const problem of problems) err(`causal-lens whatif: ${problem}\n`);
  return problems.length > 0 ? 1 : 0;
}
