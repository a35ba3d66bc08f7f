// The loaded profiles and everything views ask of them: per source line, its sample share
// and causal curves; the ranking; the next hot line. Plain TypeScript, shared by the
// language server and the CLI's tests.

import * as path from 'node:path';
import { CausalCurve, CurveOptions, compareCurves, computeCurvesInSlices } from '../causal/curves';
import { readProfileFile } from '../import';
import { Profile, splitLocation, totalSamples } from '../model/profile';
import { Attribution, LineSamples, attributeSamples, totalMs } from '../samples/attribution';
import { PathResolver, Resolution } from './pathResolver';

export interface LoadedProfile {
  profile: Profile;
  curves: CausalCurve[];
  /** perf/bperf profiles: sampled time on the workspace's lines (paths as the profile names them). */
  attribution?: Attribution;
}

/** A line's sampled time (perf, bperf), with the profile's total for shares. */
export interface LineSampled {
  samples: LineSamples;
  attribution: Attribution;
  profileTotalMs: number;
  profile: string;
}

export interface LineCurve {
  curve: CausalCurve;
  profile: string;
}

/** What is known about one source line (1-based) of one workspace file. */
export interface LineFacts {
  file: string;
  line: number;
  /** Largest share of a profile's samples on this line, over the loaded profiles. */
  share: number;
  samples: number;
  curves: LineCurve[];
  sampled: LineSampled[];
}

export interface RankedCurve {
  curve: CausalCurve;
  profile: string;
  resolution: Resolution | undefined;
  line: number | undefined;
}

export class ProfileStore {
  private readonly loaded = new Map<string, LoadedProfile>();
  private readonly loadGenerations = new Map<string, number>();
  private byFile = new Map<string, Map<number, LineFacts>>();
  private ranked: RankedCurve[] = [];

  constructor(
    private readonly resolver: PathResolver,
    private options: CurveOptions,
  ) {}

  async setOptions(options: CurveOptions): Promise<void> {
    this.options = options;
    for (const entry of this.loaded.values()) entry.curves = await computeCurvesInSlices(entry.profile, options);
    this.reindex();
  }

  /** Reads and computes without blocking; of overlapping loads of one file, the last started wins. */
  async load(file: string): Promise<LoadedProfile> {
    const generation = (this.loadGenerations.get(file) ?? 0) + 1;
    this.loadGenerations.set(file, generation);
    const profile = await readProfileFile(file);
    const entry: LoadedProfile = { profile, curves: await computeCurvesInSlices(profile, this.options) };
    if (profile.samples) {
      const nearDir = path.dirname(profile.source);
      // As COZ attributes: to the innermost frame whose source maps into the workspace.
      entry.attribution = attributeSamples(profile.samples, (source) => 'file' in this.resolver.resolve(source, nearDir));
    }
    if (this.loadGenerations.get(file) === generation) {
      this.loaded.set(profile.source, entry);
      this.reindex();
    }
    return entry;
  }

  remove(file: string): boolean {
    const removed = this.loaded.delete(file);
    if (removed) this.reindex();
    return removed;
  }

  clear(): void {
    this.loaded.clear();
    this.reindex();
  }

  profiles(): LoadedProfile[] {
    return [...this.loaded.values()];
  }

  linesOf(file: string): Map<number, LineFacts> | undefined {
    return this.byFile.get(file);
  }

  ranking(): readonly RankedCurve[] {
    return this.ranked;
  }

  /** Hot lines in reading order: by file, then line; only lines with samples or curves. */
  hotLines(): LineFacts[] {
    const files = [...this.byFile.keys()].sort();
    return files.flatMap((file) => [...this.byFile.get(file)!.values()].sort((a, b) => a.line - b.line));
  }

  private reindex(): void {
    const byFile = new Map<string, Map<number, LineFacts>>();
    const factsAt = (file: string, line: number): LineFacts => {
      let lines = byFile.get(file);
      if (!lines) byFile.set(file, (lines = new Map()));
      let facts = lines.get(line);
      if (!facts) lines.set(line, (facts = { file, line, share: 0, samples: 0, curves: [], sampled: [] }));
      return facts;
    };
    const ranked: RankedCurve[] = [];
    for (const { profile, curves, attribution } of this.loaded.values()) {
      const nearDir = path.dirname(profile.source);
      if (attribution) this.indexSamples(attribution, profile.source, nearDir, factsAt);
      const samples = totalSamples(profile);
      let total = 0;
      for (const count of samples.values()) total += count;
      for (const [location, count] of samples) {
        const where = this.locate(location, nearDir);
        if (!where) continue;
        const facts = factsAt(where.file, where.line);
        facts.samples += count;
        facts.share = Math.max(facts.share, total > 0 ? count / total : 0);
      }
      for (const curve of curves) {
        const resolution =
          curve.target.kind === 'line' ? this.resolver.resolve(curve.target.path, nearDir) : undefined;
        const line = curve.target.kind === 'line' ? curve.target.line : undefined;
        ranked.push({ curve, profile: profile.source, resolution, line });
        if (resolution && 'file' in resolution && line !== undefined && line > 0) {
          factsAt(resolution.file, line).curves.push({ curve, profile: profile.source });
        }
      }
    }
    this.byFile = byFile;
    this.ranked = ranked.sort((a, b) => compareCurves(a.curve, b.curve));
  }

  private indexSamples(attribution: Attribution, source: string, nearDir: string, factsAt: (file: string, line: number) => LineFacts): void {
    const profileTotalMs = totalMs(attribution.total);
    for (const samples of attribution.lines) {
      const resolution = this.resolver.resolve(samples.file, nearDir);
      if (!('file' in resolution) || samples.line <= 0) continue;
      const facts = factsAt(resolution.file, samples.line);
      const lineMs = totalMs(samples.ms);
      facts.sampled.push({ samples, attribution, profileTotalMs, profile: source });
      facts.share = Math.max(facts.share, profileTotalMs > 0 ? lineMs / profileTotalMs : 0);
    }
  }

  /** Sampled time by class, thread and line over every loaded perf/bperf profile, for the tree. */
  sampledProfiles(): { profile: string; attribution: Attribution }[] {
    return [...this.loaded.values()].filter((l) => l.attribution).map((l) => ({ profile: l.profile.source, attribution: l.attribution! }));
  }

  /** The workspace file a profile's source path maps to. */
  resolveSource(source: string, profile: string): string | undefined {
    const resolution = this.resolver.resolve(source, path.dirname(profile));
    return 'file' in resolution ? resolution.file : undefined;
  }

  private locate(location: string, nearDir: string): { file: string; line: number } | undefined {
    const split = splitLocation(location);
    if (!split || split.line <= 0) return undefined;
    const resolution = this.resolver.resolve(split.path, nearDir);
    return 'file' in resolution ? { file: resolution.file, line: split.line } : undefined;
  }
}
