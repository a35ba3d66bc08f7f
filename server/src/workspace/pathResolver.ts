// Profile paths to workspace files. Profiles name files as the build machine saw them
// (absolute canonical paths in COZ 0.2.x, relative build paths in older profiles), so a
// path is tried, in order: exactly, when that file is inside the workspace; then by the
// longest path-suffix match among workspace files; then through the user's path mappings
// (e.g. a remote build directory). Nothing outside the workspace is opened unless mapped.

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface PathMapping {
  from: string;
  to: string;
}

export type Resolution =
  | { kind: 'exact' | 'suffix' | 'mapped'; file: string }
  | { kind: 'outside'; reason: string }
  | { kind: 'unresolved'; reason: string };

function components(p: string): string[] {
  return p.split(/[\\/]+/).filter((c) => c.length > 0 && c !== '.');
}

/** Whether `file` is strictly below `root` (not the root itself, not a sibling sharing its prefix). */
export function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel.length > 0 && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export class PathResolver {
  private readonly byBasename = new Map<string, string[]>();
  private readonly known = new Set<string>();
  private readonly cache = new Map<string, Resolution>();
  private readonly mappings: PathMapping[];

  constructor(
    private readonly roots: readonly string[],
    workspaceFiles: Iterable<string>,
    mappings: readonly PathMapping[],
  ) {
    for (const file of workspaceFiles) this.addFile(file);
    // The longest prefix wins when mappings nest.
    this.mappings = [...mappings].sort((a, b) => b.from.length - a.from.length);
  }

  private addFile(file: string): void {
    this.known.add(file);
    const base = path.basename(file);
    const list = this.byBasename.get(base);
    if (list) list.push(file);
    else this.byBasename.set(base, [file]);
  }

  /** `nearDir`: the profile's folder, preferred among equally long suffix matches. */
  resolve(profilePath: string, nearDir?: string): Resolution {
    const cacheKey = profilePath + '\u0000' + (nearDir ?? '');
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const result = this.resolveUncached(profilePath, nearDir);
    // Only hits are kept: a file missing now may be created later (a new source, a checkout).
    if ('file' in result) this.cache.set(cacheKey, result);
    return result;
  }

  private resolveUncached(profilePath: string, nearDir?: string): Resolution {
    if (path.isAbsolute(profilePath)) {
      const normal = path.normalize(profilePath);
      if (this.known.has(normal)) return { kind: 'exact', file: normal };
      // A file created inside the workspace after the scan.
      if (this.roots.some((root) => isInside(root, normal)) && fs.existsSync(normal)) {
        this.addFile(normal);
        return { kind: 'exact', file: normal };
      }
    }
    const suffix = this.longestSuffixMatch(profilePath, nearDir);
    if (suffix) return { kind: 'suffix', file: suffix };
    const mapped = this.applyMappings(profilePath);
    if (mapped) return { kind: 'mapped', file: mapped };
    if (path.isAbsolute(profilePath) && !this.roots.some((root) => isInside(root, profilePath))) {
      return {
        kind: 'outside',
        reason: `${profilePath} is outside the workspace; map it with causalLens.pathMappings to open it`,
      };
    }
    return { kind: 'unresolved', reason: `no workspace file matches ${profilePath}` };
  }

  private longestSuffixMatch(profilePath: string, nearDir?: string): string | undefined {
    const wanted = components(profilePath);
    if (wanted.length === 0) return undefined;
    const candidates = this.byBasename.get(wanted[wanted.length - 1]);
    if (!candidates) return undefined;
    let best: string | undefined;
    let bestLength = 0;
    for (const candidate of candidates) {
      const have = components(candidate);
      let matched = 0;
      while (
        matched < wanted.length &&
        matched < have.length &&
        wanted[wanted.length - 1 - matched] === have[have.length - 1 - matched]
      ) {
        matched++;
      }
      if (matched > bestLength || (matched === bestLength && best !== undefined && this.prefer(candidate, best, nearDir))) {
        best = candidate;
        bestLength = matched;
      }
    }
    return best;
  }

  /** Among equal suffix matches: the one under the profile's folder, then the shorter path. */
  private prefer(candidate: string, current: string, nearDir?: string): boolean {
    if (nearDir) {
      const candidateNear = isInside(nearDir, candidate);
      const currentNear = isInside(nearDir, current);
      if (candidateNear !== currentNear) return candidateNear;
    }
    return candidate.length < current.length;
  }

  private applyMappings(profilePath: string): string | undefined {
    const normal = profilePath.replace(/\\/g, '/');
    for (const mapping of this.mappings) {
      const from = mapping.from.replace(/\\/g, '/').replace(/\/+$/, '');
      if (normal === from || normal.startsWith(from + '/')) {
        const target = path.join(mapping.to, normal.slice(from.length));
        if (fs.existsSync(target)) return target;
      }
    }
    return undefined;
  }
}
