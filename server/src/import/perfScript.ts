// Importer for `perf script` text (Linux perf, and bperf's `bperf script`). The format
// is defined by the perf sources, tools/perf/builtin-script.c (record headers, sideband
// PERF_RECORD_* lines) and tools/perf/util/evsel_fprintf.c (callchain lines), and
// documented in perf-script(1); the grammar as printed by perf 5.x–6.x is written down
// in ../shared/reference/perf-ingest.md §2.1. A record is a header line, then one TAB-
// indented line per callchain frame (each optionally followed by a two-space `srcline`
// line), then a blank line. Sample weights are period × (1 + weight), as bperf counts.

import { Profile, ProfileProblem, emptySkipCounts } from '../model/profile';
import { guessBlockedClass } from './bperf';
import { callchainAddressKind, MmapTable } from '../samples/addresses';
import { BlockedSamples, enteredByInterrupt } from '../samples/blocked';
import { SampleBuilder } from '../samples/builder';
import { FrameResolver, PerfFrame } from '../samples/frames';
import type { LineSink } from '.';

// comm [pid/]tid [cpu] secs.usecs: [period] event: [rest]. Anchored on the timestamp,
// because comm may hold spaces.
const HEADER = /^\s*(.*?)\s+(?:(\d+)\/)?(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+):(?:\s(.*))?$/;
const SIDEBAND = /^\s*(.*?)\s+(?:(-?\d+)\/)?(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+PERF_RECORD_(\w+)(.*)$/;
/** `-F comm,tid,time,ip,…` without an event: the leaf frame follows the time. */
const EVENTLESS_HEADER = /^\s*(.*?)\s+(?:(\d+)\/)?(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(.*)$/;
/** `-F tid,ip,…` without a time: only [comm] [pid/]tid. */
const BARE_HEADER = /^\s*(?:(\S.*?)\s+)?(?:(\d+)\/)?(\d+)\s*$/;
const MMAP = /^\s*(-?\d+)\/-?\d+:\s+\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (?:0x)?([0-9a-f]+)\b[^\]]*\]:\s+\S+\s+(.*)$/;
const LEAF = /^\s*(?:(\d+)\s+)?([0-9a-f]+) (.*)$/;
const DIGITS = /^\s*(\d+)\s*$/;

/** Lines of problems listed per file; further ones are counted in a summary. */
const MAX_LISTED = 50;
/** Callchain lines remembered (see ChainNode); a profile with more starts over. */
const MAX_CHAIN_NODES = 1_000_000;

/** One callchain line in the trie of the chains seen; `ids` once the chain ending here is parsed. */
interface ChainNode {
  line: string;
  parent?: ChainNode;
  children?: Map<string, ChainNode>;
  /** The child taken most recently. */
  last?: ChainNode;
  ids?: number[];
}

/** `subsystem:name`, as opposed to an event with modifiers such as `cpu-clock:pppH`. */
function isTracepoint(event: string): boolean {
  return event.includes(':') && !/:[ukhpPGHSDIW]+$/.test(event);
}

function isClockEvent(event: string): boolean {
  return /^(task-clock|cpu-clock)/.test(event);
}

/** A callchain line: TAB, space-padded hex ip, symbol[+0xoff], then ` (dso)` or ` (inlined)`. */
export function parseFrameLine(line: string): PerfFrame | undefined {
  let pos = 1;
  while (pos < line.length && line.charCodeAt(pos) === 32) pos++;
  const space = line.indexOf(' ', pos);
  if (space < 0) return undefined;
  const ip = parseInt(line.slice(pos, space), 16);
  if (!Number.isFinite(ip) || !/^[0-9a-f]+$/.test(line.slice(pos, space))) return undefined;
  let rest = line.slice(space + 1);
  let dso: string | undefined;
  let inlined = false;
  if (rest.endsWith(')')) {
    const open = rest.lastIndexOf(' (');
    if (open >= 0) {
      dso = rest.slice(open + 2, -1);
      rest = rest.slice(0, open);
      if (dso === 'inlined') {
        dso = undefined;
        inlined = true;
      }
    }
  }
  let offset: number | undefined;
  const plus = rest.lastIndexOf('+0x');
  if (plus > 0 && /^[0-9a-f]+$/.test(rest.slice(plus + 3))) {
    offset = parseInt(rest.slice(plus + 3), 16);
    rest = rest.slice(0, plus);
  }
  return { ip, symbol: rest || '[unknown]', offset, dso, inlined };
}

