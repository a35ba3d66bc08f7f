// What the side panel shows, from the store and the workspace: a line's curves for the
// Causal tab, the traces, networks and run tables its other tabs pick from, and the
// Scaling tab's fit.

import * as path from 'node:path';
import { claimText, impactText } from '../causal/claims';
import { compareCurves } from '../causal/curves';
import { FitResult, finitePredictions, fitRuns, overflowProblem } from '../fit';
import { ScalingTable, readScalingCsv } from '../import/scalingCsv';
import { COMM_TABLE_PRESETS, isCommTablePreset, loadCommTable } from '../network/commTable';
import { CancelledError, DEFAULT_TRACED_NETWORK, openTrace, predictionProblems, predictScenarios, resolveNetwork } from '../pem';
import {
  CurveResult,
  FitParams,
  FitResult as FitPanelResult,
  PanelCurve,
  WhatIfOptionsResult,
  WhatIfParams,
  WhatIfResult,
} from '../protocol/lspExt';
import { LineFacts } from '../workspace/profileStore';
import { isInside } from '../workspace/pathResolver';
import { scanWorkspace } from '../workspace/scan';

/** The curves of a line (1-based `facts.line`), best first, as the panel charts them. */
export function panelCurves(uri: string, facts: LineFacts | undefined, line0: number, file: string): CurveResult {
  const label = `${path.basename(file)}:${line0 + 1}`;
  if (!facts) return { uri, line: line0, label, curves: [] };
  const curves: PanelCurve[] = [...facts.curves]
    .sort((a, b) => compareCurves(a.curve, b.curve))
    .map(({ curve, profile }) => ({
      progressPoint: curve.progressPoint,
      profile,
      summary: curve.status.kind === 'curve' ? `${claimText(curve)} · ${impactText(curve)}` : claimText(curve),
      points: curve.points.map((p) => ({ x: p.lineSpeedup, y: p.programSpeedup, low: p.low, high: p.high, experiments: p.experiments })),
    }));
  return { uri, line: line0, label, curves };
}

/** Workspace files matching `globs`, labelled relative to the first root that holds them. */
export async function workspaceEntries(roots: readonly string[], globs: readonly string[]): Promise<{ path: string; label: string }[]> {
  const { matching } = await scanWorkspace(roots, globs);
  return matching.sort().map((file) => {
    const root = roots.find((r) => isInside(r, file));
    return { path: file, label: root ? path.relative(root, file) : file };
  });
}

/** The panel only names files the server listed, but it is a separate origin: check anyway. */
export function insideRoots(roots: readonly string[], file: string): boolean {
  return roots.some((root) => isInside(root, path.resolve(file)));
}

/** The Scaling tab's fit: the model, each component's runs, a dense curve with its band, and predictions. */
export async function scalingFit(params: FitParams): Promise<FitPanelResult> {
  let table: ScalingTable;
  try {
    table = await readScalingCsv(params.csv);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const problems = table.problems.map((p) => `${path.basename(p.file)}:${p.line}: ${p.message}`);
  if (table.runs.length === 0) return { ok: false, message: `${path.basename(params.csv)}: no runs could be read. ${problems.slice(0, 3).join(' ')}` };
  let result: FitResult;
  try {
    result = fitRuns(table.runs, { parameter: table.parameter });
  } catch (error) {
    return { ok: false, message: `${path.basename(params.csv)}: ${(error as Error).message}` };
  }
  const xs = table.runs.map((r) => r.x);
  // Where the model overflows there is no prediction to draw or list: said among the problems.
  const { predictions, overflowAt } = finitePredictions(result, params.predictAt);
  problems.push(...overflowAt.map((x) => overflowProblem(x, result.formula)));
  const low = Math.min(...xs);
  const high = Math.max(...xs, ...predictions.map((p) => p.x));
  // Log-spaced: scaling runs double x, and the chart's x axis is logarithmic.
  const grid = Array.from({ length: CURVE_POINTS }, (_, i) => low * (high / low) ** (i / (CURVE_POINTS - 1)));
  return {
    ok: true,
    model: result.formula,
    components: result.components.map((c) => ({
      component: c.component ?? table.metric,
      model: c.formula,
      points: c.xs.map((x, i) => ({ x, y: c.ys[i] })),
    })),
    curve: finitePredictions(result, grid).predictions,
    predictions,
    problems,
  };
}

const CURVE_POINTS = 120;

/**
 * The What-if tab's choices: the workspace's traces with their rank counts (absent when
 * unreadable: the run names the problem when the trace is picked) and the table measured on the
 * host each was recorded on, if the workspace has one; the presets, then the workspace's tables.
 */
export async function whatIfOptions(roots: readonly string[], traceGlobs: readonly string[], tableGlobs: readonly string[]): Promise<WhatIfOptionsResult> {
  const presets = COMM_TABLE_PRESETS.map((p) => ({ id: p.name, label: p.name, description: p.description }));
  const hostTables = new Map<string, string>();
  const tables = (await workspaceEntries(roots, tableGlobs)).map((entry) => {
    let description: string;
    try {
      const table = loadCommTable(entry.path);
      description = table.name;
      if (table.host !== undefined && !hostTables.has(table.host)) hostTables.set(table.host, entry.path);
    } catch (error) {
      description = `unreadable: ${(error as Error).message}`;
    }
    return { id: entry.path, label: entry.label, description };
  });
  const traces = (await workspaceEntries(roots, traceGlobs)).map((entry) => {
    try {
      const ranks = openTrace(entry.path).ranks;
      const hosts = new Set(ranks.map((r) => r.host));
      const recordedWith = hosts.size === 1 ? hostTables.get([...hosts][0]) : undefined;
      return { ...entry, ranks: ranks.length, ...(recordedWith ? { recordedWith } : {}) };
    } catch {
      return entry;
    }
  });
  return { traces, networks: [...presets, ...tables], assumedTracedNetwork: DEFAULT_TRACED_NETWORK.name };
}

/** Runs PEM for the panel; files it names must be in the workspace, a preset, or a model. */
export async function whatIfForPanel(
  roots: readonly string[],
  params: WhatIfParams,
  progress: (fraction: number) => void,
  cancelled: () => boolean,
): Promise<WhatIfResult> {
  const outside = [params.trace, params.tracedNetwork, ...params.scenarios.map((s) => s.network)].find(
    (file) => typeof file === 'string' && !isCommTablePreset(file) && !insideRoots(roots, file),
  );
  if (typeof outside === 'string') return { ok: false, message: `${outside} is outside the workspace` };
  try {
    const tracedNetwork = params.tracedNetwork ? resolveNetwork(params.tracedNetwork) : undefined;
    const prediction = await predictScenarios(params.trace, params.scenarios, { coresPerNode: params.coresPerNode, tracedNetwork, tableSpread: params.tableSpread }, progress, cancelled);
    return { ok: true, measuredSeconds: prediction.measuredSeconds, scenarios: prediction.scenarios, notes: prediction.notes, warnings: prediction.warnings, problems: predictionProblems(prediction) };
  } catch (error) {
    if (error instanceof CancelledError) return { ok: false, message: 'Cancelled.' };
    return { ok: false, message: (error as Error).message };
  }
}
