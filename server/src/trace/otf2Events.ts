// A location's OTF2 event file (`<name>/<location>.evt`), streamed: a window of the file is kept
// in memory, never the whole file. Record ids and layouts from OTF2 3.0 (src/otf2_events_int.h,
// OTF2_EvtReader_inc.c, OTF2_EvtReader.c): a timestamp record (0x05, full uint64) precedes events
// whenever the time changes, an attribute list (0x06) precedes the event it belongs to, Enter,
// Leave, MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled and the OpenMP
// fork/task records have no length byte (OTF2 1.1 singletons), every other record has one.
// Local ids (regions, communicators, metrics, attributes) go through the location's mapping tables.

import * as fs from 'node:fs';
import { AttributeValue, BufferRecord, ByteCursor, Otf2DecodeError, readAttributeList, UNDEFINED } from './otf2Bytes';
import { MAPPING_ATTRIBUTE, MAPPING_COMM, MAPPING_METRIC, MAPPING_REGION, Otf2Problem } from './otf2Definitions';
import { DOUBLE_ZERO } from '../doubleFields';


/**
 * OTF2's event record ids. A const enum: a comparison with one compiles to a number, where an
 * exported constant is a load from the module's exports (in the reader's loop, 3% of its instructions).
 * tsconfig's preserveConstEnums keeps the object too, for the validation's JavaScript probes.
 */
export const enum EventRecord {
  BufferFlush = 10,
  MeasurementOnOff = 11,
  Enter = 12,
  Leave = 13,
  MpiSend = 14,
  MpiIsend = 15,
  MpiIsendComplete = 16,
  MpiIrecvRequest = 17,
  MpiRecv = 18,
  MpiIrecv = 19,
  MpiRequestTest = 20,
  MpiRequestCancelled = 21,
  MpiCollectiveBegin = 22,
  MpiCollectiveEnd = 23,
  Metric = 31,
}

const SINGLETON = new Uint8Array(256);
for (const type of [EventRecord.Enter, EventRecord.Leave, EventRecord.MpiIsendComplete, EventRecord.MpiIrecvRequest, EventRecord.MpiRequestTest, EventRecord.MpiRequestCancelled, 24, 28, 29, 30]) SINGLETON[type] = 1;
const OTF2_TYPE_DOUBLE = 10;
const OTF2_TYPE_INT64 = 8;
/** Room kept in the window before decoding a record without a length (type, size, 8 bytes). */
const SMALL_RECORD = 32;
/**
 * Events decoded at once by Otf2EventReader.decodeBatch: few, as every rank's reader holds its
 * columns (3 KiB; 4,096 ranks: 13 MiB).
 */
const BATCH_EVENTS = 64;
/** Numbers a batched event keeps beside its type and time: a message record's five at most. */
const BATCH_FIELDS = 5;
/** Bytes decodeBatch wants after a record's start: its longest record of small fields, and more. */
const BATCH_SLACK = 64;
/** What a closed reader holds instead of its window. */
const NO_BYTES = new Uint8Array(0);

export interface EventReaderOptions {
  chunkSize: number;
  /** Per OTF2_MappingType, local → global ids (from the local definitions). */
  mappings?: Map<number, Map<number, number>>;
  /** Bytes of the file held in memory at once. */
  windowBytes?: number;
  /** The location's ClockOffset definitions: times are corrected by them, as libotf2's readers do. */
  clockOffsets?: readonly { time: number; offset: number }[];
  /** Open the file for each read and close it after, rather than hold it open: for traces of more ranks than a process may open files. */
  openPerRead?: boolean;
}

interface ClockInterval {
  begin: number;
  end: number;
  offset: number;
  slope: number;
}

/**
 * libotf2 3.0's clock correction (otf2_archive_location.c, OTF2_EvtReader.c): between two
 * consecutive offsets the offset is interpolated linearly; before the first interval and after
 * the last the nearest interval's line is extended; a single offset defines no interval.
 */
export function clockIntervals(offsets: readonly { time: number; offset: number }[]): ClockInterval[] {
  const intervals: ClockInterval[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const a = offsets[i];
    const b = offsets[i + 1];
    if (b.time <= a.time) continue;
    intervals.push({ begin: a.time, end: b.time, offset: a.offset, slope: (b.offset - a.offset) / (b.time - a.time) });
  }
  return intervals;
}

