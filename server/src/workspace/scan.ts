// Walks the workspace folders once: every file goes into the path index that maps profile
// paths to sources, and the files matching the given globs (profiles, traces, run tables)
// are picked out.

import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';

/** Folders that never hold user sources or profiles worth indexing. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

export interface WorkspaceScan {
  files: string[];
  /** The files matching the globs (matched workspace-relative), as absolute paths. */
  matching: string[];
  /** True when the walk stopped at the file limit; suffix matching is then partial. */
  truncated: boolean;
}

export async function scanWorkspace(
  roots: readonly string[],
  globs: readonly string[],
  maxFiles = 200_000,
): Promise<WorkspaceScan> {
  const matches = picomatch(globs as string[], { dot: false });
  const files: string[] = [];
  const matching: string[] = [];
  let truncated = false;
  for (const root of roots) {
    const pending = [root];
    while (pending.length > 0 && !truncated) {
      const dir = pending.pop()!;
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch {
        continue; // unreadable folders are simply not indexed
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) pending.push(full);
        } else if (entry.isFile()) {
          if (files.length >= maxFiles) {
            truncated = true;
            break;
          }
          files.push(full);
          if (matches(path.relative(root, full).split(path.sep).join('/'))) matching.push(full);
        }
      }
    }
  }
  return { files, matching, truncated };
}

/** The same glob test, for files reported by the client's watcher. */
export function profileMatcher(roots: readonly string[], profileGlobs: readonly string[]): (file: string) => boolean {
  const isProfile = picomatch(profileGlobs as string[], { dot: false });
  return (file) =>
    roots.some((root) => {
      const rel = path.relative(root, file);
      return !rel.startsWith('..') && !path.isAbsolute(rel) && isProfile(rel.split(path.sep).join('/'));
    });
}
