// Importer for `perf report --stdio` and `bperf report --stdio` text, and the class
// guess for `bperf script` samples. bperf (s3yonsei/blocked_samples, OSDI'24; seeds 002
// and 004) is perf with blocked samples: the report's level column tags them [I] I/O,
// [L] lock, [S] scheduling, [B] other blocked, beside perf's own [.] user and [k] kernel
// (bperf tools/perf/util/event.c thread__find_map, sort.c; reference
// ../shared/reference/perf-ingest.md §2.4 and §4). Rows are `overhead%  column  column…`
// under a `# Overhead  Command  Shared Object  Symbol …` header; with callchains,
// indented `|`/`---` lines follow a row. `bperf script` prints no class at all, so a
// weighted script sample gets its class from the functions on its stack.

import { OffCpuClass, Profile, ProfileProblem, SampleClass, emptySkipCounts } from '../model/profile';
import { SampleBuilder } from '../samples/builder';
import type { LineSink } from '.';

const IO_FUNCTIONS = /fsync|fdatasync|sync_file_range|pread|pwrite|\bread|\bwrite|readv|writev|io_schedule|io_uring|aio|blkdev|submit_bio|__libc_(read|write|open)|open64|openat/;
const SYNC_FUNCTIONS = /futex|pthread_cond|pthread_mutex|pthread_rwlock|pthread_barrier|pthread_join|pthread_timedjoin|sem_wait|lll_lock/;

/** The class of a `bperf script` blocked sample, which bperf does not print: a guess from its stack. */
export function guessBlockedClass(functionNames: readonly string[]): OffCpuClass {
  if (functionNames.some((name) => SYNC_FUNCTIONS.test(name))) return 'sync';
  if (functionNames.some((name) => IO_FUNCTIONS.test(name))) return 'io';
  return 'other';
}

const TAG_CLASS: Record<string, SampleClass> = { I: 'io', L: 'sync', S: 'sched', B: 'other' };
const ROW = /^[\s+-]*(\d+(?:\.\d+)?)%\s{2,}(.*)$/;
const LEVEL = /^\[([.kgGuHILSB])\] (.*)$/;
const MAX_LISTED = 50;

export class PerfReportParser implements LineSink {
  private readonly builder = new SampleBuilder();
  private readonly problems: ProfileProblem[] = [];
  private unlisted = 0;
  private columns: string[] = [];
  private eventCount: number | undefined;
  private eventName = '';
  private readonly frames: { function: string; dso?: string; file?: string; line?: number }[] = [];
  private readonly frameIds = new Map<string, number>();
  private rows = 0;
  private blockedRows = 0;

  constructor(private readonly source: string) {}