/**
 * Reads one event after another into its own fields (no object per event). After `next()`
 * returns true, `type` and `time` and the fields of that record type are set.
 */
export class Otf2EventReader {
  type = 0;
  time = DOUBLE_ZERO;
  region = DOUBLE_ZERO;
  /** MpiSend/Isend receiver, MpiRecv/Irecv sender: a rank in `comm`. */
  peer = DOUBLE_ZERO;
  comm = DOUBLE_ZERO;
  tag = DOUBLE_ZERO;
  length = DOUBLE_ZERO;
  request = DOUBLE_ZERO;
  collectiveOp = DOUBLE_ZERO;
  root = DOUBLE_ZERO;
  sizeSent = DOUBLE_ZERO;
  sizeReceived = DOUBLE_ZERO;
  metric = DOUBLE_ZERO;
  /** The metric record's values; read only at a metric record. Begun as one double, as a batched metric record has one, so that its kind and length stay (doubleFields.ts). */
  readonly metricValues = [DOUBLE_ZERO];
  stopTime = DOUBLE_ZERO;
  measurementOn = true;
  /** Attributes attached to this event. */
  readonly attributes: AttributeValue[] = [];
  /** Events read (records other than timestamps and attribute lists). */
  events = 0;
  /** Record ids skipped because this reader does not interpret them, with counts. */
  readonly skipped = new Map<number, number>();
  readonly problems: Otf2Problem[] = [];

  private fd: number;
  private window: Uint8Array;
  /** The window's bytes as a DataView, for decodeBatch's reads of whole words. */
  private windowView: DataView;
  private cursor: ByteCursor;
  /** File offset of window[0]. */
  private windowStart = DOUBLE_ZERO;
  private fileSize: number;
  private chunkStart = DOUBLE_ZERO;
  /** File offset where the current chunk's records must end: its size, or the file's end. */
  private chunkLimit = DOUBLE_ZERO;
  private done = false;
  private readonly scratch = new DataView(new ArrayBuffer(8));
  private readonly scratchBytes = new Uint8Array(this.scratch.buffer);
  private readonly regionMap?: Map<number, number>;
  private readonly commMap?: Map<number, number>;
  private readonly metricMap?: Map<number, number>;
  private readonly attributeMap?: Map<number, number>;
  private readonly intervals: ClockInterval[];
  private interval = 0;
  /** Events decodeBatch decoded and next() has not handed out yet: their types, times and fields. */
  private readonly batchTypes = new Uint8Array(BATCH_EVENTS);
  private readonly batchTimes = new Float64Array(BATCH_EVENTS);
  private readonly batchFields = new Float64Array(BATCH_EVENTS * BATCH_FIELDS);
  private batchCount = 0;
  private batchNext = 0;
  /** The time after the batch's last record (a timestamp may follow its last event). */
  private batchEndTime = DOUBLE_ZERO;

  constructor(
    readonly file: string,
    private readonly options: EventReaderOptions,
  ) {
    this.fd = fs.openSync(file, 'r');
    this.fileSize = fs.fstatSync(this.fd).size;
    if (options.openPerRead) {
      fs.closeSync(this.fd);
      this.fd = -1;
    }
    this.window = new Uint8Array(Math.max(4096, options.windowBytes ?? 256 * 1024));
    this.windowView = viewOf(this.window);
    this.cursor = new ByteCursor(this.window, 0, 0);
    this.regionMap = options.mappings?.get(MAPPING_REGION);
    this.commMap = options.mappings?.get(MAPPING_COMM);
    this.metricMap = options.mappings?.get(MAPPING_METRIC);
    this.attributeMap = options.mappings?.get(MAPPING_ATTRIBUTE);
    this.intervals = clockIntervals(options.clockOffsets ?? []);
    this.startChunk(0);
  }

  /** Bytes of the file the reader holds (none once closed). */
  get windowBytes(): number {
    return this.window.byteLength;
  }

