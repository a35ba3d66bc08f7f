// Reading a profile file of any supported format into the normalized model: the
// format is sniffed from the first lines, then the file is streamed line by line
// into that format's parser.

import { isAscii } from 'buffer';
import * as fs from 'fs';
import { StringDecoder } from 'string_decoder';
import { Profile, emptySkipCounts } from '../model/profile';
import { PerfReportParser, looksLikePerfReport } from './bperf';
import { CozParser, looksLikeCozLine } from './coz';
import { PERF_DATA_MAGIC, readPerfData } from './perfData';
import { PerfScriptParser, looksLikePerfScript } from './perfScript';
import { readErrorReason } from '../readError';

/** Receives a file's lines in order. A parser never throws on content. */
export interface LineSink {
  /**
   * One line, `text[start, end)`, without its `\n` (or `\r\n`). `unterminated` is
   * set for a last line with no newline, which may be cut off mid-write.
   */
  line(text: string, start: number, end: number, lineNo: number, unterminated: boolean): void;
  /** The Profile, once every line has been given; `lineCount` lines were read. */
  finish(lineCount: number): Profile;
}

export interface Importer {
  /** Profile.format of what it produces. */
  name: string;
  /** What its files begin with, for the message about an unrecognized file. */
  expected: string;
  /** Whether the first few non-blank lines of a file are in this format. */
  sniff(firstLines: string[]): boolean;
  /** A parser for one file. */
  parse(source: string): LineSink;
}

/** Tried in order; the first whose sniff() accepts the file parses it. */
export const IMPORTERS: readonly Importer[] = [
  {
    name: 'coz',
    expected: 'a COZ/BCOZ profile (`startup`, `experiment`, … records, or JSON lines like {"type":"startup",…})',
    sniff: (firstLines) => firstLines.some(looksLikeCozLine),
    parse: (source) => new CozParser(source),
  },
  {
    name: 'perf-report',
    expected: '`perf report --stdio` or `bperf report --stdio` text (`# Samples: … of event`)',
    sniff: looksLikePerfReport,
    parse: (source) => new PerfReportParser(source),
  },
  {
    name: 'perf-script',
    expected: '`perf script` or `bperf script` text (`comm tid time: period event:` records)',
    sniff: looksLikePerfScript,
    parse: (source) => new PerfScriptParser(source),
  },
];

/** How many non-blank lines sniffers see, and how much text is buffered to find them. */
const SNIFF_LINES = 8;
const SNIFF_MAX_CHARS = 64 * 1024;
const DEFAULT_CHUNK_BYTES = 2 * 1024 * 1024;

/** Up to `SNIFF_LINES` non-blank lines from the start of `text`, with their 1-based numbers. */
function firstLines(text: string): { lines: string[]; numbers: number[] } {
  const lines: string[] = [];
  const numbers: number[] = [];
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  while (lines.length < SNIFF_LINES && pos < text.length) {
    let end = text.indexOf('\n', pos);
    const terminated = end >= 0;
    if (!terminated) end = text.length;
    lineNo++;
    const line = text.slice(pos, end).trim();
    if (line !== '') {
      lines.push(line);
      numbers.push(lineNo);
    }
    if (!terminated) break;
    pos = end + 1;
  }
  return { lines, numbers };
}

/** A Profile holding only one problem, for a file no importer accepts. */
function unrecognizedProfile(source: string, text: string): Profile {
  const { lines, numbers } = firstLines(text);
  const problem =
    lines.length === 0
      ? { line: 1, severity: 'warning' as const, message: 'the file is empty' }
      : {
          line: numbers[0],
          severity: 'error' as const,
          message:
            `unrecognized profile format: the file starts with ${JSON.stringify(lines[0].slice(0, 60))}; ` +
            `expected ${IMPORTERS.map((importer) => importer.expected).join(' or ')}`,
        };
  return {
    source,
    format: 'unknown',
    runs: [],
    experiments: [],
    problems: [{ file: source, ...problem }],
    skipped: emptySkipCounts(),
  };
}

/**
 * Turns text chunks (any sizes, split anywhere) into lines for the parser chosen by
 * sniffing. Lines are handed over as offsets into the chunk, so the hot path makes no
 * substrings; only a line split across two chunks is glued together.
 */
export class ProfileReader {
  /** Text held back until the format is known. */
  private readonly head: string[] = [];
  private headLength = 0;
  /** Non-blank lines completed in the head, and whether the unfinished one is blank so far. */
  private headLines = 0;
  private headLineBlank = true;
  /** Offset in the head of its first non-blank character, or -1. */
  private contentStart = -1;
  private sink: LineSink | undefined;
  private unrecognized: Profile | undefined;
  /** The unfinished last line of the previous chunk. */
  private carry = '';
  private lineCount = 0;
  private atStart = true;

  /** `sink` skips sniffing, for text known to be in one format (perf script from perf.data). */
  constructor(
    private readonly source: string,
    sink?: LineSink,
  ) {
    this.sink = sink;
  }

