// The MPI trace recorder on real runs: the samples/mpi programs under Open MPI's mpirun with the
// recorder preloaded, 2 to 8 ranks on this machine, every archive read back by otf2-print and
// its records counted against what each program says it did. Built into the checkout's
// build/mpi-test by scripts/build-mpi.sh (mpiBuild.ts; make skips what is up to date).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { TraceOptions, recordTrace, recorderEnv } from '../../server/src/mpi/recordTrace';
import { mpirunArgv, runMpi } from '../../server/src/mpi/launch';
import { runTrace } from '../../server/src/cli/trace';
import { UsageError } from '../../server/src/cli/flags';
import { communicatorRanks, openOtf2Archive } from '../../server/src/trace/otf2Archive';
import { cpuTimeMetrics, Otf2RankStream } from '../../server/src/pem/otf2Ops';
import { CLOCK_READS_MIN } from '../../server/src/network/commTable';
import { buildMpi, MPI_BUILD } from './mpiBuild';

const execFileAsync = promisify(execFile);
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-recorder-'));
after(() => fs.rmSync(WORK, { recursive: true, force: true }));

before(() => {
  buildMpi();
});

const sample = (name: string) => path.join(MPI_BUILD, name);

let runs = 0;
async function trace(np: number, program: string, args: string[], extra: Partial<TraceOptions> = {}) {
  const outDir = path.join(WORK, `run-${runs++}-${program}`);
  const summary = await recordTrace({ np, outDir, program: sample(program), args, ...extra });
  return { ...summary, outDir };
}

/** Each rank of `archive` with what its stream found over every one of its events. */
function readEveryEvent(archive: ReturnType<typeof openOtf2Archive>) {
  const comms = communicatorRanks(archive.defs);
  return archive.ranks.map((rank) => {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    while (stream.next());
    stream.close();
    return { rank, facts: stream.facts };
  });
}

async function otf2Print(archive: string, ...flags: string[]): Promise<string> {
  const { stdout } = await execFileAsync('otf2-print', [...flags, archive], { maxBuffer: 1 << 28 });
  return stdout;
}

interface Event {
  type: string;
  location: number;
  time: bigint;
  rest: string;
}

function events(printed: string): Event[] {
  const out: Event[] = [];
  for (const line of printed.split('\n')) {
    const m = /^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$/.exec(line);
    if (m) out.push({ type: m[1], location: Number(m[2]), time: BigInt(m[3]), rest: m[4] });
  }
  return out;
}

type Counts = { send: number; isend: number; recv: number; irecv: number; coll: number };
const RECORD_OF: Record<keyof Counts, string> = {
  send: 'MPI_SEND',
  isend: 'MPI_ISEND',
  recv: 'MPI_RECV',
  irecv: 'MPI_IRECV',
  coll: 'MPI_COLLECTIVE_END',
};

function programCounts(stdout: string): Map<number, Counts> {
  const counts = new Map<number, Counts>();
  for (const m of stdout.matchAll(/^counts rank=(\d+) send=(\d+) isend=(\d+) recv=(\d+) irecv=(\d+) coll=(\d+)$/gm)) {
    counts.set(Number(m[1]), { send: +m[2], isend: +m[3], recv: +m[4], irecv: +m[5], coll: +m[6] });
  }
  return counts;
}

/** Every program count equals the number of its OTF2 record on that rank's location. */
function assertCountsMatch(stdout: string, evs: Event[], np: number) {
  const expected = programCounts(stdout);
  assert.equal(expected.size, np, 'every rank printed its counts');
  for (const [rank, counts] of expected) {
    for (const key of Object.keys(RECORD_OF) as (keyof Counts)[]) {
      const seen = evs.filter((e) => e.location === rank && e.type === RECORD_OF[key]).length;
      assert.equal(seen, counts[key], `rank ${rank}: ${RECORD_OF[key]} records vs the program's ${key} count`);
    }
  }
}

/**
 * Thread CPU time comes as a METRIC right before every ENTER and LEAVE, at the same time; it never
 * decreases and, over a location's events, never grows faster than wall time (one thread), give
 * or take the two clocks' differences: the thread CPU clock comes from the per-CPU scheduler
 * clock, which in this VM can differ between CPUs by tens of µs (seen: 33 µs of CPU in 15 µs of
 * wall after a migration, and once more than 100 µs), so it is compared from the first event to
 * the last, where such offsets do not add up.
 */
