// The OTF2 reader against otf2-print (libotf2 3.0, Debian otf2-tools) on a real archive: every
// event of every location, in order, with its time and the fields PEM uses.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import fsModule from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { recordTrace } from '../../server/src/mpi/recordTrace';
import { communicatorRanks, openOtf2Archive, openRankEvents, Otf2Archive, parseSmallestCallCpu } from '../../server/src/trace/otf2Archive';
import { Otf2EventReader } from '../../server/src/trace/otf2Events';
import { buildMpi, MPI_BUILD } from './mpiBuild';

export const STENCIL8 = path.join(__dirname, '../../../test/fixtures/otf2/stencil8_otf2/traces.otf2');

const PRINT_TYPES: Record<string, number> = {
  BUFFER_FLUSH: 10,
  ENTER: 12,
  LEAVE: 13,
  MPI_SEND: 14,
  MPI_ISEND: 15,
  MPI_ISEND_COMPLETE: 16,
  MPI_IRECV_REQUEST: 17,
  MPI_RECV: 18,
  MPI_IRECV: 19,
  MPI_REQUEST_TEST: 20,
  MPI_COLLECTIVE_BEGIN: 22,
  MPI_COLLECTIVE_END: 23,
  METRIC: 31,
};

/** otf2-print's events per location as comparable strings: type, time and the numbers PEM reads. */
export function otf2PrintEvents(anchor: string): Map<number, string[]> {
  const text = execFileSync('otf2-print', [anchor], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const byLocation = new Map<number, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$/.exec(line);
    if (!m || !(m[1] in PRINT_TYPES)) continue;
    const fields = m[4];
    const num = (key: string) => new RegExp(`${key}: (\\d+)`).exec(fields)?.[1] ?? '-';
    const region = /Region: "[^"]*" <(\d+)>/.exec(fields)?.[1] ?? '-';
    const type = PRINT_TYPES[m[1]];
    let key = '';
    if (type === 12 || type === 13) key = region;
    else if (type === 14 || type === 15) key = `${num('Receiver')} ${num('Tag')} ${num('Length')} ${type === 15 ? num('Request') : '-'}`;
    else if (type === 18 || type === 19) key = `${num('Sender')} ${num('Tag')} ${num('Length')} ${type === 19 ? num('Request') : '-'}`;
    else if (type === 16 || type === 17 || type === 20) key = num('Request');
    else if (type === 23) key = `${num('Sent')} ${num('Received')}`;
    else if (type === 31) key = /UINT64; (\d+)\)/.exec(fields)?.[1] ?? '-';
    else if (type === 10) key = /Stop Time: (\d+)/.exec(fields)?.[1] ?? '-';
    const location = Number(m[2]);
    if (!byLocation.has(location)) byLocation.set(location, []);
    byLocation.get(location)!.push(`${type} ${m[3]} ${key}`);
  }
  return byLocation;
}

export function readerEvents(reader: Otf2EventReader): string[] {
  const out: string[] = [];
  while (reader.next()) {
    const t = reader.type;
    let key = '';
    if (t === 12 || t === 13) key = String(reader.region);
    else if (t === 14 || t === 15 || t === 18 || t === 19) key = `${reader.peer} ${reader.tag} ${reader.length} ${t === 15 || t === 19 ? reader.request : '-'}`;
    else if (t === 16 || t === 17 || t === 20) key = String(reader.request);
    else if (t === 23) key = `${reader.sizeSent} ${reader.sizeReceived}`;
    else if (t === 31) key = String(reader.metricValues[0]);
    else if (t === 10) key = String(reader.stopTime);
    out.push(`${t} ${reader.time} ${key}`);
  }
  return out;
}

export function assertMatchesOtf2Print(archive: Otf2Archive, windowBytes?: number): number {
  const expected = otf2PrintEvents(archive.anchorPath);
  let total = 0;
  for (const rank of archive.ranks) {
    const reader = openRankEvents(archive, rank, windowBytes);
    const got = readerEvents(reader);
    assert.deepEqual(reader.problems, [], `rank ${rank.rank}`);
    assert.deepEqual(got, expected.get(rank.location) ?? [], `rank ${rank.rank} (location ${rank.location})`);
    total += got.length;
  }
  return total;
}