interface RecordHeader {
  lineNo: number;
  comm: string;
  pid?: number;
  tid: number;
  timeMs?: number;
  period?: number;
  event: string;
  rest: string;
}

export interface PerfScriptOptions {
  /** Build ids recorded with the profile, by binary path (from `perf buildid-list`). */
  buildIds?: Map<string, string>;
  /** perf's version when known from elsewhere (perf.data read by this perf). */
  perfVersion?: string;
}

export class PerfScriptParser implements LineSink {
  private readonly problems: ProfileProblem[] = [];
  private unlisted = 0;
  private readonly builder = new SampleBuilder();
  private readonly blocked = new BlockedSamples(this.builder);
  private readonly mmaps = new MmapTable();
  private readonly resolver: FrameResolver;
  private perfVersion: string | undefined;
  private header: RecordHeader | undefined;
  /**
   * Callchains as printed, in a trie of their lines: the record's chain is found line by
   * line as it arrives (short keys, no joined copy), and parsed once per distinct chain.
   */
  private readonly chainRoots = new Map<number | undefined, ChainNode>();
  private chainNodes = 0;
  /** Where the current record's chain is in the trie; undefined before its first line. */
  private chain: ChainNode | undefined;
  private chainLineNo = 0;
  /** Frame lines parsed, shared by every chain that has them (the resolver caches by frame object). */
  private readonly parsedFrames = new Map<string, PerfFrame>();
  private readonly stackArrays = new Map<string, number[]>();
  /** The stacks of stackArrays taken inside an interrupt's handler. */
  private readonly interruptStacks = new Set<number[]>();
  private readonly leafIds = new Map<string, number[]>();
  private leafSrcline: string | undefined;
  /** After an unreadable header, its callchain lines are counted, not reported one by one. */
  private inUnreadableRecord = false;
  private warnedNoPeriod = false;
  private readonly nonClockEvents = new Set<string>();
  private samples = 0;
  /** PERF_RECORD_LOST (`perf script --show-lost-events`): records perf dropped when its buffer was full, and where the first was. */
  private lostRecords = 0;
  private lostAt = 0;

  constructor(private readonly source: string, options: PerfScriptOptions = {}) {
    this.perfVersion = options.perfVersion;
    this.resolver = new FrameResolver({ mmaps: this.mmaps, addressKind: () => callchainAddressKind(this.perfVersion), buildIds: options.buildIds });
  }

  line(text: string, start: number, end: number, lineNo: number, unterminated: boolean): void {
    if (end === start) {
      this.flush();
      this.inUnreadableRecord = false;
      return;
    }
    const line = text.slice(start, end);
    const first = line.charCodeAt(0);
    if (first === 9 /* TAB */) {
      if (this.header) {
        if (!this.chain) this.chainLineNo = lineNo;
        this.extendChain(line);
      } else if (this.inUnreadableRecord) this.builder.skip('framesOfUnreadableRecords');
      else this.malformed(lineNo, unterminated, 'a record header before this callchain line');
      return;
    }
    if (first === 35 /* # */) {
      const version = /^# perf version : (\S+)/.exec(line);
      if (version) this.perfVersion = version[1];
      return;
    }
    if (first === 124 /* | srccode */ || line === '--') return;
    if (first === 32 && line.charCodeAt(1) === 32 && this.header && !EVENTLESS_HEADER.test(line)) {
      // A srcline line belongs to the frame above it, or to the leaf on the header line.
      if (this.chain) this.extendChain(line);
      else this.leafSrcline = line.trim();
      return;
    }
    this.flush();
    this.inUnreadableRecord = false;
    this.startRecord(line, lineNo, unterminated);
  }