  /** Fraction of the file consumed, for progress. */
  get fraction(): number {
    return this.fileSize === 0 ? 1 : Math.min(1, (this.windowStart + this.cursor.pos) / this.fileSize);
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    this.done = true;
    this.batchCount = 0;
    // A closed reader may stay referenced (a first pass's streams by its factory): its window goes
    // (1,024 ranks: 64 MiB per set of streams), the bytes it had consumed stay counted in `fraction`.
    this.windowStart += this.cursor.pos;
    this.window = NO_BYTES;
    this.windowView = viewOf(NO_BYTES);
    this.cursor = new ByteCursor(NO_BYTES, 0, 0);
  }

  next(): boolean {
    if (this.attributes.length > 0) this.attributes.length = 0;
    if (this.batchNext < this.batchCount) return this.takeBatched();
    if (this.batchCount > 0) {
      this.batchCount = 0;
      this.time = this.batchEndTime;
    }
    if (!this.done && this.cursor.little) {
      this.decodeBatch();
      if (this.batchCount > 0) return this.takeBatched();
    }
    return this.nextRecord();
  }

  /** The next event, decoded one record at a time: every kind of record, and the problem of a malformed one. */
  private nextRecord(): boolean {
    const c = this.cursor;
    while (!this.done) {
      if (c.end - c.pos < SMALL_RECORD) this.fill(SMALL_RECORD);
      if (c.pos >= c.end) {
        this.fail(c.pos, 'the file ends without an end-of-file mark: truncated');
        return false;
      }
      const at = c.pos;
      const type = this.window[c.pos++];
      try {
        if (type === BufferRecord.Timestamp) {
          this.time = this.corrected(c.u64Full());
          continue;
        }
        if (type === BufferRecord.EndOfChunk || type === BufferRecord.EndOfBuffer) {
          this.startChunk(this.chunkStart + this.options.chunkSize);
          continue;
        }
        if (type === BufferRecord.EndOfFile) {
          this.close();
          return false;
        }
        if (type === BufferRecord.AttributeList) {
          const end = this.ensureRecord() + c.pos;
          readAttributeList(c, end, this.attributes);
          for (const a of this.attributes) a.attribute = mapId(this.attributeMap, a.attribute);
          continue;
        }
        if (SINGLETON[type] === 1) {
          const value = c.uint();
          if (type === EventRecord.Enter || type === EventRecord.Leave) this.region = mapId(this.regionMap, value);
          else this.request = value;
          if (!this.accept(type)) continue;
          return true;
        }
        const end = this.ensureRecord() + c.pos;
        this.decode(type, end);
        c.pos = end;
        if (!this.accept(type)) continue;
        return true;
      } catch (error) {
        if (!(error instanceof Otf2DecodeError)) throw error;
        this.fail(this.windowStart + at, `event record ${type}: ${error.message}; the rest of this chunk is skipped`);
        this.startChunk(this.chunkStart + this.options.chunkSize);
      }
    }
    return false;
  }

