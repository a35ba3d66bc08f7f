// `causal-lens report [--json] [--min-points N] FILE...`: the ranking the editor shows,
// computed by the same server modules, for terminals, scripts and CI.

import { claimText, impactText } from '../causal/claims';
import { CausalCurve, DEFAULT_CURVE_OPTIONS, compareCurves, computeCurves } from '../causal/curves';
import { shortNames } from '../causal/names';
import { readProfileFile } from '../import';
import { Profile } from '../model/profile';
import { UsageError, parseFlags } from './flags';

interface ReportEntry {
  profile: string;
  curve: CausalCurve;
}

function locationParts(curve: CausalCurve): { file: string | null; line: number | null } {
  return curve.target.kind === 'line' ? { file: curve.target.path, line: curve.target.line } : { file: null, line: null };
}

function toJson(profiles: Profile[], entries: ReportEntry[]): unknown {
  return {
    causal: entries.map(({ profile, curve }) => ({
      location: curve.selected,
      ...locationParts(curve),
      progressPoint: curve.progressPoint,
      pointKind: curve.pointKind,
      maxSpeedup: curve.maxSpeedup,
      impact: curve.impact,
      impactLow: curve.impactLow,
      impactHigh: curve.impactHigh,
      experiments: curve.experiments,
      runs: curve.runs,
      profile,
      points: curve.points.map((p) => ({
        lineSpeedup: p.lineSpeedup,
        programSpeedup: p.programSpeedup,
        low: p.low,
        high: p.high,
        experiments: p.experiments,
      })),
    })),
    profiles: profiles.map((p) => ({
      file: p.source,
      format: p.format,
      runs: p.runs.length,
      experiments: p.experiments.length,
      skipped: p.skipped,
      problems: p.problems,
    })),
  };
}

function toText(entries: ReportEntry[]): string {
  if (entries.length === 0) return 'No line has enough experiments for a causal curve.\n';
  const names = shortNames(entries.flatMap(({ curve }) => [curve.selected, curve.progressPoint]));
  const rows = entries.map(({ curve }) => [
    names.get(curve.selected)!,
    names.get(curve.progressPoint)!,
    impactText(curve),
    String(curve.points.length),
    claimText(curve),
  ]);
  const header = ['location', 'progress point', 'impact [95%]', 'points', 'best supported claim'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [format(header), ...rows.map(format)].join('\n') + '\n';
}

export async function runReport(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const { flags, positional } = parseFlags(args, { json: 'boolean', 'min-points': 'integer' });
  if (positional.length === 0) throw new UsageError('report needs at least one profile FILE');
  const options = { ...DEFAULT_CURVE_OPTIONS, minPoints: (flags['min-points'] as number | undefined) ?? DEFAULT_CURVE_OPTIONS.minPoints };
  const profiles: Profile[] = [];
  const entries: ReportEntry[] = [];
  let failed = false;
  for (const file of positional) {
    let profile: Profile;
    try {
      profile = await readProfileFile(file);
    } catch (error) {
      err(`causal-lens: ${(error as Error).message}\n`);
      failed = true;
      continue;
    }
    profiles.push(profile);
    for (const problem of profile.problems) {
      err(`${problem.file}:${problem.line}: ${problem.severity}: ${problem.message}\n`);
      if (problem.severity === 'error') failed = true;
    }
    for (const curve of computeCurves(profile, options)) {
      if (curve.status.kind === 'curve') entries.push({ profile: profile.source, curve });
    }
  }
  entries.sort((a, b) => compareCurves(a.curve, b.curve));
  out(flags.json ? JSON.stringify(toJson(profiles, entries), null, 2) + '\n' : toText(entries));
  return failed ? 1 : 0;
}
