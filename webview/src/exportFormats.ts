// What the Export buttons write: one row per scenario, then one per (scenario, rank).

import type { WhatIfResult } from '../../server/src/protocol/lspExt';

function csvField(value: string | number): string {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A scenario's row holds its critical path (compute_s, comm_s, wait_s); a rank's row its finish
 * (predicted_s) and the CPU the replay gave its computations and its MPI calls (cpu_compute_s,
 * cpu_calls_s).
 */
export function scenariosCsv(result: Extract<WhatIfResult, { ok: true }>): string {
  const lines = [['placement', 'network', 'rank', 'predicted_s', 'measured_s', 'compute_s', 'comm_s', 'wait_s', 'cpu_compute_s', 'cpu_calls_s', 'spread_low_s', 'spread_high_s'].join(',')];
  for (const s of result.scenarios) {
    const path = s.criticalPath;
    lines.push([s.placement, s.network, 'all', s.predictedSeconds, result.measuredSeconds, path.computeSeconds, path.commSeconds, path.waitSeconds, '', '', s.tableSpread?.lowSeconds ?? '', s.tableSpread?.highSeconds ?? ''].map(csvField).join(','));
    for (const rank of s.perRank) lines.push([s.placement, s.network, rank.rank, rank.finishSeconds, '', '', '', '', rank.computeCpuSeconds, rank.callCpuSeconds, '', ''].map(csvField).join(','));
  }
  return lines.join('\n') + '\n';
}
