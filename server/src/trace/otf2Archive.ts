// An OTF2 archive on disk (OTF2 3.0 layout, POSIX substrate): the anchor `<name>.otf2`, the
// global definitions `<name>.def`, and per location `<name>/<id>.def` (local definitions,
// optional) and `<name>/<id>.evt` (events). Which location is which MPI rank comes from the
// MPI "COMM_LOCATIONS" group (rank i = its i-th member), else from the location order.
// Nothing here throws on content: problems are collected with file and offset.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Otf2Anchor, parseAnchor, unsupportedLayout } from './otf2Anchor';
import { Otf2DecodeError, UNDEFINED } from './otf2Bytes';
import { emptyGlobalDefinitions, GlobalDefinitions, LocalDefinitions, Otf2Problem, parseGlobalDefinitions, parseLocalDefinitions } from './otf2Definitions';
import { Otf2EventReader } from './otf2Events';
import { readErrorReason } from '../readError';

const GROUP_TYPE_COMM_LOCATIONS = 4;
const GROUP_TYPE_COMM_SELF = 6;
const LOCATION_GROUP_PROCESS = 1;

export interface RankLocation {
  rank: number;
  location: number;
  /** System tree node of the rank's process (the host name for the recorder). */
  host: string;
  /** `causal_lens:cpu_set` when recorded, e.g. "0-1". */
  cpuSet?: string;
  /**
   * `causal_lens:any_source_receives`: receives the rank posted with MPI_ANY_SOURCE, counted by
   * the recorder's converter (absent where it counted none, and in other tools' traces).
   */
  anySourceReceives?: number;
  /**
   * `causal_lens:smallest_call_cpu_ns`: per MPI region name, the smallest CPU seconds of one call
   * over the whole run, found by the recorder's converter (absent in other tools' traces).
   */
  smallestCallCpu?: Map<string, number>;
  /**
   * `causal_lens:preconnected`: the recorder's start-up had every pair of ranks exchange a
   * message, so no connection between them was opened inside the trace (false: it did not;
   * absent in older recorder traces and other tools' traces: not known).
   */
  preconnected?: boolean;
  /**
   * `causal_lens:clock_read_ns` and `causal_lens:clock_reads`: the median time of the recorder's
   * real reads of the thread's CPU clock (a system call: it follows the kernel's speed in that run),
   * in seconds, and how many it timed (absent in older recorder traces and other tools' traces).
   */
  clockRead?: { seconds: number; count: number };
  eventFile: string;
  local: LocalDefinitions;
}

export interface Otf2Archive {
  anchorPath: string;
  anchor?: Otf2Anchor;
  defs: GlobalDefinitions;
  ranks: RankLocation[];
  problems: Otf2Problem[];
  /** Set when nothing can be read: the reason, naming the file. */
  fatal?: string;
}

export function openOtf2Archive(anchorPath: string): Otf2Archive {
  const archive: Otf2Archive = { anchorPath, defs: emptyGlobalDefinitions(), ranks: [], problems: [] };
  const base = anchorPath.replace(/\.otf2$/, '');
  let anchorBytes: Buffer;
  try {
    anchorBytes = fs.readFileSync(anchorPath);
  } catch (error) {
    archive.fatal = `${anchorPath}: cannot read the OTF2 anchor file (${readErrorReason(error)})`;
    return archive;
  }
  try {
    archive.anchor = parseAnchor(bytesOf(anchorBytes));
  } catch (error) {
    if (!(error instanceof Otf2DecodeError)) throw error;
    archive.fatal = `${anchorPath}: not a readable OTF2 anchor file: ${error.message}`;
    return archive;
  }
  const unsupported = unsupportedLayout(archive.anchor);
  if (unsupported) {
    archive.fatal = `${anchorPath}: ${unsupported}`;
    return archive;
  }
  const defsPath = `${base}.def`;
  let defBytes: Buffer;
  try {
    defBytes = fs.readFileSync(defsPath);
  } catch (error) {
    archive.fatal = `${defsPath}: cannot read the global definitions (${readErrorReason(error)})`;
    return archive;
  }
  archive.defs = parseGlobalDefinitions(bytesOf(defBytes), archive.anchor.chunkSizeDefs, defsPath, archive.problems);
  archive.ranks = rankLocations(archive.defs).map(({ rank, location }) => {
    const localPath = path.join(base, `${location}.def`);
    let local: LocalDefinitions = { mappings: new Map(), clockOffsets: [] };
    if (fs.existsSync(localPath)) local = parseLocalDefinitions(bytesOf(fs.readFileSync(localPath)), archive.anchor!.chunkSizeDefs, localPath, archive.problems);
    const group = archive.defs.locationGroups.get(archive.defs.locations.get(location)?.group ?? UNDEFINED);
    const host = archive.defs.systemTreeNodes.get(group?.systemTreeParent ?? UNDEFINED)?.name ?? '';
    const props = archive.defs.locationProperties.get(location);
    // A property the recorder's converter writes that does not read is named, not dropped.
    const unreadable = (name: string, expected: string) => {
      const offset = archive.defs.locationPropertyOffsets.get(location)?.get(name) ?? 0;
      archive.problems.push({ file: defsPath, offset, message: `location ${location}: ${name} "${props!.get(name)!.slice(0, 80)}" is not ${expected}; ignored` });
    };
    const anySourceText = props?.get('causal_lens:any_source_receives');
    const anySource = Number(anySourceText);
    if (anySourceText !== undefined && !(Number.isInteger(anySource) && anySource >= 0)) unreadable('causal_lens:any_source_receives', 'a count');
    const smallestText = props?.get('causal_lens:smallest_call_cpu_ns');
    const smallest = smallestText === undefined ? undefined : parseSmallestCallCpu(smallestText);
    if (smallest === null) unreadable('causal_lens:smallest_call_cpu_ns', 'NAME=NANOSECONDS,...');
    const clockReadText = props?.get('causal_lens:clock_read_ns');
    const clockReadsText = props?.get('causal_lens:clock_reads');
    const clockRead = Number(clockReadText);
    const clockReads = Number(clockReadsText);
    const clockReadKnown = Number.isInteger(clockRead) && clockRead > 0;
    const clockReadsKnown = Number.isInteger(clockReads) && clockReads > 0;
    if (clockReadText !== undefined && !clockReadKnown) unreadable('causal_lens:clock_read_ns', 'nanoseconds');
    if (clockReadsText !== undefined && !clockReadsKnown) unreadable('causal_lens:clock_reads', 'a count');
    // The converter writes the two together: one alone is a damaged archive, not a rank without reads.
    if ((clockReadText === undefined) !== (clockReadsText === undefined)) {
      const [present, missing] = clockReadText === undefined ? ['causal_lens:clock_reads', 'causal_lens:clock_read_ns'] : ['causal_lens:clock_read_ns', 'causal_lens:clock_reads'];
      const offset = archive.defs.locationPropertyOffsets.get(location)?.get(present) ?? 0;
      archive.problems.push({ file: defsPath, offset, message: `location ${location}: ${present} without ${missing}; ignored` });
    }
    const preconnectedText = props?.get('causal_lens:preconnected');
    if (preconnectedText !== undefined && preconnectedText !== 'true' && preconnectedText !== 'false') unreadable('causal_lens:preconnected', 'true or false');
    return {
      rank,
      location,
      host,
      cpuSet: props?.get('causal_lens:cpu_set'),
      ...(anySource > 0 ? { anySourceReceives: anySource } : {}),
      ...(smallest ? { smallestCallCpu: smallest } : {}),
      ...(preconnectedText === 'true' || preconnectedText === 'false' ? { preconnected: preconnectedText === 'true' } : {}),
      ...(clockReadKnown && clockReadsKnown ? { clockRead: { seconds: clockRead * 1e-9, count: clockReads } } : {}),
      eventFile: path.join(base, `${location}.evt`),
      local,
    };
  });
  if (archive.ranks.length === 0) archive.fatal = `${defsPath}: no MPI process locations defined`;
  return archive;
}