  /**
   * Decodes the common records of a little-endian file (timestamps; Enter, Leave and the request
   * records without a length; metrics of one unsigned value; message and collective records) from
   * the window into the batch's columns, and stops before any other record, any record that ends
   * past the window or its chunk or within BATCH_SLACK of the window's end, and any compressed
   * integer of an invalid size: nextRecord reads those, with their problems. Reading one record at
   * a time through the cursor took 776 instructions per event, in batches 551 (docs/pem.md,
   * Performance, 2026-11-28).
   */
  private decodeBatch(): void {
    const c = this.cursor;
    if (c.end - c.pos < BATCH_SLACK) this.fill(BATCH_SLACK);
    const b = c.bytes;
    const view = this.windowView;
    const last = c.end - BATCH_SLACK;
    const chunkEnd = this.chunkLimit - this.windowStart;
    const types = this.batchTypes;
    const times = this.batchTimes;
    const fields = this.batchFields;
    let p = c.pos;
    let time = this.time;
    let n = 0;
    while (n < BATCH_EVENTS && p <= last) {
      const type = b[p];
      if (type === BufferRecord.Timestamp) {
        time = this.corrected(fullWords(view, p + 1));
        p += 9;
        continue;
      }
      const f = n * BATCH_FIELDS;
      if (type === EventRecord.Enter || type === EventRecord.Leave || type === EventRecord.MpiIsendComplete || type === EventRecord.MpiIrecvRequest) {
        const size = b[p + 1];
        const bytes = compressedLength(size);
        if (bytes === 0) break;
        const value = compressedWords(view, p + 1, size);
        fields[f] = type === EventRecord.Enter || type === EventRecord.Leave ? mapId(this.regionMap, value) : value;
        p += 1 + bytes;
      } else {
        const length = b[p + 1];
        const end = p + 2 + length;
        if (length === 0xff || end > c.end || end > chunkEnd) break;
        let q = p + 2;
        if (type === EventRecord.Metric) {
          const size = b[q];
          const bytes = compressedLength(size);
          if (bytes === 0) break;
          const metric = mapId(this.metricMap, compressedWords(view, q, size));
          q += bytes;
          // One value (within the record) of a compressed unsigned type: the recorder's CPU_TIME.
          const valueType = b[q + 1];
          const valueSize = b[q + 2];
          if (b[q] !== 1 || q + 1 >= end || valueType === OTF2_TYPE_DOUBLE || valueType === OTF2_TYPE_INT64 || compressedLength(valueSize) === 0) break;
          fields[f] = metric;
          fields[f + 1] = compressedWords(view, q + 2, valueSize);
        } else if (type === EventRecord.MpiCollectiveEnd) {
          fields[f] = b[q++];
          if (!compressedFields(b, view, q, 4, fields, f + 1)) break;
          fields[f + 1] = mapId(this.commMap, fields[f + 1]);
        } else if (type === EventRecord.MpiSend || type === EventRecord.MpiRecv || type === EventRecord.MpiIsend || type === EventRecord.MpiIrecv) {
          if (!compressedFields(b, view, q, type === EventRecord.MpiIsend || type === EventRecord.MpiIrecv ? 5 : 4, fields, f)) break;
          fields[f + 1] = mapId(this.commMap, fields[f + 1]);
        } else if (type !== EventRecord.MpiCollectiveBegin) break;
        p = end;
      }
      types[n] = type;
      times[n] = time;
      n++;
    }
    c.pos = p;
    this.batchCount = n;
    this.batchNext = 0;
    // The timestamps read count from now when no event was, else once the batch is handed out.
    if (n === 0) this.time = time;
    else this.batchEndTime = time;
  }

  /** Hands out the batch's next event in the fields nextRecord would set; small, so that next() holds it. */
  private takeBatched(): boolean {
    const i = this.batchNext++;
    const type = this.batchTypes[i];
    const fields = this.batchFields;
    const f = i * BATCH_FIELDS;
    this.type = type;
    this.time = this.batchTimes[i];
    this.events++;
    if (type === EventRecord.Metric) {
      this.metric = fields[f];
      this.metricValues[0] = fields[f + 1];
      if (this.metricValues.length !== 1) this.metricValues.length = 1;
    } else if (type === EventRecord.Enter || type === EventRecord.Leave) this.region = fields[f];
    else this.takeBatchedFields(type, f);
    return true;
  }

  /** A batched request, message or collective record's fields. */
  private takeBatchedFields(type: number, f: number): void {
    const fields = this.batchFields;
    switch (type) {
      case EventRecord.MpiIsendComplete:
      case EventRecord.MpiIrecvRequest:
        this.request = fields[f];
        return;
      case EventRecord.MpiCollectiveEnd:
        this.collectiveOp = fields[f];
        this.comm = fields[f + 1];
        this.root = fields[f + 2];
        this.sizeSent = fields[f + 3];
        this.sizeReceived = fields[f + 4];
        return;
      case EventRecord.MpiCollectiveBegin:
        return;
      default:
        this.peer = fields[f];
        this.comm = fields[f + 1];
        this.tag = fields[f + 2];
        this.length = fields[f + 3];
        if (type === EventRecord.MpiIsend || type === EventRecord.MpiIrecv) this.request = fields[f + 4];
    }
  }

