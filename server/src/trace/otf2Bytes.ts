// OTF2's byte encoding, shared by the anchor, definition and event readers. Read from the OTF2
// 3.0 sources (src/OTF2_Buffer.c, OTF2_Buffer.h; the layout is unchanged since OTF2 1.2):
// - a chunked file is a sequence of chunks of the anchor's chunk size; each starts with
//   0x03 (chunk header), an endianness byte (0x23 big, 0x42 little) and, when chunked, the
//   first and last event numbers as two full uint64;
// - 0x00 ends a chunk (the next one starts at the next multiple of the chunk size), 0x01 ends
//   the buffer, 0x02 ends the file;
// - "compressed" integers are a byte count N (0..8) and N bytes in the file's byte order;
//   0xff is OTF2_UNDEFINED; "full" integers are fixed width; strings end with NUL;
// - every record except the pre-1.2 singletons is type byte, length byte (0xff: a full
//   uint64 length follows) and that many payload bytes, so unknown or newer fields are skipped.

import { DOUBLE_ZERO } from '../doubleFields';

/** The buffer's own records (a const enum, as otf2Events.ts's EventRecord). */
export const enum BufferRecord {
  EndOfChunk = 0,
  EndOfBuffer = 1,
  EndOfFile = 2,
  ChunkHeader = 3,
  Timestamp = 5,
  AttributeList = 6,
}
export const CHUNK_HEADER_SIZE = 18;
export const LITTLE_ENDIAN = 0x42;
export const BIG_ENDIAN = 0x23;

/** OTF2_UNDEFINED_* of any width, decoded. */
export const UNDEFINED = -1;

/** Thrown inside a reader when the bytes end early or are malformed; readers turn it into a problem. */
export class Otf2DecodeError extends Error {}

/** A cursor over bytes already in memory (anchor and definition files, one event window). */
export class ByteCursor {
  little = true;
  /** File offset of bytes[0], for the offsets messages name (an event reader's window moves along its file). */
  base = DOUBLE_ZERO;
  constructor(
    public bytes: Uint8Array,
    public pos = 0,
    public end = bytes.length,
  ) {}