/** "MPI_Send=66,MPI_Recv=28" (nanoseconds) → seconds by region name; null when malformed. */
export function parseSmallestCallCpu(text: string): Map<string, number> | null {
  const smallest = new Map<string, number>();
  if (text === '') return smallest;
  for (const entry of text.split(',')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)$/.exec(entry);
    if (!m) return null;
    smallest.set(m[1], Number(m[2]) / 1e9);
  }
  return smallest;
}

/** Ranks in order: the MPI COMM_LOCATIONS group when present, else process locations by id. */
function rankLocations(defs: GlobalDefinitions): { rank: number; location: number }[] {
  for (const group of defs.groups.values()) {
    if (group.type === GROUP_TYPE_COMM_LOCATIONS && group.members.length > 0) {
      return group.members.filter((loc) => defs.locations.has(loc)).map((location, rank) => ({ rank, location }));
    }
  }
  const processLocations = [...defs.locations.values()]
    .filter((loc) => defs.locationGroups.get(loc.group)?.type === LOCATION_GROUP_PROCESS)
    .sort((a, b) => a.id - b.id);
  return processLocations.map((loc, rank) => ({ rank, location: loc.id }));
}

/**
 * Bytes of event files a replay holds in memory at once, all its ranks' readers together: each
 * reader's window is its share, between 16 and 256 KiB (a 1,024-rank trace held 256 MiB of
 * windows, with no gain in speed over 64 KiB each).
 */
const WINDOWS_BUDGET_BYTES = 64 * 2 ** 20;
const WINDOW_MIN_BYTES = 16 * 2 ** 10;
const WINDOW_MAX_BYTES = 256 * 2 ** 10;
/** Ranks whose event files a replay holds open; beyond, each read opens its file (a host may allow a process no more than a few thousand files). */
const FILES_HELD_OPEN = 256;

/** Opens the event stream of one rank; its reader holds `windowBytes` of its file (by default its share of WINDOWS_BUDGET_BYTES). */
export function openRankEvents(archive: Otf2Archive, rank: RankLocation, windowBytes?: number): Otf2EventReader {
  const share = Math.min(WINDOW_MAX_BYTES, Math.max(WINDOW_MIN_BYTES, Math.floor(WINDOWS_BUDGET_BYTES / Math.max(1, archive.ranks.length))));
  return new Otf2EventReader(rank.eventFile, { chunkSize: archive.anchor!.chunkSizeEvents, mappings: rank.local.mappings, clockOffsets: rank.local.clockOffsets, windowBytes: windowBytes ?? share, openPerRead: archive.ranks.length > FILES_HELD_OPEN });
}

/** Communicator id → (rank in communicator → world rank), from Comm → Group(COMM_GROUP) → COMM_LOCATIONS. */
export function communicatorRanks(defs: GlobalDefinitions): Map<number, number[]> {
  const result = new Map<number, number[]>();
  for (const [id, comm] of defs.comms) {
    const group = defs.groups.get(comm.group);
    // COMM_GROUP members are indices into the COMM_LOCATIONS group, i.e. world ranks;
    // a COMM_SELF group has none (its one member is whoever uses it).
    if (group) result.set(id, group.type === GROUP_TYPE_COMM_SELF ? [] : group.members);
  }
  return result;
}

function bytesOf(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