  private startRecord(line: string, lineNo: number, unterminated: boolean): void {
    const side = line.includes(' PERF_RECORD_') ? SIDEBAND.exec(line) : null;
    if (side) {
      this.sideband(side, lineNo);
      return;
    }
    const match = HEADER.exec(line);
    if (match) {
      this.header = {
        lineNo,
        comm: match[1].trim(),
        pid: match[2] === undefined ? undefined : Number(match[2]),
        tid: Number(match[3]),
        timeMs: Number(match[5]) * 1000,
        period: match[6] === undefined ? undefined : Number(match[6]),
        event: match[7],
        rest: match[8] ?? '',
      };
      return;
    }
    const eventless = EVENTLESS_HEADER.exec(line);
    if (eventless) {
      this.header = {
        lineNo,
        comm: eventless[1].trim(),
        pid: eventless[2] === undefined ? undefined : Number(eventless[2]),
        tid: Number(eventless[3]),
        timeMs: Number(eventless[5]) * 1000,
        event: '',
        rest: eventless[6],
      };
      return;
    }
    const bare = BARE_HEADER.exec(line);
    if (bare) {
      this.header = { lineNo, comm: bare[1] ?? '', pid: bare[2] === undefined ? undefined : Number(bare[2]), tid: Number(bare[3]), event: '', rest: '' };
      return;
    }
    this.inUnreadableRecord = true;
    this.malformed(lineNo, unterminated, 'a record header `comm [pid/]tid [cpu] time: [period] event:`');
  }

  private sideband(match: RegExpExecArray, lineNo: number): void {
    const tid = Number(match[3]);
    const timeMs = Number(match[5]) * 1000;
    const name = match[6];
    const rest = match[7];
    if (name === 'SWITCH' || name === 'SWITCH_CPU_WIDE') {
      if (/^\s*OUT/.test(rest)) this.blocked.switchOut(tid, `${match[1].trim()} ${tid}`, timeMs, undefined, /preempt/.test(rest), undefined, []);
      else this.blocked.switchIn(tid, timeMs);
    } else if (name === 'LOST') {
      const lost = /lost (\d+)/.exec(rest);
      if (!lost) {
        this.problem(lineNo, 'warning', `a LOST record that could not be read: ${rest.trim().slice(0, 80)}`);
        return;
      }
      if (this.lostRecords === 0) this.lostAt = lineNo;
      this.lostRecords += Number(lost[1]);
    } else if (name === 'MMAP' || name === 'MMAP2') {
      const mmap = MMAP.exec(rest);
      if (mmap) this.mmaps.add(mmap[5].trim(), Number(mmap[1]), parseInt(mmap[2], 16), parseInt(mmap[3], 16), parseInt(mmap[4], 16));
      else this.problem(lineNo, 'warning', `a ${name} record that could not be read: ${rest.trim().slice(0, 80)}`);
    }
  }

  private flush(): void {
    const header = this.header;
    if (!header) return;
    this.header = undefined;
    const chain = this.chain;
    this.chain = undefined;
    const leafSrcline = this.leafSrcline;
    this.leafSrcline = undefined;
    const event = header.event;
    if (event.endsWith('sched_switch')) this.schedSwitch(header, this.resolveChain(chain, header.pid));
    else if (/sched_wak(eup|ing)(_new)?$/.test(event)) {
      const pid = / pid=(\d+)/.exec(header.rest);
      if (pid && header.timeMs !== undefined) this.blocked.wakeup(Number(pid[1]), header.timeMs);
    } else if (isTracepoint(event)) this.builder.skip('otherTracepointRecords');
    else this.sample(header, chain, leafSrcline);
  }

  private extendChain(line: string): void {
    let node = this.chain;
    if (!node) {
      const pid = this.header!.pid;
      node = this.chainRoots.get(pid);
      if (!node) this.chainRoots.set(pid, (node = { line: '' }));
    }
    // Consecutive samples often repeat a chain: comparing with the last line taken from
    // here is cheaper than hashing the line.
    let child = node.last !== undefined && node.last.line === line ? node.last : node.children?.get(line);
    if (!child) {
      if (this.chainNodes >= MAX_CHAIN_NODES) {
        // Only a cache: start over rather than grow without bound.
        this.chainRoots.clear();
        this.chainNodes = 0;
      }
      child = { line, parent: node };
      (node.children ??= new Map()).set(line, child);
      this.chainNodes++;
    }
    node.last = child;
    this.chain = child;
  }

