// OTF2 global definitions (`<name>.def`) and local definitions (`<name>/<location>.def`), the
// records an MPI trace needs, as OTF2 3.0 writes them (src/OTF2_GlobalDefReader_inc.c,
// OTF2_DefReader_inc.c, otf2_global_definitions.h; record ids from otf2_global_definitions.h
// and otf2_local_definitions.h). Fields added by later versions sit after the known ones and
// are skipped by record length; records this reader does not use are skipped and counted.

import { BufferRecord, ByteCursor, Otf2DecodeError, readTypedValue, UNDEFINED } from './otf2Bytes';

export interface Otf2Problem {
  file: string;
  /** Byte offset in the file where the problem was found. */
  offset: number;
  message: string;
}

export interface ClockProperties {
  ticksPerSecond: number;
  globalOffset: number;
  traceLength: number;
}

export interface LocationDef {
  id: number;
  name: string;
  group: number;
  events: number;
}

export interface LocationGroupDef {
  id: number;
  name: string;
  /** 1 = process (an MPI rank). */
  type: number;
  systemTreeParent: number;
}

export interface GroupDef {
  name: string;
  /** OTF2_GroupType: 4 = COMM_LOCATIONS, 5 = COMM_GROUP, 6 = COMM_SELF. */
  type: number;
  members: number[];
}

export interface MetricMemberDef {
  name: string;
  unit: string;
  /** OTF2_MetricMode (accumulated/absolute/relative | timing). */
  mode: number;
}

export interface GlobalDefinitions {
  clock: ClockProperties;
  strings: Map<number, string>;
  systemTreeNodes: Map<number, { name: string; parent: number }>;
  locationGroups: Map<number, LocationGroupDef>;
  locations: Map<number, LocationDef>;
  regions: Map<number, string>;
  groups: Map<number, GroupDef>;
  comms: Map<number, { name: string; group: number }>;
  attributes: Map<number, { name: string; type: number }>;
  metricMembers: Map<number, MetricMemberDef>;
  metricClasses: Map<number, number[]>;
  /** Per location, property name → string value (LocationProperty). */
  locationProperties: Map<number, Map<string, string>>;
  /** Per location, property name → the byte offset of its record (for a problem in its value). */
  locationPropertyOffsets: Map<number, Map<string, number>>;
  /** Record ids skipped because this reader does not use them, with counts. */
  skipped: Map<number, number>;
}

/** OTF2_MappingType values this reader applies (OTF2_GeneralDefinitions.h). */
export const MAPPING_ATTRIBUTE = 1;
export const MAPPING_REGION = 3;
export const MAPPING_METRIC = 5;
export const MAPPING_COMM = 6;

export interface LocalDefinitions {
  /** Per OTF2_MappingType, local id → global id. */
  mappings: Map<number, Map<number, number>>;
  clockOffsets: { time: number; offset: number; standardDeviation: number }[];
}

/**
 * Walks the records of a chunked definition file, calling `onRecord(type, cursor, end)` with the
 * cursor at the payload; stops at end of file, at a damaged chunk (reported) or at the end.
 */
function walkRecords(bytes: Uint8Array, chunkSize: number, file: string, problems: Otf2Problem[], onRecord: (type: number, cursor: ByteCursor, end: number) => void): void {
  const cursor = new ByteCursor(bytes);
  let chunkStart = 0;
  while (chunkStart < bytes.length) {
    cursor.pos = chunkStart;
    try {
      cursor.chunkHeader(true);
    } catch (error) {
      problems.push({ file, offset: chunkStart, message: (error as Error).message });
      return;
    }
    for (;;) {
      const at = cursor.pos;
      if (at >= bytes.length) {
        problems.push({ file, offset: at, message: 'the file ends inside a chunk (no end-of-file mark): truncated' });
        return;
      }
      const type = cursor.u8();
      if (type === BufferRecord.EndOfFile) return;
      if (type === BufferRecord.EndOfChunk || type === BufferRecord.EndOfBuffer) break;
      try {
        const length = cursor.recordLength();
        const end = cursor.pos + length;
        try {
          onRecord(type, cursor, end);
        } catch (error) {
          if (!(error instanceof Otf2DecodeError)) throw error;
          problems.push({ file, offset: at, message: `definition record ${type}: ${error.message}` });
        }
        cursor.pos = end;
      } catch (error) {
        if (!(error instanceof Otf2DecodeError)) throw error;
        problems.push({ file, offset: at, message: `definition record ${type}: ${error.message}; the rest of this chunk is skipped` });
        break;
      }
    }
    chunkStart += chunkSize;
  }
}

export function emptyGlobalDefinitions(): GlobalDefinitions {
  return {
    clock: { ticksPerSecond: 1e9, globalOffset: 0, traceLength: 0 },
    strings: new Map(),
    systemTreeNodes: new Map(),
    locationGroups: new Map(),
    locations: new Map(),
    regions: new Map(),
    groups: new Map(),
    comms: new Map(),
    attributes: new Map(),
    metricMembers: new Map(),
    metricClasses: new Map(),
    locationProperties: new Map(),
    locationPropertyOffsets: new Map(),
    skipped: new Map(),
  };
}