  need(n: number): void {
    if (this.pos + n > this.end) throw new Otf2DecodeError(`record runs past the end of the data (needs ${n} bytes at offset ${this.base + this.pos})`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  /** A compressed unsigned integer (uint32 or uint64); UNDEFINED for 0xff. Exact below 2^53. */
  uint(): number {
    this.need(1);
    const b = this.bytes;
    const size = b[this.pos++];
    if (size === 0) return 0;
    if (size === 1 && this.pos < this.end) return b[this.pos++];
    if (size === 0xff) return UNDEFINED;
    if (size > 8) throw new Otf2DecodeError(`invalid compressed integer size ${size} at offset ${this.base + this.pos - 1}`);
    this.need(size);
    const value = this.little ? compressedLittle(b, this.pos - 1) : compressedBigEndian(b, this.pos - 1);
    this.pos += size;
    return value;
  }

  /** A compressed int64: negative values always use all 8 bytes (two's complement). */
  int(): number {
    this.need(1);
    if (this.bytes[this.pos] !== 8) return this.uint();
    this.need(9);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos + 1, 8);
    this.pos += 9;
    return Number(view.getBigInt64(0, this.little));
  }

  /** A compressed int32: negative values use all 4 bytes. */
  int32(): number {
    const unsigned = this.uint();
    return unsigned >= 2 ** 31 && unsigned !== UNDEFINED ? unsigned - 2 ** 32 : unsigned;
  }

  u32Full(): number {
    this.need(4);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 4;
    return this.little ? (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0 : ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
  }

  /** A full uint64; exact below 2^53 (timestamps in ns: 104 days). */
  u64Full(): number {
    this.need(8);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 8;
    if (this.little) return fullLittle(b, p);
    return (((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0) * 4294967296 + (((b[p + 4] << 24) | (b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]) >>> 0);
  }

  double(): number {
    this.need(8);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getFloat64(0, this.little);
  }

  float(): number {
    this.need(4);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4);
    this.pos += 4;
    return view.getFloat32(0, this.little);
  }

  string(): string {
    let stop = this.pos;
    while (stop < this.end && this.bytes[stop] !== 0) stop++;
    if (stop >= this.end) throw new Otf2DecodeError(`string without its terminating NUL at offset ${this.base + this.pos}`);
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, stop - this.pos).toString('utf8');
    this.pos = stop + 1;
    return text;
  }

  /** The length of a generic record; the cursor is then at its payload. */
  recordLength(): number {
    const small = this.u8();
    const length = small === 0xff ? this.u64Full() : small;
    this.need(length);
    return length;
  }

  /** Reads a chunk header at the cursor and sets the byte order from it. */
  chunkHeader(chunked: boolean): void {
    const at = this.pos;
    if (this.u8() !== BufferRecord.ChunkHeader) throw new Otf2DecodeError(`no chunk header at offset ${this.base + at}`);
    const endianness = this.u8();
    if (endianness !== LITTLE_ENDIAN && endianness !== BIG_ENDIAN) throw new Otf2DecodeError(`invalid endianness byte 0x${endianness.toString(16)} at offset ${this.base + at + 1}`);
    this.little = endianness === LITTLE_ENDIAN;
    if (chunked) {
      this.need(16);
      this.pos += 16;
    }
  }
}

/** One attribute of an attribute list (OTF2_AttributeList.c, otf2_attribute_value_inc.c). */
export interface AttributeValue {
  attribute: number;
  type: number;
  value: number;
}

/** Reads an attribute list's payload, from the cursor to `end` (after its type and length). */
export function readAttributeList(cursor: ByteCursor, end: number, into: AttributeValue[]): void {
  const count = cursor.uint();
  for (let i = 0; i < count && cursor.pos < end; i++) {
    const attribute = cursor.uint();
    const type = cursor.u8();
    into.push({ attribute, type, value: readTypedValue(cursor, type) });
  }
  cursor.pos = end;
}

/** An OTF2_AttributeValue of the given OTF2_Type. */
export function readTypedValue(cursor: ByteCursor, type: number): number {
  switch (type) {
    case 1: // UINT8
    case 5: // INT8
      return cursor.u8();
    case 2: // UINT16
    case 6: {
      // INT16: fixed width
      const a = cursor.u8();
      const b = cursor.u8();
      return cursor.little ? a | (b << 8) : (a << 8) | b;
    }
    case 7: // INT32
      return cursor.int32();
    case 8: // INT64
      return cursor.int();
    case 9:
      return cursor.float();
    case 10:
      return cursor.double();
    default:
      // UINT32, UINT64 and every definition reference are compressed unsigned integers.
      return cursor.uint();
  }
}

/** The little-endian compressed unsigned integer whose valid size byte is at `p`; UNDEFINED for 0xff. */
function compressedLittle(b: Uint8Array, p: number): number {
  const size = b[p];
  if (size === 0xff) return UNDEFINED;
  let value = 0;
  for (let i = size; i >= 1; i--) value = value * 256 + b[p + i];
  return value;
}

/** A full little-endian uint64 at `p`; exact below 2^53. */
function fullLittle(b: Uint8Array, p: number): number {
  return ((b[p + 4] | (b[p + 5] << 8) | (b[p + 6] << 16) | (b[p + 7] << 24)) >>> 0) * 4294967296 + ((b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0);
}

/** The big-endian compressed unsigned integer whose size byte (0–8) is at `p`. */
function compressedBigEndian(b: Uint8Array, p: number): number {
  let value = 0;
  for (let i = 1; i <= b[p]; i++) value = value * 256 + b[p + i];
  return value;
}
