// What the side panel shows, from the store and the workspace: a line's curves for the
// Causal tab, and the traces, networks and run tables its other tabs pick from.

import * as path from 'node:path';
import { claimText, impactText } from '../causal/claims';
import { compareCurves } from '../causal/curves';
import { CurveResult, PanelCurve } from '../protocol/lspExt';
import { LineFacts } from '../workspace/profileStore';
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
    const root = roots.find((r) => file.startsWith(r + path.sep));
    return { path: file, label: root ? path.relative(root, file) : file };
  });
}