  /** Frame ids of a callchain as printed; identical chains (most of a profile) are parsed once. */
  private resolveChain(node: ChainNode | undefined, pid: number | undefined): number[] {
    if (!node) return [];
    if (node.ids) return node.ids;
    const chain: string[] = [];
    for (let at: ChainNode | undefined = node; at?.parent; at = at.parent) chain.push(at.line);
    chain.reverse();
    const frames: PerfFrame[] = [];
    let clean = true;
    chain.forEach((line, i) => {
      if (line.charCodeAt(0) !== 9) {
        // With srcline, perf moves an inlined frame's `(inlined)` mark onto the srcline.
        const trimmed = line.trim();
        const src = trimmed.replace(/ \(inlined\)$/, '');
        const frame = frames[frames.length - 1];
        if (!frame) return;
        frame.srcline = src;
        if (src !== trimmed && frame.dso === undefined) frame.inlined = true;
        return;
      }
      let frame = this.parsedFrames.get(line);
      if (!frame) {
        frame = parseFrameLine(line);
        if (frame) {
          if (this.parsedFrames.size >= MAX_CHAIN_NODES) this.parsedFrames.clear();
          this.parsedFrames.set(line, frame);
        }
      }
      if (frame) frames.push(frame);
      else {
        clean = false;
        this.malformed(this.chainLineNo + i, false, 'a callchain line (TAB, hex address, symbol)');
      }
    });
    const ids = this.canonicalStack(this.resolver.resolveChain(frames, pid));
    if (clean) node.ids = ids;
    return ids;
  }

  /** The frame printed on the header line of a sample without callchain, parsed once per distinct leaf. */
  private resolveLeaf(text: string, srcline: string | undefined, pid: number | undefined): number[] | undefined {
    const key = `${pid ?? ''}\0${text}\0${srcline ?? ''}`;
    let ids = this.leafIds.get(key);
    if (ids) return ids;
    const leaf = parseFrameLine(text);
    if (!leaf) return undefined;
    leaf.srcline = srcline;
    // The sample's own ip: a runtime address in every perf version.
    ids = this.canonicalStack(this.resolver.resolveChain([leaf], pid, true));
    if (this.leafIds.size >= MAX_CHAIN_NODES) this.leafIds.clear();
    this.leafIds.set(key, ids);
    return ids;
  }

  /** One array per distinct stack: the sample builder sums by array identity. */
  private canonicalStack(resolved: number[]): number[] {
    const key = resolved.join(',');
    let ids = this.stackArrays.get(key);
    if (!ids) {
      this.stackArrays.set(key, (ids = resolved));
      if (enteredByInterrupt(this.functionNames(ids))) this.interruptStacks.add(ids);
    }
    return ids;
  }

  private functionNames(ids: number[]): string[] {
    return ids.map((id) => this.resolver.frames[id].function);
  }

  private schedSwitch(header: RecordHeader, ids: number[]): void {
    const prevPid = /prev_pid=(\d+)/.exec(header.rest);
    const prevState = /prev_state=(\S+)/.exec(header.rest);
    const prevComm = /prev_comm=(.*?) prev_pid=/.exec(header.rest);
    if (!prevPid || header.timeMs === undefined) {
      this.builder.skip('unreadableSchedSwitch');
      return;
    }
    const tid = Number(prevPid[1]);
    this.blocked.switchOut(tid, `${prevComm?.[1] ?? header.comm} ${tid}`, header.timeMs, prevState?.[1], false, ids, this.functionNames(ids));
  }