function assertCpuMetrics(evs: Event[]) {
  const lastCpu = new Map<number, bigint>();
  const first = new Map<number, { cpu: bigint; wall: bigint }>();
  const byLocation = new Map<number, Event[]>();
  for (const e of evs) byLocation.set(e.location, [...(byLocation.get(e.location) ?? []), e]);
  for (const [location, list] of byLocation) {
    list.forEach((e, i) => {
      if (e.type !== 'ENTER' && e.type !== 'LEAVE') return;
      const metric = list[i - 1];
      assert.equal(metric?.type, 'METRIC', `location ${location}: a METRIC before the ${e.type} at ${e.time}`);
      assert.equal(metric.time, e.time);
      const cpu = BigInt(/CPU_TIME" <\d+>; UINT64; (\d+)/.exec(metric.rest)![1]);
      assert.ok(cpu >= (lastCpu.get(location) ?? 0n), `location ${location}: CPU time goes backwards at ${e.time}`);
      if (!first.has(location)) first.set(location, { cpu, wall: e.time });
      lastCpu.set(location, cpu);
      const grew = cpu - first.get(location)!.cpu;
      const wall = e.time - first.get(location)!.wall;
      assert.ok(grew <= wall + 1_000_000n + wall / 1000n, `location ${location}: CPU time grew ${grew} ns in ${wall} ns of wall time by ${e.time}`);
    });
    const enters = list.filter((e) => e.type === 'ENTER').length;
    assert.equal(enters, list.filter((e) => e.type === 'LEAVE').length, `location ${location}: ENTER and LEAVE pair up`);
  }
}

test('every sample at 2 to 8 ranks: otf2-print reads the archive and the records equal the program counts', async () => {
  const cases: [number, string, string[]][] = [
    [2, 'ring', ['200']],
    [3, 'halo', ['2000', '40']],
    [4, 'master_worker', ['40']],
    [5, 'alltoall_sort', ['5000', '2']],
    [6, 'pipeline', ['30', '256']],
    [8, 'latency', ['200']],
  ];
  for (const [np, program, args] of cases) {
    const run = await trace(np, program, args);
    assert.equal(run.exitCode, 0, `${program} at ${np} ranks ran`);
    assert.equal(run.truncated, undefined);
    assert.equal(run.ranks.length, np);
    const evs = events(await otf2Print(run.archive));
    assertCountsMatch(run.stdout, evs, np);
    assertCpuMetrics(evs);
    const info = await otf2Print(run.archive, '-A');
    assert.match(info, /Property name\s+CAUSAL_LENS::TRUNCATED\nProperty value\s+false/);
    assert.equal((info.match(/causal_lens:cpu_set/g) ?? []).length >= np, true, 'every location has its cpu set');
    assert.match(info, new RegExp(`SYSTEM_TREE_NODE\\s+1\\s+Name: "${os.hostname()}"`));
  }
});

test('MPI_ANY_SOURCE receives record the actual sender, and the wildcards they were posted with', async () => {
  const run = await trace(4, 'master_worker', ['30']);
  const perWorker = new Map([...run.stdout.matchAll(/^results from=(\d+) count=(\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
  const senders = new Map<number, number>();
  const printed = await otf2Print(run.archive);
  for (const e of events(printed)) {
    if (e.location !== 0 || e.type !== 'MPI_RECV') continue;
    const sender = /Sender: (\d+)/.exec(e.rest);
    assert.ok(sender, `a concrete sender, not "${e.rest}"`);
    senders.set(Number(sender[1]), (senders.get(Number(sender[1])) ?? 0) + 1);
  }
  assert.deepEqual(senders, perWorker);
  // The master posts with MPI_ANY_SOURCE (1), the workers with MPI_ANY_TAG (2); sends carry none.
  const wildcards = [...printed.matchAll(/^(MPI_[A-Z]+)\s+(\d+)\s.*\n\s+ADDITIONAL ATTRIBUTES: \("causal_lens:wildcards" <\d+>; UINT8; (\d+)\)/gm)];
  const of = (type: string, location: number, bits: number) => wildcards.filter((m) => m[1] === type && Number(m[2]) === location && Number(m[3]) === bits).length;
  assert.equal(of('MPI_RECV', 0, 1), 30, 'every result the master took');
  for (const worker of [1, 2, 3]) assert.equal(of('MPI_RECV', worker, 2), perWorker.get(worker)! + 1, `worker ${worker}: its tasks and its stop`);
  assert.equal(wildcards.length, 30 + 30 + 3, 'nothing else carries it');
  // Counted per rank in the definitions, for a reader that has not read the events.
  assert.deepEqual(openOtf2Archive(run.archive).ranks.map((r) => r.anySourceReceives), [30, undefined, undefined, undefined]);
});

test("the converter's smallest CPU time of one call per region is the reader's over every event", async () => {
  const run = await trace(2, 'latency', ['300']);
  const archive = openOtf2Archive(run.archive);
  for (const { rank, facts } of readEveryEvent(archive)) {
    const read = new Map([...facts.smallestCallCpu].map(([region, seconds]) => [archive.defs.regions.get(region)!, seconds]));
    assert.ok(rank.smallestCallCpu, `rank ${rank.rank} carries causal_lens:smallest_call_cpu_ns`);
    for (const name of ['MPI_Send', 'MPI_Recv']) {
      assert.ok(read.has(name), `rank ${rank.rank}: ${name} read`);
      assert.ok(Math.abs(rank.smallestCallCpu.get(name)! - read.get(name)!) < 1e-12, `rank ${rank.rank} ${name}: converter ${rank.smallestCallCpu.get(name)}, reader ${read.get(name)}`);
    }
  }
});

test("the recorder times its real reads of the CPU clock: each rank's median and count, one for nearly every wait the reader sees end in one", async () => {
  // Four ranks on one core: every receive waits for three turns, over 5 µs, and ends in a real
  // read; the recorder times those within 50 µs of the rank's last event, nearly all of them.
  const run = await trace(4, 'latency', ['2000'], { program: 'taskset', args: ['-c', '0', sample('latency'), '2000'] });
  const archive = openOtf2Archive(run.archive);
  for (const { rank, facts } of readEveryEvent(archive)) {
    const read = rank.clockRead;
    assert.ok(read, `rank ${rank.rank} carries causal_lens:clock_read_ns`);
    assert.ok(read.count >= 0.8 * facts.gapsAfterRealRead && read.count >= CLOCK_READS_MIN, `rank ${rank.rank}: ${read.count} reads timed, ${facts.gapsAfterRealRead} gaps after one`);
    // A system call: longer than the monotonic clock's read from user space, far shorter than a turn.
    assert.ok(read.seconds > 30e-9 && read.seconds < 20e-6, `rank ${rank.rank}: median read ${read.seconds} s`);
  }
});

test('MPI_Init_thread is recorded as its own region and the run traces as with MPI_Init', async () => {
  const run = await trace(3, 'ring', ['50', '--thread']);
  const evs = events(await otf2Print(run.archive));
  assert.ok(evs.some((e) => e.type === 'ENTER' && e.rest.includes('"MPI_Init_thread"')));
  assert.ok(!evs.some((e) => e.type === 'ENTER' && e.rest.includes('"MPI_Init"')));
  assertCountsMatch(run.stdout, evs, 3);
});

test('a communicator from MPI_Comm_split is defined with its world ranks and used by its collective', async () => {
  const run = await trace(4, 'halo', ['1000', '5']);
  const defs = await otf2Print(run.archive, '-G');
  const groups = [...defs.matchAll(/^GROUP\s+(\d+)\s+.*Type: COMM_GROUP.*?(\d+) Members: (.*)$/gm)].map((m) => m[3].match(/<(\d+)>/g)!.join(' '));
  assert.ok(groups.includes('<0> <2>') && groups.includes('<1> <3>'), `even and odd halves defined: ${groups.join(' | ')}`);
  const halfComms = [...defs.matchAll(/^COMM\s+(\d+)\s+Name: "(?!MPI_COMM_WORLD)/gm)].map((m) => Number(m[1]));
  assert.equal(halfComms.length, 2, 'one communicator per half, shared by its members');
  const evs = events(await otf2Print(run.archive));
  const lastCollective = (rank: number) => evs.filter((e) => e.location === rank && e.type === 'MPI_COLLECTIVE_END').pop()!;
  assert.equal(/Communicator: "[^"]+" <(\d+)>/.exec(lastCollective(0).rest)![1], /Communicator: "[^"]+" <(\d+)>/.exec(lastCollective(2).rest)![1]);
  assert.notEqual(/Communicator: "[^"]+" <(\d+)>/.exec(lastCollective(0).rest)![1], /Communicator: "[^"]+" <(\d+)>/.exec(lastCollective(1).rest)![1]);
});

test('requests completed through MPI_Test, MPI_Waitany and MPI_Waitsome are all recorded as complete', async () => {
  const run = await trace(3, 'pipeline', ['40', '128']);
  const evs = events(await otf2Print(run.archive));
  for (let rank = 0; rank < 3; rank++) {
    const mine = evs.filter((e) => e.location === rank);
    const count = (type: string) => mine.filter((e) => e.type === type).length;
    assert.equal(count('MPI_ISEND_COMPLETE'), count('MPI_ISEND'), `rank ${rank}: every Isend completes`);
    assert.equal(count('MPI_IRECV'), count('MPI_IRECV_REQUEST'), `rank ${rank}: every Irecv completes`);
  }
  const regions = new Set(evs.filter((e) => e.type === 'ENTER').map((e) => /"(MPI_\w+)"/.exec(e.rest)![1]));
  for (const name of ['MPI_Test', 'MPI_Waitany', 'MPI_Waitsome']) assert.ok(regions.has(name), `${name} was called and recorded`);
  assert.ok(evs.some((e) => e.type === 'MPI_REQUEST_TEST'), 'an unsuccessful MPI_Test is recorded as a test');
});

function flushes(evs: Event[]) {
  return evs
    .filter((e) => e.type === 'BUFFER_FLUSH')
    .map((e) => ({ location: e.location, start: e.time, stop: BigInt(/Stop Time: (\d+)/.exec(e.rest)![1]) }));
}

test('equalized flushes: every rank suspends at the same collectives, each with its Z, and clock offsets are measured again', async () => {
  const run = await trace(4, 'halo', ['500', '300'], { flushThresholdBytes: 40_000 });
  assert.equal(run.exitCode, 0);
  const printed = await otf2Print(run.archive);
  const found = flushes(events(printed));
  const perRank = [0, 1, 2, 3].map((r) => found.filter((f) => f.location === r).length);
  assert.ok(perRank[0] >= 2, `several flushes with a 40 kB threshold, got ${perRank[0]}`);
  assert.deepEqual(perRank, [perRank[0], perRank[0], perRank[0], perRank[0]], 'every rank flushes at the same collectives');
  const zs = [...printed.matchAll(/"causal_lens:z_ns" <\d+>; UINT64; (\d+)/g)].map((m) => BigInt(m[1]));
  assert.equal(zs.length, found.length, 'every suspension carries its Z');
  const offsets = await otf2Print(run.archive, '-C');
  const perLocation = [0, 1, 2, 3].map((r) => (offsets.match(new RegExp(`^CLOCK_OFFSET\\s+${r}\\s`, 'gm')) ?? []).length);
  assert.deepEqual(perLocation, perRank.map((n) => n + 1), 'one clock offset at the start and one per suspension');
  assertCountsMatch(run.stdout, events(printed), 4);
});

test('the independent-flush ablation records each rank\'s own suspensions', async () => {
  const run = await trace(3, 'halo', ['500', '200'], { flushThresholdBytes: 40_000, flushMode: 'independent' });
  const found = flushes(events(await otf2Print(run.archive)));
  assert.ok(found.length >= 3);
  assert.ok(found.every((f) => f.stop >= f.start));
});

test('a run that aborts mid-way leaves an archive readable up to the last flush, marked truncated', async () => {
  const run = await trace(4, 'ring', ['600', '--abort-after', '400'], { flushThresholdBytes: 30_000 });
  assert.notEqual(run.exitCode, 0);
  assert.match(run.truncated ?? '', /did not reach MPI_Finalize/);
  const info = await otf2Print(run.archive, '-A');
  assert.match(info, /Property name\s+CAUSAL_LENS::TRUNCATED\nProperty value\s+true/);
  assert.match(info, /causal_lens:truncated" <\d+>, Type: STRING, Value: "true"/);
  const evs = events(await otf2Print(run.archive));
  const sends = evs.filter((e) => e.type === 'MPI_SEND').length;
  assert.ok(sends > 0 && sends < 4 * 600, `the flushed part is there and the rest is not (${sends} sends)`);
  assert.ok(flushes(evs).length > 0);
});

test('causal-lens trace prints the archive and a summary on stdout, progress on stderr', async () => {
  let out = '';
  let err = '';
  const dir = path.join(WORK, 'cli');
  const code = await runTrace(['--np', '2', '--out', dir, '--', sample('ring'), '20'], (t) => (out += t), (t) => (err += t));
  assert.equal(code, 0);
  assert.match(out, new RegExp(`^archive: ${dir}/traces.otf2$`, 'm'));
  assert.match(out, /^ranks: 2 on /m);
  assert.match(out, /^truncated: no$/m);
  assert.match(out, /^preconnected: yes$/m);
  assert.match(err, /counts rank=0/);
  await assert.rejects(runTrace(['--np', '2'], () => undefined, () => undefined), UsageError);
  await assert.rejects(runTrace(['--flush-mode', 'sometimes', '--', 'x'], () => undefined, () => undefined), UsageError);
});

test('--pin: each rank pins itself to one of its cores, in blocks over the ranks, and the trace says where; without it they share them; an unknown value is said', async () => {
  const allowed = [...Array(os.cpus().length).keys()];
  const blocks = (np: number) => Array.from({ length: np }, (_, rank) => String(allowed[Math.floor((rank * allowed.length) / np)]));
  const cpuSets = async (pin: boolean) => {
    const dir = path.join(WORK, pin ? 'pinned' : 'unpinned');
    const code = await runTrace(['--np', '4', '--out', dir, ...(pin ? ['--pin'] : []), '--', sample('ring'), '20'], () => undefined, () => undefined);
    assert.equal(code, 0);
    return openOtf2Archive(path.join(dir, 'traces.otf2')).ranks.map((r) => r.cpuSet);
  };
  assert.deepEqual(await cpuSets(true), blocks(4));
  const shared = await cpuSets(false);
  assert.ok(shared.every((cpuSet) => cpuSet === shared[0]), `one CPU set for all: ${shared.join(' ')}`);
  if (allowed.length > 1) assert.notDeepEqual(shared, blocks(4));
  // A value the recorder does not know is said, not taken for either.
  const outDir = path.join(WORK, 'pin-yes');
  const env = { ...recorderEnv({ np: 2, outDir, program: sample('ring'), args: ['20'] }), CAUSAL_LENS_PIN: 'yes' };
  let output = '';
  const result = await runMpi(mpirunArgv({ np: 2, program: sample('ring'), args: ['20'], env }), (text) => (output += text));
  assert.equal(result.code, 0);
  assert.match(output, /causal-lens recorder: CAUSAL_LENS_PIN="yes" is neither 1 nor 0; the ranks are not pinned/);
});

test('every pair of ranks exchanges a message in the start-up and the trace says so; CAUSAL_LENS_PRECONNECT=0 turns it off; an unknown value is said', async () => {
  const preconnected = async (value: string | undefined, name: string) => {
    const outDir = path.join(WORK, name);
    const env = { ...recorderEnv({ np: 3, outDir, program: sample('ring'), args: ['20'] }), ...(value === undefined ? {} : { CAUSAL_LENS_PRECONNECT: value }) };
    let output = '';
    const result = await runMpi(mpirunArgv({ np: 3, program: sample('ring'), args: ['20'], env }), (text) => (output += text));
    assert.equal(result.code, 0, output);
    return { flags: openOtf2Archive(path.join(outDir, 'traces.otf2')).ranks.map((r) => r.preconnected), output };
  };
  assert.deepEqual((await preconnected(undefined, 'preconnect-default')).flags, [true, true, true]);
  assert.deepEqual((await preconnected('0', 'preconnect-off')).flags, [false, false, false]);
  const unknown = await preconnected('yes', 'preconnect-yes');
  assert.deepEqual(unknown.flags, [true, true, true]);
  assert.match(unknown.output, /causal-lens recorder: CAUSAL_LENS_PRECONNECT="yes" is neither 1 nor 0; preconnecting \(3 ranks, limit 64\)/);
});

test('a full disk marks the trace truncated and does not stop the program', async (t) => {
  const mount = path.join(WORK, 'full-disk');
  fs.mkdirSync(mount);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160k', 'tmpfs', mount], { stdio: 'pipe' });
  } catch {
    t.skip('cannot mount a small tmpfs here (needs root)');
    return;
  }
  try {
    const run = await trace(2, 'halo', ['500', '1500'], { outDir: path.join(mount, 'trace'), flushThresholdBytes: 20_000 });
    assert.equal(run.exitCode, 0, 'the program ran to its end');
    assert.equal(programCounts(run.stdout).size, 2);
    assert.match(run.truncated ?? '', /could not write its spool: No space left on device/);
    const copy = path.join(WORK, 'full-disk-copy');
    fs.cpSync(path.join(mount, 'trace', 'spool'), path.join(copy, 'spool'), { recursive: true });
    await execFileAsync(sample('causal-lens-otf2'), [copy]);
    const info = await otf2Print(path.join(copy, 'traces.otf2'), '-A');
    assert.match(info, /Property name\s+CAUSAL_LENS::TRUNCATED_REASON\nProperty value\s+.*No space left on device/);
  } finally {
    execFileSync('umount', [mount]);
  }
});
