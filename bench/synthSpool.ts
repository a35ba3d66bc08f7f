// Recorder spools (recorder/rawlog.h) for many ranks, written without running them: this 2-core
// machine cannot run thousands of MPI ranks, and the recorder's own converter (causal-lens-otf2,
// libotf2) turns a spool into the OTF2 archive a real run would leave.
// - A halo: each iteration every rank computes, posts a receive and a send to each neighbour of a
//   1-D halo, waits for all four in MPI_Waitall, then joins an MPI_Allreduce: the records and
//   regions samples/mpi/halo's traces have. The iterations are in lockstep: a rank's wait ends
//   when its slower neighbour's message is there.
// - A master–worker: samples/mpi/master_worker's calls. Rank 0 hands out tasks of uneven cost, one
//   outstanding per worker, takes results with MPI_ANY_SOURCE and gives the next task to whoever
//   reported; workers receive with MPI_ANY_TAG until a stop message; all end in an MPI_Reduce.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { mulberry32 } from '../server/src/causal/random';
import { EventQueue } from '../server/src/pem/eventQueue';

/** rawlog.h's cl_kind values and the regions' order in CL_REGIONS. */
const CL_ENTER = 1;
const CL_LEAVE = 2;
const CL_SEND = 3;
const CL_ISEND = 4;
const CL_ISEND_COMPLETE = 5;
const CL_RECV = 6;
const CL_IRECV_REQUEST = 7;
const CL_IRECV = 8;
const CL_COLL_BEGIN = 10;
const CL_COLL_END = 11;
const REGION_INIT = 0;
const REGION_FINALIZE = 2;
const REGION_SEND = 3;
const REGION_RECV = 5;
const REGION_ISEND = 7;
const REGION_IRECV = 8;
const REGION_WAITALL = 10;
const REGION_REDUCE = 19;
const REGION_ALLREDUCE = 20;
/** OTF2_COLLECTIVE_OP_REDUCE and _ALLREDUCE. */
const OP_REDUCE = 12;
const OP_ALLREDUCE = 11;
/** rawlog.h's CL_ANY_SOURCE and CL_ANY_TAG: the wildcards a receive was posted with. */
const ANY_SOURCE = 1;
const ANY_TAG = 2;
const RECORD_BYTES = 48;
const NO_RANK = -1;
/** OTF2 events per inner rank and iteration: six calls of Metric, Enter, their records, Metric, Leave. */
export const SYNTH_EVENTS_PER_RANK_ITERATION = 34;
/** OTF2 events per task: the master's receive and send, the worker's receive and send, five each. */
export const SYNTH_EVENTS_PER_TASK = 20;

const CALL_NS = 1000;
/** Each rank on a core of its own, 32 to a node. */
const CORES_PER_NODE = 32;
const HALO_BYTES = 8192;
/** One-way time of a master–worker message, ns. */
const MESSAGE_NS = 5000;

/** One rank's records, appended to its spool file in blocks. */
class SpoolWriter {
  private readonly buffer = new Uint8Array(RECORD_BYTES * 4096);
  private readonly view = new DataView(this.buffer.buffer);
  private used = 0;
  records = 0;
  time: number;
  cpu = 0;
  private readonly fd: number;

  constructor(
    file: string,
    start: number,
  ) {
    this.fd = fs.openSync(file, 'w');
    this.time = start;
  }

  record(kind: number, fields: { region?: number; peer?: number; tag?: number; bytes?: number; request?: number; op?: number; cpu?: boolean } = {}): void {
    if (this.used + RECORD_BYTES > this.buffer.length) this.flush();
    const v = this.view;
    const at = this.used;
    v.setBigUint64(at, BigInt(Math.round(this.time)), true);
    v.setBigUint64(at + 8, BigInt(fields.cpu ? Math.round(this.cpu) : 0), true);
    v.setBigUint64(at + 16, BigInt(fields.bytes ?? 0), true);
    v.setBigUint64(at + 24, BigInt(fields.request ?? 0), true);
    v.setInt32(at + 32, fields.peer ?? NO_RANK, true);
    v.setInt32(at + 36, fields.tag ?? 0, true);
    v.setUint32(at + 40, 0, true);
    v.setUint8(at + 44, kind);
    v.setUint8(at + 45, fields.op ?? 0);
    v.setUint16(at + 46, fields.region ?? 0, true);
    this.used += RECORD_BYTES;
    this.records++;
  }

  /** Computes `ns` of CPU. */
  compute(ns: number): void {
    this.time += ns;
    this.cpu += ns;
  }

