// From the addresses perf prints to ELF virtual addresses. Which address perf prints
// depends on its version (../shared/reference/perf-ingest.md §2.2): up to 5.15, in bperf
// and from 6.5 on, callchains hold runtime addresses; 5.16 to 6.4 (Debian 12's 6.1)
// print the map-relative file offset (commit 57d7ecfd1133). The leaf ip of a sample
// without a callchain is always a runtime address.

export type AddressKind = 'runtime' | 'fileOffset' | 'unknown';

/** What a callchain address is, for the perf version in `# perf version : X.Y.Z`. */
export function callchainAddressKind(version: string | undefined): AddressKind {
  const match = version === undefined ? null : /^(\d+)\.(\d+)/.exec(version);
  if (!match) return 'unknown';
  const v = Number(match[1]) * 1000 + Number(match[2]);
  return v >= 5016 && v < 6005 ? 'fileOffset' : 'runtime';
}

interface Mapping {
  pid: number;
  start: number;
  end: number;
  pgoff: number;
}

/** PERF_RECORD_MMAP/MMAP2 regions by file path, to turn runtime addresses into file offsets. */
export class MmapTable {
  private readonly byPath = new Map<string, Mapping[]>();

  add(path: string, pid: number, start: number, length: number, pgoff: number): void {
    let list = this.byPath.get(path);
    if (!list) this.byPath.set(path, (list = []));
    list.push({ pid, start, end: start + length, pgoff });
  }

  /** The file offset of runtime address `ip` in `path`, preferring the process's own mapping. */
  fileOffset(path: string, ip: number, pid: number | undefined): number | undefined {
    const list = this.byPath.get(path);
    if (!list) return undefined;
    let found: Mapping | undefined;
    // Later mappings replace earlier ones at the same place (exec, dlopen after dlclose).
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i];
      if (ip < m.start || ip >= m.end) continue;
      if (pid === undefined || m.pid === pid) return ip - m.start + m.pgoff;
      found ??= m;
    }
    return found && ip - found.start + found.pgoff;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }
}

/** The file offset for an address perf printed, or undefined when it cannot be placed. */
export function toFileOffset(
  mmaps: MmapTable,
  path: string,
  ip: number,
  pid: number | undefined,
  kind: AddressKind,
): number | undefined {
  if (kind === 'fileOffset') return ip;
  const offset = mmaps.fileOffset(path, ip, pid);
  if (offset !== undefined || kind === 'runtime') return offset;
  // Unknown version: an address inside a mapping of the file is a runtime address;
  // anything else (file offsets are small) is taken as an offset.
  return ip;
}