  private corrected(time: number): number {
    const intervals = this.intervals;
    if (intervals.length === 0) return time;
    // Times only grow within a location, so the search goes forward from the last interval.
    while (this.interval + 1 < intervals.length && time > intervals[this.interval].end) this.interval++;
    const iv = intervals[this.interval];
    return time + iv.offset + rint(iv.slope * (time - iv.begin));
  }

  private accept(type: number): boolean {
    this.type = type;
    this.events++;
    if (type <= EventRecord.MpiCollectiveEnd || type === EventRecord.Metric) return true;
    this.skipped.set(type, (this.skipped.get(type) ?? 0) + 1);
    return false;
  }

  private decode(type: number, end: number): void {
    const c = this.cursor;
    switch (type) {
      case EventRecord.MpiSend:
      case EventRecord.MpiRecv:
      case EventRecord.MpiIsend:
      case EventRecord.MpiIrecv:
        this.peer = c.uint();
        this.comm = mapId(this.commMap, c.uint());
        this.tag = c.uint();
        this.length = c.uint();
        if (type === EventRecord.MpiIsend || type === EventRecord.MpiIrecv) this.request = c.uint();
        return;
      case EventRecord.MpiCollectiveEnd:
        this.collectiveOp = c.u8();
        this.comm = mapId(this.commMap, c.uint());
        this.root = c.uint();
        this.sizeSent = c.uint();
        this.sizeReceived = c.uint();
        return;
      case EventRecord.Metric: {
        this.metric = mapId(this.metricMap, c.uint());
        const count = c.u8();
        const values = this.metricValues;
        let n = 0;
        for (; n < count && c.pos < end; n++) {
          const valueType = c.u8();
          values[n] = valueType === OTF2_TYPE_DOUBLE || valueType === OTF2_TYPE_INT64 ? this.bitsValue(valueType) : c.uint();
        }
        // Truncating costs a runtime call per event; a metric has the same member count each time.
        if (values.length !== n) values.length = n;
        return;
      }
      case EventRecord.BufferFlush:
        this.stopTime = this.corrected(c.u64Full());
        return;
      case EventRecord.MeasurementOnOff:
        this.measurementOn = c.u8() === 1;
        return;
      default:
        return;
    }
  }

  /** A metric value stored as the compressed bits of a double or int64. */
  private bitsValue(valueType: number): number {
    const c = this.cursor;
    const size = c.u8();
    c.need(size === 0xff ? 0 : size);
    if (size > 8 && size !== 0xff) throw new Otf2DecodeError(`invalid compressed value size ${size}`);
    // The scratch value's own bytes: no array allocated per value (Score-P writes a metric per call).
    const bytes = this.scratchBytes;
    if (size === 0xff) bytes.fill(0xff);
    else {
      bytes.fill(0);
      const at = c.little ? 0 : 8 - size;
      for (let i = 0; i < size; i++) bytes[at + i] = this.window[c.pos + i];
      c.pos += size;
    }
    return valueType === OTF2_TYPE_DOUBLE ? this.scratch.getFloat64(0, c.little) : Number(this.scratch.getBigInt64(0, c.little));
  }

  /** Reads a record length, making sure the whole record is in the window; returns the length. */
  private ensureRecord(): number {
    const c = this.cursor;
    const start = c.pos;
    const small = c.u8();
    let header = 1;
    let length = small;
    if (small === 0xff) {
      length = c.u64Full();
      header = 9;
    }
    c.pos = start;
    if (this.windowStart + start + header + length > this.chunkLimit) {
      throw new Otf2DecodeError(`a record of ${length} bytes runs past the end of its chunk`);
    }
    if (start + header + length > c.end) this.fill(header + length);
    c.pos += header;
    if (c.pos + length > c.end) throw new Otf2DecodeError(`record of ${length} bytes runs past the end of the file`);
    return length;
  }