  line(text: string, start: number, end: number, lineNo: number, unterminated: boolean): void {
    const line = text.slice(start, end);
    const trimmed = line.trim();
    if (trimmed === '') return;
    const comment = trimmed.startsWith('#') ? trimmed.replace(/^#\s*/, '') : undefined;
    const header = comment ?? trimmed;
    const samples = /^Samples: \S+\s+of event '?([^',]+)'?(?:, Event count \(approx\.\): (\d+))?/.exec(header);
    if (samples) {
      this.eventName = samples[1];
      if (samples[2]) this.eventCount = Number(samples[2]);
      return;
    }
    const count = /^Event count \(approx\.\): (\d+)/.exec(header);
    if (count) {
      this.eventCount = Number(count[1]);
      return;
    }
    if (/^Overhead\s/.test(header)) {
      this.columns = header.split(/\s{2,}/).slice(1);
      return;
    }
    if (comment !== undefined) return;
    const row = ROW.exec(line);
    if (row) this.row(Number(row[1]), row[2].split(/\s{2,}/), lineNo);
    // Callchain lines under a row (`|`, `---`, `--12.3%--`, caller names) are not read.
    else if (/^[\s|`-]/.test(line)) this.builder.skip('callchainLines');
    else this.malformed(lineNo, unterminated);
  }

  private row(percent: number, cells: string[], lineNo: number): void {
    if (this.eventCount === undefined) {
      this.problem(lineNo, 'error', 'a report row before `# Event count (approx.): N`: its time is unknown');
      this.builder.skip('rowsWithoutEventCount');
      return;
    }
    let command = '';
    let dso: string | undefined;
    let symbol = '[unknown]';
    let cls: SampleClass = 'onCpu';
    let place: { file: string; line: number } | undefined;
    let period: number | undefined;
    cells.forEach((cell, i) => {
      const column = this.columns[i] ?? '';
      const level = LEVEL.exec(cell);
      if (level) {
        cls = TAG_CLASS[level[1]] ?? 'onCpu';
        symbol = level[2].trim();
      } else if (column === 'Command') command = cell;
      else if (column === 'Shared Object') dso = cell;
      else if (column === 'Period') period = Number(cell);
      else if (column === 'Source:Line' || (column === '' && /:\d+$/.test(cell))) {
        const colon = cell.lastIndexOf(':');
        const line = Number(cell.slice(colon + 1));
        if (colon > 0 && Number.isInteger(line) && line > 0) place = { file: cell.slice(0, colon), line };
        else symbol = symbol === '[unknown]' ? cell : symbol;
      }
    });
    const ns = period !== undefined && Number.isFinite(period) ? period : (this.eventCount * percent) / 100;
    if (!/clock/.test(this.eventName) && this.rows === 0) this.problem(lineNo, 'warning', `event ${this.eventName || '(unnamed)'} is not a clock: its counts are shown as nanoseconds`);
    this.rows++;
    if (cls !== 'onCpu') this.blockedRows++;
    const frame = { function: symbol, dso, file: place?.file, line: place?.line };
    const key = `${frame.function}\0${dso ?? ''}\0${frame.file ?? ''}\0${frame.line ?? 0}`;
    let id = this.frameIds.get(key);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push(frame);
      this.frameIds.set(key, id);
    }
    this.builder.add(command || '(all threads)', cls, [id], ns / 1e6);
  }

  private malformed(lineNo: number, unterminated: boolean): void {
    this.builder.skip(unterminated ? 'truncatedTail' : 'malformedLines');
    this.problem(lineNo, unterminated ? 'warning' : 'error', unterminated ? 'the last line is cut off' : 'unreadable line: expected a report row `12.34%  command  dso  [.] symbol`');
  }

  private problem(line: number, severity: ProfileProblem['severity'], message: string): void {
    if (this.problems.length >= MAX_LISTED) this.unlisted++;
    else this.problems.push({ file: this.source, line, severity, message });
  }

  finish(lineCount: number): Profile {
    if (this.unlisted > 0) this.problems.push({ file: this.source, line: Math.max(1, lineCount), severity: 'warning', message: `${this.unlisted} more problems not listed` });
    if (this.rows === 0 && this.problems.every((p) => p.severity !== 'error')) {
      this.problems.push({ file: this.source, line: Math.max(1, lineCount), severity: 'warning', message: 'no report rows found' });
    }
    const skipped = emptySkipCounts();
    skipped.malformed = this.builder.skipped.malformedLines ?? 0;
    skipped.truncatedTail = this.builder.skipped.truncatedTail ?? 0;
    return {
      source: this.source,
      format: this.blockedRows > 0 ? 'bperf-report' : 'perf-report',
      runs: [],
      experiments: [],
      problems: this.problems,
      skipped,
      samples: this.builder.finish(this.frames),
    };
  }
}

/** Whether the first lines of a file look like `perf report --stdio` / `bperf report` text. */
export function looksLikePerfReport(firstLines: string[]): boolean {
  return firstLines.some((line) => /^#?\s*Samples: \S+\s+of event/.test(line) || /^# (Overhead\s|To display the perf\.data header|Total Lost Samples)/.test(line));
}
