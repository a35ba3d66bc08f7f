// A bounds-checked little-endian cursor over a section, with the LEB128 and DWARF offset
// encodings. Reading past the end throws SymbolError naming the section and offset, so
// a damaged unit stops cleanly and its caller can keep what came before.

import { SymbolError } from './symbolError';

const TWO_32 = 4294967296;

export class ByteReader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    /** For messages: "<file> .debug_line". */
    readonly where: string,
    start = 0,
    /** Exclusive; the reader never reads at or past it. */
    public end = buf.length,
  ) {
    this.pos = start;
  }

  fail(message: string, at = this.pos): never {
    throw new SymbolError(`${this.where} at offset 0x${at.toString(16)}: ${message}`);
  }

  private need(n: number): number {
    const at = this.pos;
    if (n < 0 || at + n > this.end) this.fail(`truncated (needs ${n} bytes, ${Math.max(0, this.end - at)} left)`);
    this.pos = at + n;
    return at;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  skip(n: number): void {
    this.need(n);
  }

  u8(): number {
    return this.buf[this.need(1)];
  }

  u16(): number {
    return this.buf.readUInt16LE(this.need(2));
  }

  u24(): number {
    const at = this.need(3);
    return this.buf[at] | (this.buf[at + 1] << 8) | (this.buf[at + 2] << 16);
  }

  u32(): number {
    return this.buf.readUInt32LE(this.need(4));
  }

  /** Exact below 2^53; beyond that (tombstones, garbage) the nearest double, which no lookup matches. */
  u64(): number {
    const at = this.need(8);
    return this.buf.readUInt32LE(at + 4) * TWO_32 + this.buf.readUInt32LE(at);
  }

  i8(): number {
    return this.buf.readInt8(this.need(1));
  }

  /** Unsigned of `size` bytes (1, 2, 3, 4 or 8): DWARF's address_size, offset_size and strx/addrx widths. */
  unsigned(size: number): number {
    switch (size) {
      case 1:
        return this.u8();
      case 2:
        return this.u16();
      case 3:
        return this.u24();
      case 4:
        return this.u32();
      case 8:
        return this.u64();
      default:
        return this.fail(`unsupported field size ${size}`);
    }
  }

  uleb(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
    }
  }

  sleb(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) return byte & 0x40 ? result - scale : result;
    }
  }

  /** NUL-terminated UTF-8; an unterminated string is truncation. */
  cstr(): string {
    const start = this.pos;
    const nul = this.buf.indexOf(0, start);
    if (nul < 0 || nul >= this.end) this.fail('unterminated string');
    this.pos = nul + 1;
    return this.buf.toString('utf8', start, nul);
  }

  /**
   * DWARF's initial length: 32-bit, or 0xffffffff then 64-bit. Returns the unit's end
   * (clamped to nothing: a length past the section end is reported, not trusted) and the
   * offset size the unit uses.
   */
  initialLength(): { unitEnd: number; offsetSize: 4 | 8 } {
    let length = this.u32();
    let offsetSize: 4 | 8 = 4;
    if (length === 0xffffffff) {
      length = this.u64();
      offsetSize = 8;
    } else if (length >= 0xfffffff0) {
      this.fail(`reserved unit length 0x${length.toString(16)}`, this.pos - 4);
    }
    const unitEnd = this.pos + length;
    if (unitEnd > this.end) this.fail(`unit length 0x${length.toString(16)} runs past the section end`, this.pos - offsetSize);
    return { unitEnd, offsetSize };
  }
}

/** Reads a NUL-terminated string at an offset of a string section (.debug_str, .debug_line_str, .strtab). */
export function stringAt(section: Buffer | undefined, offset: number, where: string): string {
  if (!section || offset < 0 || offset >= section.length) {
    throw new SymbolError(`${where}: string offset 0x${offset.toString(16)} is outside the string section`);
  }
  const nul = section.indexOf(0, offset);
  return section.toString('utf8', offset, nul < 0 ? section.length : nul);
}