  /** An MPI call taking CALL_NS of CPU, waiting until `endAt` when given; its records come at its end. */
  call(region: number, inside: () => void, endAt = 0): void {
    this.record(CL_ENTER, { region, cpu: true });
    this.compute(CALL_NS / 2);
    this.time = Math.max(this.time, endAt);
    inside();
    this.compute(CALL_NS / 2);
    this.record(CL_LEAVE, { region, cpu: true });
  }

  flush(): void {
    fs.writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

/** Writes `dir`/spool for `ranks` ranks and `iterations` halo iterations; returns the records written. */
export function writeHaloSpool(dir: string, ranks: number, iterations: number, seed = 7): number {
  const writers = openSpool(dir, ranks);
  const random = mulberry32(seed);
  let request = 0;
  const sendsAt = new Float64Array(ranks);
  // Per rank, the requests of its receive and send to its left (0) and right (1) neighbour.
  const requests = Array.from({ length: ranks }, () => ({ recv: [0, 0], send: [0, 0] }));
  for (let iteration = 0; iteration < iterations; iteration++) {
    // Computation of 80–120 µs per rank, then the halo's posts.
    for (let r = 0; r < ranks; r++) {
      const w = writers[r];
      w.compute(80_000 + 40_000 * random());
      for (const side of [0, 1]) {
        const peer = side === 0 ? r - 1 : r + 1;
        if (peer < 0 || peer >= ranks) continue;
        const own = requests[r];
        w.call(REGION_IRECV, () => w.record(CL_IRECV_REQUEST, { request: (own.recv[side] = ++request) }));
        w.call(REGION_ISEND, () => w.record(CL_ISEND, { peer, tag: 1 + side, bytes: HALO_BYTES, request: (own.send[side] = ++request) }));
      }
      sendsAt[r] = w.time;
    }
    // The wait ends when both neighbours' messages are there (10 µs after they were sent).
    let allreduceStart = 0;
    for (let r = 0; r < ranks; r++) {
      const w = writers[r];
      const sides = [0, 1].filter((side) => r - 1 + 2 * side >= 0 && r - 1 + 2 * side < ranks);
      const there = Math.max(...sides.map((side) => sendsAt[r - 1 + 2 * side] + 10_000));
      w.call(
        REGION_WAITALL,
        () => {
          for (const side of sides) {
            // The left neighbour sent rightwards (tag 2), the right one leftwards (tag 1).
            w.record(CL_IRECV, { peer: r - 1 + 2 * side, tag: 2 - side, bytes: HALO_BYTES, request: requests[r].recv[side] });
            w.record(CL_ISEND_COMPLETE, { request: requests[r].send[side] });
          }
        },
        there,
      );
      allreduceStart = Math.max(allreduceStart, w.time);
    }
    // The Allreduce ends for all once the last rank entered it, log₂(ranks) rounds later.
    const allreduceEnd = allreduceStart + 5_000 * Math.ceil(Math.log2(Math.max(2, ranks)));
    for (const w of writers) {
      w.call(
        REGION_ALLREDUCE,
        () => {
          w.record(CL_COLL_BEGIN);
          w.record(CL_COLL_END, { op: OP_ALLREDUCE, peer: NO_RANK, bytes: 8, request: 8 });
        },
        allreduceEnd,
      );
    }
  }
  return closeSpool(dir, writers);
}

/**
 * Writes `dir`/spool for two ranks that exchange one message per iteration with receives posted a
 * round ahead (double buffering): each iteration posts the next iteration's receive, sends, then
 * waits for this iteration's receive and send. Tag i + 1 is iteration i's; returns the records written.
 */
export function writePrepostedSpool(dir: string, iterations: number): number {
  const writers = openSpool(dir, 2);
  let request = 0;
  const recvs = writers.map(() => [] as number[]);
  const post = (r: number, iteration: number) => {
    const w = writers[r];
    w.call(REGION_IRECV, () => w.record(CL_IRECV_REQUEST, { request: (recvs[r][iteration] = ++request) }));
  };
  for (const r of [0, 1]) post(r, 0);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const sends = [0, 0];
    const sentAt = [0, 0];
    for (const r of [0, 1]) {
      const w = writers[r];
      w.compute(20_000);
      if (iteration + 1 < iterations) post(r, iteration + 1);
      w.call(REGION_ISEND, () => w.record(CL_ISEND, { peer: 1 - r, tag: iteration + 1, bytes: HALO_BYTES, request: (sends[r] = ++request) }));
      sentAt[r] = w.time;
    }
    for (const r of [0, 1]) {
      const w = writers[r];
      w.call(
        REGION_WAITALL,
        () => {
          w.record(CL_IRECV, { peer: 1 - r, tag: iteration + 1, bytes: HALO_BYTES, request: recvs[r][iteration] });
          w.record(CL_ISEND_COMPLETE, { request: sends[r] });
        },
        sentAt[1 - r] + 10_000,
      );
    }
  }
  return closeSpool(dir, writers);
}

/**
 * Writes `dir`/spool for a master and `ranks` − 1 workers dealt `tasks` tasks of 50–2,050 µs
 * (heavy-tailed, as samples/mpi/master_worker's); returns the records written.
 */
export function writeMasterWorkerSpool(dir: string, ranks: number, tasks: number, seed = 7): number {
  const TAG_TASK = 1;
  const TAG_RESULT = 2;
  const TAG_STOP = 3;
  const writers = openSpool(dir, ranks);
  const random = mulberry32(seed);
  const master = writers[0];
  // Results by the time they reach the master: it receives the earliest first.
  const results = new EventQueue();
  let dealt = 0;
  /** The master sends a task (or the stop) to `worker`, which receives it, and for a task computes and sends its result. */
  const deal = (worker: number) => {
    const tag = dealt < tasks ? TAG_TASK : TAG_STOP;
    if (tag === TAG_TASK) dealt++;
    master.call(REGION_SEND, () => master.record(CL_SEND, { peer: worker, tag, bytes: 8 }));
    const w = writers[worker];
    w.call(REGION_RECV, () => w.record(CL_RECV, { peer: 0, tag, bytes: 8, op: ANY_TAG }), master.time + MESSAGE_NS);
    if (tag === TAG_STOP) return;
    const u = random();
    w.compute(50_000 * (1 + 40 * u * u * u));
    w.call(REGION_SEND, () => w.record(CL_SEND, { peer: 0, tag: TAG_RESULT, bytes: 8 }));
    results.push(w.time + MESSAGE_NS, worker, 0);
  };
  for (let worker = 1; worker < ranks; worker++) deal(worker);
  const result = [0, 0, 0];
  while (results.size > 0) {
    results.pop(result);
    const [arrival, worker] = result;
    master.call(REGION_RECV, () => master.record(CL_RECV, { peer: worker, tag: TAG_RESULT, bytes: 8, op: ANY_SOURCE }), arrival);
    deal(worker);
  }
  // The reduction ends for all once the last rank entered it.
  const reduceEnd = Math.max(...writers.map((w) => w.time)) + 5_000 * Math.ceil(Math.log2(ranks));
  for (const w of writers) {
    w.call(
      REGION_REDUCE,
      () => {
        w.record(CL_COLL_BEGIN);
        w.record(CL_COLL_END, { op: OP_REDUCE, peer: 0, bytes: 8, request: 8 });
      },
      reduceEnd,
    );
  }
  return closeSpool(dir, writers);
}

const SPOOL_START_NS = 1_000_000_000;

/** Opens `dir`/spool with a writer per rank, each past its MPI_Init. */
function openSpool(dir: string, ranks: number): SpoolWriter[] {
  const spool = path.join(dir, 'spool');
  fs.mkdirSync(spool, { recursive: true });
  const writers = Array.from({ length: ranks }, (_, r) => new SpoolWriter(path.join(spool, `rank-${r}.evt`), SPOOL_START_NS));
  for (const w of writers) w.call(REGION_INIT, () => undefined);
  return writers;
}

/** Enters MPI_Finalize on every rank, closes the writers and writes each rank's meta and communicators; returns the records written. */
function closeSpool(dir: string, writers: SpoolWriter[]): number {
  const spool = path.join(dir, 'spool');
  const ranks = writers.length;
  let records = 0;
  writers.forEach((w, r) => {
    w.record(CL_ENTER, { region: REGION_FINALIZE, cpu: true });
    w.close();
    records += w.records;
    const meta = [`rank ${r}`, `size ${ranks}`, `host node${Math.floor(r / CORES_PER_NODE)}`, `cpu_set ${r % CORES_PER_NODE}`, `pid ${1000 + r}`, `start_ns ${SPOOL_START_NS}`, 'realtime_ns 1795797914483138225', 'mode equalized', 'finished 1', `end_ns ${Math.round(w.time)}`, `records ${w.records}`, 'dropped 0', 'suspensions 0', 'preconnected 1'];
    fs.writeFileSync(path.join(spool, `rank-${r}.meta`), `${meta.join('\n')}\n`);
    fs.writeFileSync(path.join(spool, `rank-${r}.comm`), `world ${ranks} ${Array.from({ length: ranks }, (_, i) => i).join(' ')}\n`);
  });
  return records;
}