test('stencil8 (python3-otf2, OTF2 3.0): definitions as otf2-print shows them', () => {
  const archive = openOtf2Archive(STENCIL8);
  assert.equal(archive.fatal, undefined);
  assert.deepEqual(archive.problems, []);
  assert.equal(archive.anchor!.version, '3.0.2');
  assert.equal(archive.anchor!.locations, 8);
  assert.deepEqual(archive.defs.clock, { ticksPerSecond: 1e9, globalOffset: 3476029, traceLength: 97076894 });
  assert.deepEqual(archive.ranks.map((r) => r.location), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual([...new Set(archive.ranks.map((r) => r.host))], ['node']);
  assert.deepEqual([...archive.defs.regions.values()], ['MPI_Barrier', 'MPI_Irecv', 'MPI_Isend', 'MPI_Waitall', 'MPI_Allreduce', 'MPI_Reduce']);
  assert.deepEqual(communicatorRanks(archive.defs).get(0), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(archive.defs.locations.get(0)!.events, 1108);
});

test('stencil8: every event of every location equals otf2-print, also through a tiny window', () => {
  const archive = openOtf2Archive(STENCIL8);
  assert.equal(assertMatchesOtf2Print(archive), 8864);
  // A 4 KiB window forces records to straddle refills.
  assert.equal(assertMatchesOtf2Print(archive, 4096), 8864);
});

test('readers that open their file for each read hold no file open between reads, and read every event as otf2-print shows', () => {
  const archive = openOtf2Archive(STENCIL8);
  const expected = otf2PrintEvents(archive.anchorPath);
  const openFiles = () => fs.readdirSync('/proc/self/fd').length;
  const before = openFiles();
  // Every rank's reader at once, as a replay holds them, through a window that refills often.
  const readers = archive.ranks.map((rank) => new Otf2EventReader(rank.eventFile, { chunkSize: archive.anchor!.chunkSizeEvents, mappings: rank.local.mappings, clockOffsets: rank.local.clockOffsets, windowBytes: 4096, openPerRead: true }));
  assert.equal(openFiles(), before);
  archive.ranks.forEach((rank, i) => {
    assert.deepEqual(readerEvents(readers[i]), expected.get(rank.location) ?? [], `rank ${rank.rank}`);
    assert.deepEqual(readers[i].problems, []);
  });
  assert.equal(openFiles(), before);
});

test('a reader reads each byte of its file once, and its file\'s end once: the last records are read where they are', (t) => {
  const archive = openOtf2Archive(STENCIL8);
  // The module itself: the reader's namespace import reads its functions from it at each call.
  const reads = t.mock.method(fsModule, 'readSync');
  for (const rank of archive.ranks) {
    reads.mock.resetCalls();
    // The window refills along the file, then holds its end while the last records are read.
    const reader = new Otf2EventReader(rank.eventFile, { chunkSize: archive.anchor!.chunkSizeEvents, mappings: rank.local.mappings, windowBytes: 4096, openPerRead: true });
    assert.ok(readerEvents(reader).length > 0);
    const sizes = reads.mock.calls.map((call) => call.result as number);
    assert.equal(sizes.reduce((a, b) => a + b, 0), fs.statSync(rank.eventFile).size, `rank ${rank.rank}: bytes read`);
    assert.ok(sizes.filter((n) => n === 0).length <= 1, `rank ${rank.rank}: ${sizes.filter((n) => n === 0).length} reads found the file's end`);
  }
});

test('a closed reader lets its window go and keeps what it had read counted', () => {
  const archive = openOtf2Archive(STENCIL8);
  const rank = archive.ranks[0];
  const reader = new Otf2EventReader(rank.eventFile, { chunkSize: archive.anchor!.chunkSizeEvents, mappings: rank.local.mappings, windowBytes: 8192 });
  for (let i = 0; i < 100; i++) assert.ok(reader.next());
  const fraction = reader.fraction;
  assert.ok(fraction > 0 && fraction < 1, `${fraction}`);
  assert.equal(reader.windowBytes, 8192);
  reader.close();
  assert.equal(reader.windowBytes, 0);
  assert.equal(reader.fraction, fraction);
  assert.equal(reader.next(), false);
});

test('a missing file and a non-OTF2 file are clear errors naming the file', () => {
  assert.match(openOtf2Archive('/nonexistent/x.otf2').fatal!, /\/nonexistent\/x\.otf2: cannot read the OTF2 anchor file \(no such file\)/);
  assert.match(openOtf2Archive(path.join(__dirname, '../../../package.json')).fatal!, /package\.json: not a readable OTF2 anchor file/);
});

const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-otf2-'));
after(() => fs.rmSync(WORK, { recursive: true, force: true }));

/** OTF2's compressed integer: its byte count, then its bytes in the file's order; 0xff alone for undefined. */
function compressed(value: number, little: boolean): number[] {
  if (value < 0) return [0xff];
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.push(v % 256);
  return [bytes.length, ...(little ? bytes : bytes.reverse())];
}

/** A tag beyond int32, as OTF2's uint32 allows: read as written, not wrapped (otf2Events.ts, smallInt). */
const TAG_ABOVE_INT32 = 3_000_000_000;

/** Message lengths of 5 to 8 bytes, the 8-byte ones exact in a double: the i-th event's is the (i mod 5)-th. */
const LONG_LENGTHS = (i: number) => [2 ** 32 + i, 2 ** 40, 2 ** 48 + i, 2 ** 56, 2 ** 60 + 2 ** 33][i % 5];

/**
 * Events of the kinds PEM reads, written by hand in either byte order (OTF2_Buffer.c's layout:
 * libotf2 writes the machine's, so no archive here is big-endian); with the file offset of each
 * MpiIsend record.
 */
function handWrittenEvents(little: boolean, repeats: number): { bytes: Buffer; isendAt: number[] } {
  const full = (value: number) => {
    const bytes = [...Array(8)].map((_, i) => Math.floor(value / 256 ** i) % 256);
    return little ? bytes : bytes.reverse();
  };
  const record = (type: number, payload: number[]) => [type, payload.length, ...payload];
  const c = (value: number) => compressed(value, little);
  const bytes: number[] = [3, little ? 0x42 : 0x23, ...full(1), ...full(repeats * 6)];
  const isendAt: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const time = 2 ** 32 + 1000 * i;
    bytes.push(5, ...full(time), ...record(31, [...c(0), 1, 4, ...c(70000 + i)]), 12, ...c(7));
    isendAt.push(bytes.length);
    bytes.push(...record(15, [...c(1), ...c(0), ...c(TAG_ABOVE_INT32 + i), ...c(LONG_LENGTHS(i)), ...c(5 + i)]), ...record(23, [2, ...c(0), 0xff, ...c(8), ...c(65536)]), 17, ...c(9), 5, ...full(time + 500), 13, ...c(7));
  }
  bytes.push(2);
  return { bytes: Buffer.from(bytes), isendAt };
}

/** Each event of a reader over a hand-written file: its type, time and its own fields. */
function handWrittenFields(file: string, windowBytes: number): { events: string[]; problems: string[] } {
  const r = new Otf2EventReader(file, { chunkSize: 1 << 20, windowBytes });
  const events: string[] = [];
  while (r.next()) {
    const own: Record<number, unknown[]> = {
      31: [r.metric, ...r.metricValues],
      12: [r.region],
      13: [r.region],
      15: [r.peer, r.comm, r.tag, r.length, r.request],
      23: [r.collectiveOp, r.comm, r.root, r.sizeSent, r.sizeReceived],
      17: [r.request],
    };
    events.push([r.type, r.time, ...(own[r.type] ?? ['unexpected'])].join(' '));
  }
  return { events, problems: r.problems.map((p) => `@${p.offset}: ${p.message}`) };
}

test('events read the same in either byte order: timestamps above 2^32, compressed integers of 0–8 bytes and undefined, a 32-bit field above 2^31', () => {
  const repeats = 40;
  const expected: string[] = [];
  for (let i = 0; i < repeats; i++) {
    const time = 2 ** 32 + 1000 * i;
    expected.push(`31 ${time} 0 ${70000 + i}`, `12 ${time} 7`, `15 ${time} 1 0 ${TAG_ABOVE_INT32 + i} ${LONG_LENGTHS(i)} ${5 + i}`, `23 ${time} 2 0 -1 8 65536`, `17 ${time} 9`, `13 ${time + 500} 7`);
  }
  for (const little of [true, false]) {
    const file = path.join(WORK, `hand-${little ? 'little' : 'big'}.evt`);
    fs.writeFileSync(file, new Uint8Array(handWrittenEvents(little, repeats).bytes));
    assert.deepEqual(handWrittenFields(file, 4096), { events: expected, problems: [] }, little ? 'little-endian' : 'big-endian');
  }
});

test("a malformed record's problem names its file offsets, also after the window has moved along the file", () => {
  const { bytes, isendAt } = handWrittenEvents(true, 200);
  // The 150th MpiIsend's tag (after its type, length, peer and communicator): its size byte made invalid.
  const record = isendAt[149];
  assert.ok(record > 4096, `record at ${record}`);
  const tagSize = record + 2 + 2 + 1;
  bytes[tagSize] = 0x60;
  const file = path.join(WORK, 'hand-damaged.evt');
  fs.writeFileSync(file, new Uint8Array(bytes));
  const { events, problems } = handWrittenFields(file, 4096);
  assert.deepEqual(problems, [`@${record}: event record 15: invalid compressed integer size 96 at offset ${tagSize}; the rest of this chunk is skipped`]);
  // Everything before the damaged record was read: 149 repetitions of six events, and the 150th's metric and Enter.
  assert.equal(events.length, 149 * 6 + 2);
});

before(() => {
  buildMpi();
});

test('metric values of every type OTF2 stores (double, int64, uint64; Score-P writes the first two) read as written', () => {
  const exe = path.join(WORK, 'metric-types');
  const otf2 = (flag: string) => execFileSync('otf2-config', [flag], { encoding: 'utf8' }).trim().split(/\s+/).filter(Boolean);
  execFileSync('gcc', ['-O1', '-o', exe, path.join(__dirname, '../../../test/fixtures/otf2/metric-types.c'), ...otf2('--cflags'), ...otf2('--ldflags'), ...otf2('--libs')]);
  execFileSync(exe, [path.join(WORK, 'metric-types-trace')]);
  const archive = openOtf2Archive(path.join(WORK, 'metric-types-trace/traces.otf2'));
  assert.equal(archive.fatal, undefined);
  const reader = openRankEvents(archive, archive.ranks[0]);
  const values: number[][] = [];
  while (reader.next()) if (reader.type === 31) values.push([...reader.metricValues]);
  assert.deepEqual(reader.problems, []);
  // The fixture's lists, by call: -1 as int64 is all ones, which OTF2 stores as a single 0xff byte.
  assert.deepEqual(values, [
    [1.5, 0, 0],
    [-0.25, 1, 255],
    [0, -1, 2 ** 40],
    [1e300, -123456789012, 65536],
    [2.2250738585072014e-308, 9007199254740991, 7],
  ]);
});

const PROGRAMS: [string, number, string[]][] = [
  ['halo', 4, ['20000', '30']],
  ['master_worker', 3, ['40']],
  ['alltoall_sort', 4, ['4000', '3']],
  ['pipeline', 3, ['20', '512']],
  ['latency', 2, ['300']],
  ['ring', 3, ['40']],
];

for (const [program, np, args] of PROGRAMS) {
  test(`recorder trace of ${program} (${np} ranks): every event equals otf2-print; host and CPU set read`, async () => {
    // A small flush threshold makes the recorder suspend and write BufferFlush records too.
    const summary = await recordTrace({ np, outDir: path.join(WORK, program), program: path.join(MPI_BUILD, program), args, flushThresholdBytes: 4096 });
    assert.equal(summary.truncated, undefined);
    const archive = openOtf2Archive(summary.archive);
    assert.equal(archive.fatal, undefined);
    assert.deepEqual(archive.problems, []);
    assert.equal(archive.ranks.length, np);
    assert.deepEqual(archive.ranks.map((r) => r.host), summary.ranks.map((r) => r.host));
    assert.deepEqual(archive.ranks.map((r) => r.cpuSet), summary.ranks.map((r) => r.cpuSet));
    assert.equal(archive.anchor!.properties.get('CAUSAL_LENS::TRUNCATED'), 'false');
    assert.ok(assertMatchesOtf2Print(archive) > 0);
  });
}

test('a preconnected property that is neither true nor false is a problem naming the definitions file; the ranks read, not taken as preconnected', async () => {
  const summary = await recordTrace({ np: 2, outDir: path.join(WORK, 'preconnected-damaged'), program: path.join(MPI_BUILD, 'latency'), args: ['50'] });
  const defsPath = summary.archive.replace(/\.otf2$/, '.def');
  const bytes = fs.readFileSync(defsPath);
  // The string "true" is the preconnected property's value only (truncated is "false").
  const at = bytes.indexOf('true\0');
  assert.ok(at > 0 && bytes.indexOf('true\0', at + 1) < 0, 'one "true" string');
  bytes[at + 3] = 'x'.charCodeAt(0);
  fs.writeFileSync(defsPath, new Uint8Array(bytes));
  const archive = openOtf2Archive(summary.archive);
  assert.deepEqual(archive.problems.map((p) => [p.file, p.message]), [0, 1].map((location) => [defsPath, `location ${location}: causal_lens:preconnected "trux" is not true or false; ignored`]));
  assert.deepEqual(archive.ranks.map((rank) => rank.preconnected), [undefined, undefined]);
  assert.ok(archive.ranks.every((rank) => rank.cpuSet !== undefined && rank.smallestCallCpu !== undefined));
});

test('a timed CPU-clock read without its count is a problem naming the definitions file and the location; the ranks read, without a read time', async () => {
  // Four ranks on one core: every wait ends in a real read, so every rank has both properties.
  const summary = await recordTrace({ np: 4, outDir: path.join(WORK, 'clock-reads-damaged'), program: 'taskset', args: ['-c', '0', path.join(MPI_BUILD, 'latency'), '300'] });
  const defsPath = summary.archive.replace(/\.otf2$/, '.def');
  const bytes = fs.readFileSync(defsPath);
  const name = 'causal_lens:clock_reads\0';
  const at = bytes.indexOf(name);
  assert.ok(at > 0 && bytes.indexOf(name, at + 1) < 0, 'the count property named once');
  // Renamed, the count is a property no reader knows; the median stays alone.
  bytes[at + name.length - 2] = 'z'.charCodeAt(0);
  fs.writeFileSync(defsPath, new Uint8Array(bytes));
  const archive = openOtf2Archive(summary.archive);
  assert.deepEqual(archive.problems.map((p) => [p.file, p.message]), [0, 1, 2, 3].map((location) => [defsPath, `location ${location}: causal_lens:clock_read_ns without causal_lens:clock_reads; ignored`]));
  assert.ok(archive.problems.every((p) => p.offset > 0), 'each problem at its property');
  assert.deepEqual(archive.ranks.map((rank) => rank.clockRead), [undefined, undefined, undefined, undefined]);
  assert.ok(archive.ranks.every((rank) => rank.cpuSet !== undefined && rank.smallestCallCpu !== undefined));
});

test("the recorder's smallest call CPU property: nanoseconds by region name, or null when it is not that", () => {
  assert.deepEqual([...parseSmallestCallCpu('MPI_Send=66,MPI_Recv=28')!], [['MPI_Send', 66e-9], ['MPI_Recv', 28e-9]]);
  assert.deepEqual([...parseSmallestCallCpu('')!], []);
  for (const bad of ['MPI_Send', 'MPI_Send=', 'MPI_Send=-3', 'MPI_Send=1.5', '=4', 'MPI_Send=4,,MPI_Recv=2', 'MPI Send=4']) assert.equal(parseSmallestCallCpu(bad), null, bad);
});

test('a damaged smallest call CPU property is a problem naming the definitions file and its record; the rest of the rank reads', async () => {
  const summary = await recordTrace({ np: 2, outDir: path.join(WORK, 'smallest-damaged'), program: path.join(MPI_BUILD, 'latency'), args: ['50'] });
  const defsPath = summary.archive.replace(/\.otf2$/, '.def');
  const bytes = fs.readFileSync(defsPath);
  const at = bytes.indexOf('MPI_Send=');
  assert.ok(at > 0, 'the converter wrote the property');
  bytes[at + 'MPI_Send'.length] = '#'.charCodeAt(0);
  fs.writeFileSync(defsPath, new Uint8Array(bytes));
  const archive = openOtf2Archive(summary.archive);
  assert.equal(archive.problems.length, 1, JSON.stringify(archive.problems));
  const [problem] = archive.problems;
  assert.equal(problem.file, defsPath);
  // Strings come first: the property's record follows its value's string.
  assert.ok(problem.offset > at && problem.offset < bytes.length, `the property's record (${problem.offset}), after its string (${at})`);
  assert.match(problem.message, /^location \d+: causal_lens:smallest_call_cpu_ns ".*MPI_Send#\d+.*" is not NAME=NANOSECONDS,\.\.\.; ignored$/);
  assert.equal(archive.ranks.filter((rank) => rank.smallestCallCpu === undefined).length, 1, 'only the damaged rank loses it');
  assert.ok(archive.ranks.every((rank) => rank.cpuSet !== undefined));
});