  /** Moves the unread bytes to the front and reads more, so that at least `min` are available when the file has them. */
  private fill(min: number): void {
    const c = this.cursor;
    const remaining = c.end - c.pos;
    // At the file's end a read finds nothing: the last records are read where they are.
    if (remaining >= min || this.windowStart + c.end >= this.fileSize) return;
    if (min > this.window.length) {
      const bigger = new Uint8Array(Math.max(min, this.window.length * 2));
      bigger.set(this.window.subarray(c.pos, c.end));
      this.window = bigger;
      this.windowView = viewOf(bigger);
      c.bytes = bigger;
    } else {
      this.window.copyWithin(0, c.pos, c.end);
    }
    this.windowStart += c.pos;
    c.base = this.windowStart;
    c.pos = 0;
    c.end = remaining;
    const fd = this.options.openPerRead ? fs.openSync(this.file, 'r') : this.fd;
    try {
      while (c.end < this.window.length) {
        const read = fs.readSync(fd, this.window, c.end, this.window.length - c.end, this.windowStart + c.end);
        if (read <= 0) break;
        c.end += read;
      }
    } finally {
      if (fd !== this.fd) fs.closeSync(fd);
    }
  }

  private startChunk(offset: number): void {
    const c = this.cursor;
    this.chunkStart = offset;
    this.chunkLimit = Math.min(this.fileSize, offset + this.options.chunkSize);
    if (offset >= this.fileSize) {
      // libotf2 ends every chunk with an end-of-chunk mark; the file simply ends after the last one.
      if (offset === 0) this.fail(0, 'the event file is empty');
      this.close();
      return;
    }
    c.pos = 0;
    c.end = 0;
    this.windowStart = offset;
    c.base = offset;
    this.fill(SMALL_RECORD);
    try {
      c.chunkHeader(true);
    } catch (error) {
      if (!(error instanceof Otf2DecodeError)) throw error;
      this.fail(offset, `${error.message}; the rest of the file is skipped`);
      this.close();
    }
  }

  private fail(offset: number, message: string): void {
    this.problems.push({ file: this.file, offset, message });
  }
}

/** C's rint: to the nearest integer, halves to even. */
function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function mapId(map: Map<number, number> | undefined, id: number): number {
  if (!map) return id;
  return map.get(id) ?? id;
}

/** `count` compressed integers from `p` into fields[at…]; false at one of an invalid size. */
function compressedFields(b: Uint8Array, view: DataView, p: number, count: number, fields: Float64Array, at: number): boolean {
  for (let k = 0; k < count; k++) {
    const size = b[p];
    const bytes = compressedLength(size);
    if (bytes === 0) return false;
    fields[at + k] = compressedWords(view, p, size);
    p += bytes;
  }
  return true;
}

// decodeBatch's readers of integers, here rather than imported from otf2Bytes.ts: a call to another
// module's function loads it from that module's exports and checks it at every call (reading the
// kept 10⁷-event trace, 2% of its instructions). They read whole 32-bit words where otf2Bytes.ts's
// read a byte at a time (5%), so the view must hold 8 bytes after the size byte, as the batch's
// slack guarantees; the bytes beyond the integer are masked off. Integers of more than 4 bytes
// take a call of their own (longWords), which keeps compressedWords small enough that V8 inlines
// compressedFields into decodeBatch as well (4%).

/** Bytes of the compressed integer whose size byte is `size`, that byte included; 0 for a size OTF2 does not allow. */
function compressedLength(size: number): number {
  return size <= 8 ? size + 1 : size === 0xff ? 1 : 0;
}

/** The low `size` bytes of a 32-bit word, by size 0–4. */
const LOW_BYTES = [0, 0xff, 0xffff, 0xffffff, 0xffffffff];

/** otf2Bytes.ts's compressedLittle: the little-endian compressed unsigned integer whose valid size byte, `size`, is at `p`. */
function compressedWords(view: DataView, p: number, size: number): number {
  if (size <= 4) return (view.getUint32(p + 1, true) & LOW_BYTES[size]) >>> 0;
  return size === 0xff ? UNDEFINED : longWords(view, p, size);
}

/** compressedWords of 5 to 8 bytes. */
function longWords(view: DataView, p: number, size: number): number {
  return ((view.getUint32(p + 5, true) & LOW_BYTES[size - 4]) >>> 0) * 4294967296 + view.getUint32(p + 1, true);
}

/** otf2Bytes.ts's fullLittle: a full little-endian uint64 at `p`, exact below 2^53. */
function fullWords(view: DataView, p: number): number {
  return view.getUint32(p + 4, true) * 4294967296 + view.getUint32(p, true);
}
