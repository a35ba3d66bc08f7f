// The OTF2 anchor file (`<name>.otf2`), as OTF2 3.0 writes it (src/OTF2_AnchorFile.c, anchor
// format 3; formats 1 and 2 are read too): an unchunked buffer holding the magic "OTF2", the
// versions, the event and definition chunk sizes, substrate, compression, the number of
// locations and global definitions, machine/creator/description, the archive properties
// (OTF2_Archive_SetProperty), the trace id and the snapshot and thumbnail counts.

import { ByteCursor, Otf2DecodeError } from './otf2Bytes';

export interface Otf2Anchor {
  version: string;
  traceFormat: number;
  chunkSizeEvents: number;
  chunkSizeDefs: number;
  /** OTF2_FileSubstrate: 1 POSIX, 2 SION, 3 NONE. */
  substrate: number;
  /** OTF2_Compression: 1 NONE, 2 ZLIB. */
  compression: number;
  locations: number;
  globalDefinitions: number;
  machine: string;
  creator: string;
  description: string;
  /** Archive properties by upper-case name (OTF2 stores property names in upper case). */
  properties: Map<string, string>;
}

export const SUBSTRATE_POSIX = 1;
export const COMPRESSION_NONE = 1;
const SUBSTRATE_NAMES: Record<number, string> = { 0: 'undefined', 1: 'POSIX', 2: 'SIONlib', 3: 'none' };
const COMPRESSION_NAMES: Record<number, string> = { 0: 'undefined', 1: 'none', 2: 'zlib' };

/** Parses an anchor file; throws Otf2DecodeError with the offset when it is not one. */
export function parseAnchor(bytes: Uint8Array): Otf2Anchor {
  const cursor = new ByteCursor(bytes);
  cursor.chunkHeader(false);
  const magic = cursor.string();
  if (magic !== 'OTF2') throw new Otf2DecodeError(`not an OTF2 anchor file (magic "${magic.slice(0, 16)}")`);
  const anchorFormat = cursor.u8();
  if (anchorFormat === 0) throw new Otf2DecodeError('anchor format 0 is invalid');
  const traceFormat = cursor.u8();
  const version = `${cursor.u8()}.${cursor.u8()}.${cursor.u8()}`;
  const anchor: Otf2Anchor = {
    version,
    traceFormat,
    chunkSizeEvents: cursor.u64Full(),
    chunkSizeDefs: cursor.u64Full(),
    substrate: cursor.u8(),
    compression: cursor.u8(),
    locations: cursor.u64Full(),
    globalDefinitions: cursor.u64Full(),
    machine: cursor.string(),
    creator: cursor.string(),
    description: cursor.string(),
    properties: new Map(),
  };
  if (anchorFormat > 1) {
    const count = cursor.u32Full();
    for (let i = 0; i < count; i++) {
      const name = cursor.string();
      anchor.properties.set(name.toUpperCase(), cursor.string());
    }
  }
  return anchor;
}

/** Why this reader cannot read the archive's files, or undefined when it can. */
export function unsupportedLayout(anchor: Otf2Anchor): string | undefined {
  if (anchor.substrate !== SUBSTRATE_POSIX) {
    return `the ${SUBSTRATE_NAMES[anchor.substrate] ?? `#${anchor.substrate}`} file substrate is not supported (only POSIX: one file per location)`;
  }
  if (anchor.compression !== COMPRESSION_NONE) {
    return `${COMPRESSION_NAMES[anchor.compression] ?? `#${anchor.compression}`} compression is not supported (only uncompressed archives)`;
  }
  if (!(anchor.chunkSizeEvents >= 256) || !(anchor.chunkSizeDefs >= 256)) {
    return `implausible chunk sizes (events ${anchor.chunkSizeEvents}, definitions ${anchor.chunkSizeDefs})`;
  }
  return undefined;
}
