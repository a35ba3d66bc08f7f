// What the editor shows for a source line, computed from the store's facts: the lens
// title, the hover and the heat with its annotation. Pure functions of LineFacts.

import * as path from 'node:path';
import { claimText, curveTable, impactText, percent } from '../causal/claims';
import { CausalCurve, compareCurves } from '../causal/curves';
import { LineHeat } from '../protocol/lspExt';
import { LineCurve, LineFacts } from '../workspace/profileStore';
import { leadingSampled, offCpuFraction, sampledHoverSection, sampledSummary } from './sampleViews';

/** The curve a line is summarised by: its best-ranked one over profiles and progress points. */
export function leadingCurve(facts: LineFacts): LineCurve | undefined {
  let best: LineCurve | undefined;
  for (const entry of facts.curves) {
    if (!best || compareCurves(entry.curve, best.curve) < 0) best = entry;
  }
  return best;
}

export function lensTitle(curve: CausalCurve): string {
  if (curve.status.kind === 'insufficient') {
    return `Causal: collecting (${curve.points.length} of ${curve.points.length + curve.status.pointsMissing} speedups) · ${curve.experiments} experiments`;
  }
  return `Causal: ${claimText(curve)} · ${impactText(curve)} · ${curve.points.length} speedups`;
}

function curveSection(entry: LineCurve, showProfile: boolean): string {
  const { curve } = entry;
  const header =
    `**${curve.pointKind === 'latency' ? 'Latency' : 'Throughput'} point \`${curve.progressPoint}\`** · ` +
    `${curve.runs} run${curve.runs === 1 ? '' : 's'}, ${curve.experiments} experiments` +
    (showProfile ? ` · ${path.basename(entry.profile)}` : '');
  if (curve.status.kind === 'insufficient') {
    return `${header}\n\nNot enough experiments yet: ${curve.status.reason}.`;
  }
  const latencyNote =
    curve.pointKind === 'latency'
      ? '\n\n_Latency: a reduction is shown as a positive speedup (COZ\'s viewer shows it negated)._'
      : '';
  return `${header}\n\n${claimText(curve)} · ${impactText(curve)}\n\n${curveTable(curve)}${latencyNote}`;
}

export function hoverMarkdown(facts: LineFacts): string | undefined {
  if (facts.curves.length === 0 && facts.samples === 0 && facts.sampled.length === 0) return undefined;
  const parts = [`**Causal Lens** · line ${facts.line}`];
  if (facts.samples > 0) parts.push(`${percent(facts.share).replace('+', '')} of samples (${facts.samples})`);
  const profiles = new Set(facts.curves.map((c) => c.profile));
  const sections = [...facts.curves]
    .sort((a, b) => compareCurves(a.curve, b.curve))
    .map((entry) => curveSection(entry, profiles.size > 1));
  if (sections.length === 0 && facts.sampled.length === 0) sections.push('No causal experiments on this line yet.');
  for (const entry of facts.sampled) sections.push(sampledHoverSection(entry, path.basename(entry.profile)));
  return [parts.join(' · '), ...sections].join('\n\n---\n\n');
}

/** Heat for every line of a file with samples or curves; heat is relative to the file's hottest. */
export function fileHeat(lines: Iterable<LineFacts>, minShare: number): LineHeat[] {
  const shown = [...lines].filter((f) => f.share >= minShare || f.curves.length > 0);
  const hottest = Math.max(0, ...shown.map((f) => f.share));
  return shown.map((facts) => {
    const lead = leadingCurve(facts);
    const heat: LineHeat = {
      line: facts.line - 1,
      share: facts.share,
      heat: hottest > 0 && facts.share >= minShare ? facts.share / hottest : 0,
    };
    const texts: string[] = [];
    const tooltips: string[] = [];
    if (lead && lead.curve.status.kind === 'curve') {
      texts.push(claimText(lead.curve));
      tooltips.push(`${impactText(lead.curve)} · progress point ${lead.curve.progressPoint}`);
    }
    const sampled = leadingSampled(facts.sampled);
    if (sampled) {
      heat.offCpu = offCpuFraction(sampled);
      texts.push(sampledSummary(sampled));
      tooltips.push(`share of all sampled time in ${path.basename(sampled.profile)}, then the off-CPU classes`);
    }
    if (texts.length > 0) {
      heat.annotation = texts.join(' · ');
      heat.annotationTooltip = tooltips.join('\n');
    }
    return heat;
  });
}