  private sample(header: RecordHeader, chain: ChainNode | undefined, leafSrcline: string | undefined): void {
    let weight = 0;
    let leafIds: number[] | undefined;
    const rest = header.rest;
    if (rest.trim() !== '') {
      const digits = DIGITS.exec(rest);
      const onLine = digits ? null : LEAF.exec(rest);
      if (digits) weight = Number(digits[1]);
      else if (onLine) {
        if (onLine[1] !== undefined) weight = Number(onLine[1]);
        if (!chain) leafIds = this.resolveLeaf(`\t${onLine[2]} ${onLine[3]}`, leafSrcline, header.pid);
      }
    }
    let periodNs = header.period;
    if (periodNs === undefined) {
      if (!this.warnedNoPeriod) this.problem(header.lineNo, 'warning', 'samples without a period (perf script -F without `period`): each counts as 1 ms');
      this.warnedNoPeriod = true;
      periodNs = 1e6;
    } else if (header.event !== '' && !isClockEvent(header.event) && !this.nonClockEvents.has(header.event)) {
      this.nonClockEvents.add(header.event);
      this.problem(header.lineNo, 'warning', `event ${header.event} is not a clock: its periods are shown as nanoseconds`);
    }
    this.samples++;
    const ids = leafIds ?? this.resolveChain(chain, header.pid);
    const ms = (periodNs * (1 + weight)) / 1e6;
    const thread = `${header.comm} ${header.tid}`;
    if (weight > 0) {
      // bperf: a sample with a weight is a blocked sample, emitted at switch-in.
      this.builder.add(thread, guessBlockedClass(this.functionNames(ids)), ids, ms);
      return;
    }
    this.blocked.onCpu(header.tid, header.timeMs, ids);
    this.builder.add(thread, this.interruptStacks.has(ids) ? 'sched' : 'onCpu', ids, ms);
  }

  private malformed(lineNo: number, unterminated: boolean, expected: string): void {
    if (unterminated) {
      this.builder.skip('truncatedTail');
      this.problem(lineNo, 'warning', 'the last line is cut off (file still being written, or truncated)');
      return;
    }
    this.builder.skip('malformedLines');
    this.problem(lineNo, 'error', `unreadable line: expected ${expected}`);
  }

  private problem(line: number, severity: ProfileProblem['severity'], message: string): void {
    if (this.problems.length >= MAX_LISTED) this.unlisted++;
    else this.problems.push({ file: this.source, line, severity, message });
  }

  finish(lineCount: number): Profile {
    this.flush();
    this.blocked.finish();
    const problems = this.problems;
    for (const warning of this.resolver.warnings) problems.push({ file: this.source, line: 1, severity: 'warning', message: warning.message });
    if (this.unlisted > 0) problems.push({ file: this.source, line: Math.max(1, lineCount), severity: 'warning', message: `${this.unlisted} more problems not listed` });
    if (this.lostRecords > 0) {
      problems.push({
        file: this.source,
        line: this.lostAt,
        severity: 'warning',
        message: `perf lost ${this.lostRecords} records while recording (its buffer was full): the times shown are short by the samples and switches among them; record again with a larger buffer (perf record -m) or fewer events`,
      });
    }
    if (this.samples === 0 && problems.every((p) => p.severity !== 'error')) {
      problems.push({ file: this.source, line: Math.max(1, lineCount), severity: 'warning', message: 'no samples found' });
    }
    const skipped = emptySkipCounts();
    skipped.malformed = this.builder.skipped.malformedLines ?? 0;
    skipped.truncatedTail = this.builder.skipped.truncatedTail ?? 0;
    return { source: this.source, format: 'perf-script', runs: [], experiments: [], problems, skipped, samples: this.builder.finish(this.resolver.frames) };
  }
}

/** Whether the first lines of a file look like `perf script` output. */
export function looksLikePerfScript(firstLines: string[]): boolean {
  let frames = 0;
  for (const line of firstLines) {
    if (/^# (perf version|captured on|========)/.test(line)) return true;
    if (HEADER.test(line) || SIDEBAND.test(line)) return true;
    if (/^[0-9a-f]+ \S.* \(.+\)$/.test(line)) frames++;
  }
  return frames >= 2;
}
