// `causal-lens report [--json] [--min-points N] FILE...`: the ranking the editor shows,
// computed by the same server modules, for terminals, scripts and CI.

import { claimText, impactText } from '../causal/claims';
import { CausalCurve, DEFAULT_CURVE_OPTIONS, compareCurves, computeCurves } from '../causal/curves';
import { shortNames } from '../causal/names';
import { readProfileFile } from '../import';
import { Profile, SAMPLE_CLASSES, SampleData } from '../model/profile';
import { Attribution, ClassMs, attributeSamples, totalMs, workspaceFilter } from '../samples/attribution';
import { mergeSampleData } from '../samples/merge';
import { UsageError, parseFlags } from './flags';

interface ReportEntry {
  profile: string;
  curve: CausalCurve;
}

function locationParts(curve: CausalCurve): { file: string | null; line: number | null } {
  return curve.target.kind === 'line' ? { file: curve.target.path, line: curve.target.line } : { file: null, line: null };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function msFields(ms: ClassMs) {
  return {
    weightMs: round(totalMs(ms)),
    onCpuMs: round(ms.onCpu),
    offCpuMs: { io: round(ms.io), sync: round(ms.sync), sched: round(ms.sched), other: round(ms.other) },
  };
}

function toJson(profiles: Profile[], entries: ReportEntry[], samples: Attribution | undefined): unknown {
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
    lines: samples?.lines.map((entry) => ({ file: entry.file, line: entry.line, ...msFields(entry.ms) })) ?? [],
    functions: samples?.functions.map((fn) => ({ name: fn.name, file: fn.file, ...msFields(fn.ms) })) ?? [],
    // Every sampled millisecond is in the lines above or here, so that a --root that misses the sources shows.
    ...(samples ? { sampled: msFields(samples.total), outsideWorkspace: msFields(samples.outside) } : {}),
    profiles: profiles.map((p) => ({
      file: p.source,
      format: p.format,
      runs: p.runs.length,
      experiments: p.experiments.length,
      skipped: p.skipped,
      ...(p.samples ? { samplesSkipped: p.samples.skipped } : {}),
      problems: p.problems,
    })),
  };
}

const SAMPLE_ROWS = 20;

/** The time no line took: its stacks have no frame in the workspace (with --root, under it). */
function outsideText(samples: Attribution, roots: readonly string[]): string {
  const outside = totalMs(samples.outside);
  if (outside === 0) return '';
  const where = roots.length > 0 ? `under --root ${roots.join(',')}` : 'in a source file of the program (outside /usr, /lib)';
  return `${outside.toFixed(1)} of ${totalMs(samples.total).toFixed(1)} ms sampled have no frame ${where}: on no line above.\n`;
}

/** The heaviest sampled lines, with the off-CPU classes that make them up. */
function samplesText(samples: Attribution): string {
  const names = shortNames(samples.lines.map((entry) => `${entry.file}:${entry.line}`));
  const all = totalMs(samples.total) || 1;
  const rows = samples.lines.slice(0, SAMPLE_ROWS).map((entry) => {
    const ms = entry.ms;
    const off = SAMPLE_CLASSES.filter((c) => c !== 'onCpu' && ms[c] > 0).map((c) => `${c} ${ms[c].toFixed(1)}`);
    return [names.get(`${entry.file}:${entry.line}`)!, `${(totalMs(ms) / all * 100).toFixed(1)}%`, totalMs(ms).toFixed(1), ms.onCpu.toFixed(1), off.join(', ')];
  });
  const header = ['line', 'share', 'ms', 'on-CPU ms', 'off-CPU ms'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [format(header), ...rows.map(format)].join('\n') + '\n';
}

function toText(entries: ReportEntry[], samples: Attribution | undefined, roots: readonly string[]): string {
  if (samples) return samplesText(samples) + outsideText(samples, roots) + (entries.length > 0 ? '\n' + toText(entries, undefined, roots) : '');
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
  const { flags, positional } = parseFlags(args, { json: 'boolean', 'min-points': 'integer', root: 'string' });
  if (positional.length === 0) throw new UsageError('report needs at least one profile FILE');
  const options = { ...DEFAULT_CURVE_OPTIONS, minPoints: (flags['min-points'] as number | undefined) ?? DEFAULT_CURVE_OPTIONS.minPoints };
  const profiles: Profile[] = [];
  const entries: ReportEntry[] = [];
  const sampleData: SampleData[] = [];
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
    if (profile.samples) sampleData.push(profile.samples);
    for (const problem of profile.problems) {
      err(`${problem.file}:${problem.line}: ${problem.severity}: ${problem.message}\n`);
      if (problem.severity === 'error') failed = true;
    }
    for (const curve of computeCurves(profile, options)) {
      if (curve.status.kind === 'curve') entries.push({ profile: profile.source, curve });
    }
  }
  entries.sort((a, b) => compareCurves(a.curve, b.curve));
  const roots = flags.root === undefined ? [] : String(flags.root).split(',');
  const samples = sampleData.length > 0 ? attributeSamples(mergeSampleData(sampleData), workspaceFilter(roots)) : undefined;
  out(flags.json ? JSON.stringify(toJson(profiles, entries, samples), null, 2) + '\n' : toText(entries, samples, roots));
  return failed ? 1 : 0;
}