  /** Adds text; returns false once the file is known to be unrecognized, so reading can stop. */
  push(chunk: string): boolean {
    if (this.unrecognized) return false;
    if (this.sink) {
      this.split(chunk);
      return true;
    }
    // Lines are counted as they arrive: re-reading the whole head on each push would
    // be quadratic when the text comes in tiny pieces.
    for (let i = 0; i < chunk.length && !this.enoughToSniff(); i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) {
        if (!this.headLineBlank) this.headLines++;
        this.headLineBlank = true;
      } else if (c !== 32 && c !== 9 && c !== 13 && c !== 0xfeff) {
        this.headLineBlank = false;
        if (this.contentStart < 0) this.contentStart = this.headLength + i;
      }
    }
    this.head.push(chunk);
    this.headLength += chunk.length;
    return this.enoughToSniff() ? this.chooseImporter() : true;
  }

  /** Sniffers see SNIFF_LINES non-blank lines, or SNIFF_MAX_CHARS from the first non-blank one. */
  private enoughToSniff(): boolean {
    return this.headLines >= SNIFF_LINES || (this.contentStart >= 0 && this.headLength - this.contentStart >= SNIFF_MAX_CHARS);
  }

  end(): Profile {
    if (!this.sink && !this.unrecognized) this.chooseImporter();
    if (this.unrecognized) return this.unrecognized;
    const sink = this.sink!;
    if (this.carry !== '') {
      const last = this.carry;
      this.carry = '';
      this.emit(last, 0, last.length, true);
    }
    return sink.finish(this.lineCount);
  }

  private chooseImporter(): boolean {
    const head = this.head.join('');
    this.head.length = 0;
    // The same prefix, however the text was cut into chunks.
    const sniffed = this.contentStart < 0 ? head : head.slice(0, this.contentStart + SNIFF_MAX_CHARS);
    const { lines } = firstLines(sniffed);
    const importer = lines.length > 0 ? IMPORTERS.find((candidate) => candidate.sniff(lines)) : undefined;
    if (!importer) {
      this.unrecognized = unrecognizedProfile(this.source, sniffed);
      return false;
    }
    this.sink = importer.parse(this.source);
    this.split(head);
    return true;
  }

  private split(chunk: string): void {
    let pos = 0;
    if (this.atStart && chunk.length > 0) {
      this.atStart = false;
      if (chunk.charCodeAt(0) === 0xfeff) pos = 1; // UTF-8 byte order mark
    }
    if (this.carry !== '') {
      const newline = chunk.indexOf('\n', pos);
      if (newline < 0) {
        this.carry += chunk.slice(pos);
        return;
      }
      const line = this.carry + chunk.slice(pos, newline);
      this.carry = '';
      this.emit(line, 0, line.length, false);
      pos = newline + 1;
    }
    for (;;) {
      const newline = chunk.indexOf('\n', pos);
      if (newline < 0) break;
      this.emit(chunk, pos, newline, false);
      pos = newline + 1;
    }
    if (pos < chunk.length) this.carry = chunk.slice(pos);
  }

  private emit(text: string, start: number, end: number, unterminated: boolean): void {
    if (end > start && text.charCodeAt(end - 1) === 13 /* \r */) end--;
    this.sink!.line(text, start, end, ++this.lineCount, unterminated);
  }
}

/** Parses a whole profile held in memory; `source` names it in problems. */
export function parseProfileText(text: string, source: string): Profile {
  const reader = new ProfileReader(source);
  reader.push(text);
  return reader.end();
}

async function startsWith(file: string, magic: string): Promise<boolean> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(file, 'r');
    const head = new Uint8Array(magic.length);
    const { bytesRead } = await handle.read(head, 0, magic.length, 0);
    return bytesRead === magic.length && Buffer.from(head).toString('latin1') === magic;
  } catch {
    // Unreadable files are reported by the reading below, with the reason.
    return false;
  } finally {
    await handle?.close();
  }
}

/**
 * Reads and parses a profile file in chunks. Content problems end up in
 * Profile.problems; a file that cannot be read at all throws an Error naming it.
 */
export async function readProfileFile(file: string, options: { chunkBytes?: number } = {}): Promise<Profile> {
  if (await startsWith(file, PERF_DATA_MAGIC)) return readPerfData(file);
  const reader = new ProfileReader(file);
  const stream = fs.createReadStream(file, { highWaterMark: options.chunkBytes ?? DEFAULT_CHUNK_BYTES });
  // Profiles are nearly always ASCII, which latin1 decodes 4x faster than UTF-8
  // does; after the first non-ASCII chunk, a real decoder takes over for the rest.
  const decoder = new StringDecoder('utf8');
  let asciiSoFar = true;
  try {
    for await (const bytes of stream) {
      const chunk = bytes as Buffer;
      let text: string;
      if (asciiSoFar && isAscii(chunk)) text = chunk.toString('latin1');
      else {
        asciiSoFar = false;
        text = decoder.write(chunk);
      }
      // Leaving the loop destroys the stream: no need to read the rest of a foreign file.
      if (!reader.push(text)) break;
    }
  } catch (error) {
    // Only the file system's errors are about reading; anything else is a bug to surface as is.
    if (typeof (error as NodeJS.ErrnoException).syscall !== 'string') throw error;
    throw new Error(`cannot read profile ${file}: ${readErrorReason(error)}`, { cause: error });
  }
  reader.push(decoder.end());
  return reader.end();
}