/** Reads the global definitions; names are resolved once all strings are known. */
export function parseGlobalDefinitions(bytes: Uint8Array, chunkSize: number, file: string, problems: Otf2Problem[]): GlobalDefinitions {
  const defs = emptyGlobalDefinitions();
  // Strings may be defined after the records naming them in damaged files; resolve at the end.
  const pendingNames: (() => void)[] = [];
  const name = (id: number, set: (text: string) => void) => pendingNames.push(() => set(defs.strings.get(id) ?? (id === UNDEFINED ? '' : `<string ${id}>`)));
  walkRecords(bytes, chunkSize, file, problems, (type, c, end) => {
    switch (type) {
      case 5: // ClockProperties
        defs.clock = { ticksPerSecond: c.uint(), globalOffset: c.uint(), traceLength: c.uint() };
        if (!(defs.clock.ticksPerSecond > 0)) throw new Otf2DecodeError(`timer resolution ${defs.clock.ticksPerSecond} is not positive`);
        return;
      case 10: {
        // String
        const id = c.uint();
        defs.strings.set(id, c.string());
        return;
      }
      case 11: {
        // Attribute
        const id = c.uint();
        const attr = { name: '', type: 0 };
        name(c.uint(), (t) => (attr.name = t));
        attr.type = c.u8();
        defs.attributes.set(id, attr);
        return;
      }
      case 12: {
        // SystemTreeNode
        const id = c.uint();
        const node = { name: '', parent: UNDEFINED };
        name(c.uint(), (t) => (node.name = t));
        c.uint();
        node.parent = c.uint();
        defs.systemTreeNodes.set(id, node);
        return;
      }
      case 13: {
        // LocationGroup
        const group: LocationGroupDef = { id: c.uint(), name: '', type: 0, systemTreeParent: UNDEFINED };
        name(c.uint(), (t) => (group.name = t));
        group.type = c.u8();
        group.systemTreeParent = c.uint();
        defs.locationGroups.set(group.id, group);
        return;
      }
      case 14: {
        // Location
        const location: LocationDef = { id: c.uint(), name: '', group: UNDEFINED, events: 0 };
        name(c.uint(), (t) => (location.name = t));
        c.u8();
        location.events = c.uint();
        location.group = c.uint();
        defs.locations.set(location.id, location);
        return;
      }
      case 15: {
        // Region
        const id = c.uint();
        name(c.uint(), (t) => defs.regions.set(id, t));
        return;
      }
      case 18: {
        // Group
        const id = c.uint();
        const group: GroupDef = { name: '', type: 0, members: [] };
        name(c.uint(), (t) => (group.name = t));
        group.type = c.u8();
        const count = c.uint();
        if (count > end - c.pos) throw new Otf2DecodeError(`group ${id} claims ${count} members in a ${end - c.pos}-byte record`);
        for (let i = 0; i < count; i++) group.members.push(c.uint());
        // Since OTF2 1.2 the real type follows the members; the first byte is the pre-1.2 type.
        if (c.pos < end) group.type = c.u8();
        defs.groups.set(id, group);
        return;
      }
      case 19: {
        // MetricMember
        const id = c.uint();
        const member: MetricMemberDef = { name: '', unit: '', mode: 0 };
        name(c.uint(), (t) => (member.name = t));
        c.uint();
        c.u8();
        member.mode = c.u8();
        c.u8();
        c.u8();
        c.int();
        name(c.uint(), (t) => (member.unit = t));
        defs.metricMembers.set(id, member);
        return;
      }
      case 20: {
        // MetricClass
        const id = c.uint();
        const count = c.u8();
        const members: number[] = [];
        for (let i = 0; i < count; i++) members.push(c.uint());
        defs.metricClasses.set(id, members);
        return;
      }
      case 22: {
        // Comm
        const id = c.uint();
        const comm = { name: '', group: UNDEFINED };
        name(c.uint(), (t) => (comm.name = t));
        comm.group = c.uint();
        defs.comms.set(id, comm);
        return;
      }
      case 29: {
        // LocationProperty: location, name, string value (kept for old readers), then type and value
        const at = c.pos;
        const location = c.uint();
        const nameId = c.uint();
        let valueId = c.uint();
        let number: number | undefined;
        if (c.pos < end) {
          const valueType = c.u8();
          const value = readTypedValue(c, valueType);
          if (valueType === 11) valueId = value;
          else number = value;
        }
        let props = defs.locationProperties.get(location);
        if (!props) defs.locationProperties.set(location, (props = new Map()));
        let offsets = defs.locationPropertyOffsets.get(location);
        if (!offsets) defs.locationPropertyOffsets.set(location, (offsets = new Map()));
        const [target, offsetsOf] = [props, offsets];
        pendingNames.push(() => {
          const propertyName = defs.strings.get(nameId) ?? `<string ${nameId}>`;
          target.set(propertyName, number !== undefined ? String(number) : defs.strings.get(valueId) ?? '');
          offsetsOf.set(propertyName, at);
        });
        return;
      }
      default:
        defs.skipped.set(type, (defs.skipped.get(type) ?? 0) + 1);
    }
  });
  for (const resolve of pendingNames) resolve();
  return defs;
}

/** Reads a location's local definitions: mapping tables and clock offsets. */
export function parseLocalDefinitions(bytes: Uint8Array, chunkSize: number, file: string, problems: Otf2Problem[]): LocalDefinitions {
  const local: LocalDefinitions = { mappings: new Map(), clockOffsets: [] };
  walkRecords(bytes, chunkSize, file, problems, (type, c, end) => {
    if (type === 5) {
      // MappingTable: type, then an OTF2_IdMap (size, mode 0 dense / 1 sparse, ids)
      const mappingType = c.u8();
      const size = c.uint();
      const mode = c.u8();
      if (size > end - c.pos) throw new Otf2DecodeError(`mapping table claims ${size} entries in a ${end - c.pos}-byte record`);
      const map = new Map<number, number>();
      for (let i = 0; i < size; i++) {
        if (mode === 0) map.set(i, c.uint());
        else map.set(c.uint(), c.uint());
      }
      local.mappings.set(mappingType, map);
    } else if (type === 6) {
      // ClockOffset
      local.clockOffsets.push({ time: c.u64Full(), offset: c.int(), standardDeviation: c.double() });
    }
  });
  return local;
}
