// From an OTF2 rank's events to PEM operations (ops.ts). An MPI call is an Enter/Leave pair of a
// region named MPI_*; the records inside it say what it did:
//   MpiSend → Send, MpiRecv → Recv, MpiIsend → Isend, MpiIrecvRequest → Irecv,
//   MpiIsendComplete / MpiIrecv → a Wait on those requests (Score-P: Irecv request at the post,
//   the receive itself in the Waitall), MpiCollectiveBegin/End → Collective;
//   a call with a send and a receive (MPI_Sendrecv) → Isend, Recv, Wait.
// The computation before an operation is the rank's thread CPU time between the end of the
// previous call and this call's Enter (the recorder's CPU_TIME metric, written right before
// every Enter and Leave); without that metric (Score-P traces), the elapsed time. The elapsed
// time beyond the CPU time × the ranks per core of the rank's traced node is time off the core
// (blocking I/O, sleep: PemOp.offCpuSeconds), from OFF_CPU_MIN_SECONDS per gap. Calls without
// MPI records add their own duration to the computation; a call with one is charged its kind's
// work (below; a blocking send's before its message, any other call's after it), as its CPU
// beyond that is communication the operation models (an Irecv whose message was already there
// copies it in, measured: 33 µs of a 512 KiB shared-memory receive, and so does the MPI_Test
// that completes a receive).
// Perturbation: recorded suspensions (BufferFlush, time..stopTime; the recorder busy-waits, so
// they are CPU time as well) are removed; a per-call tracing cost can be removed from the
// computations, and the tracer's own work inside blocking calls (which delays the message and
// what follows) can be charged as CPU, so that a replay reproduces the traced run: a call's
// smallest CPU time of its kind is the work it does when nothing is to wait for or copy.
// Polling loops: when MPI_Test-family calls fail n > 0 times before one completes a request, the
// computation between the polls is waiting, not work (its amount depends on when the message
// came): the wait is a wait like any other (a failed poll yields the core, mpi_yield_when_idle),
// the computation up to the first poll stays, and one poll interval (their mean) follows the
// completion, the iteration that sees it. The wait carries that interval (PemOp.pollInterval):
// while it lasts the rank still takes its core for a poll at each of its turns (engine.ts).
// A posted Irecv needs its source before it can be matched, and OTF2 only says at the wait:
// the stream reads ahead until then (the only operations held in memory).
// OTF2's receive records hold what matched, not what was posted: the recorder adds the
// attribute WILDCARDS_ATTRIBUTE to a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG.

import { Otf2Archive, openRankEvents, RankLocation } from '../trace/otf2Archive';
import { Otf2Problem } from '../trace/otf2Definitions';
import * as ev from '../trace/otf2Events';
import { OpKind, PemOp, RankStream, RESUMED_WAIT_SECONDS } from './ops';
import { IdTable } from './idTable';
import { DOUBLE_MINUS_ONE, DOUBLE_ZERO, doubleArray, objectArray } from '../doubleFields';

export interface TraceOpsOptions {
  /** Tracing cost subtracted per MPI call, seconds. */
  eventCostSeconds?: number;
  /**
   * CPU seconds charged to a blocking call, by region: the work the call does even when it
   * waits for nothing (the MPI library's, e.g. TCP system calls, and the tracer's).
   */
  inCallCost?: ReadonlyMap<number, number>;
  /** Smallest CPU time of one call, by region (the first pass): a receiving call's CPU above it is its copy. */
  smallestCallCpu?: ReadonlyMap<number, number>;
  /** By region: CPU a resumption after a real wait costs a receive or wait of that kind (PemOp.resumeSeconds). */
  resumeCost?: ReadonlyMap<number, number>;
  /** Communication a call's operation cannot take less than (a collective's rounds); not work. */
  unavoidableSeconds?: (op: PemOp) => number;
  /** Bytes of each event file held in memory. */
  windowBytes?: number;
  /** Collect RankTraceFacts.shortGapsAfterRead. */
  sampleGaps?: boolean;
  /** Tracing cost removed, beyond eventCostSeconds, from a gap after a real read of the CPU clock. */
  realReadCostSeconds?: number;
  /**
   * Ranks per core of this rank's traced node (1 when it had a core to itself): a computation's
   * elapsed time beyond its CPU time × this is time off the core (PemOp.offCpuSeconds).
   */
  ranksPerCore?: number;
}

/**
 * Time off the core below this, per gap between calls, is the machine's noise (interrupts, the
 * host of a VM), not the program's: on this VM such bits sum to 0.1–0.3 ms per rank over a run,
 * while a blocking write of the programs' closing output takes 0.2–1.5 ms.
 */
const OFF_CPU_MIN_SECONDS = 50e-6;

/** The recorder's attribute on a receive posted with wildcards: bit 0 MPI_ANY_SOURCE, bit 1 MPI_ANY_TAG. */
const WILDCARDS_ATTRIBUTE = 'causal_lens:wildcards';
const ANY_SOURCE_BIT = 1;
const ANY_TAG_BIT = 2;

export interface RankTraceFacts {
  /**
   * First and last event time, seconds from the trace's earliest event; the last is the entry
   * into MPI_Finalize when the rank reached it (its work ends there, see Otf2RankStream).
   */
  firstSeconds: number;
  lastSeconds: number;
  suspendedSeconds: number;
  /**
   * Smallest CPU time inside one call less its unavoidable communication, by region, over calls
   * with a positive CPU time (empty without the CPU_TIME metric): a waiting rank alone on its
   * core spins, so a collective's CPU includes its rounds.
   */
  smallestCallCpu: Map<number, number>;
  /** With TraceOpsOptions.unavoidableSeconds: regions whose calls were collectives (their smallest above is less their rounds). */
  collectiveRegions: Set<number>;
  /**
   * With TraceOpsOptions.unavoidableSeconds: each collective call's CPU less its rounds, and its
   * communicator's size, by region, for collectiveWork: the first CALLS_KEPT_PER_REGION of each
   * region, so that the first pass's memory stays small on many ranks (10,000 ranks: 2.6 M
   * calls, of which about 256 are a last member's, as many as with 8).
   */
  collectiveCalls: Map<number, { work: number[]; members: number[] }>;
  /**
   * With TraceOpsOptions.unavoidableSeconds: the CPU of the receives and waits that resumed after
   * a real wait off their core (isResumedCall), by region, the first CALLS_KEPT_PER_REGION of each.
   */
  resumedCallCpu: Map<number, number[]>;
  /**
   * With TraceOpsOptions.sampleGaps: CPU seconds of short gaps between calls (under
   * REAL_READ_AFTER_SECONDS of wall time), split by whether the recorder really read the CPU
   * clock at the call before (recorder/README.md: only after 5 µs or more of wall time), first
   * 5,000 of each.
   */
  shortGapsAfterRead?: { real: number[]; estimated: number[] };
  /** Receives read so far that were posted with MPI_ANY_SOURCE. */
  anySourceReceives: number;
  /** With TraceOpsOptions.sampleGaps: gaps between calls read so far that follow a real read of the CPU clock. */
  gapsAfterRealRead: number;
}

/**
 * The recorder reads the thread CPU clock (a system call) only after this much wall time since its
 * last value (and after 100 µs of values advanced by wall time, which is rare between MPI calls
 * and not told apart here).
 */
const REAL_READ_AFTER_SECONDS = 5e-6;
const GAP_SAMPLES = 5_000;

/** An MPI_* region, with what the conversion needs of it at every call. */
interface MpiRegion {
  id: number;
  /** MPI_Test family: a call that fails polls. */
  poll: boolean;
  /** MPI_Waitany/Waitsome/Testany/Testsome: returns once one of its requests is done. */
  any: boolean;
  finalize: boolean;
  /** TraceOpsOptions.inCallCost of the region (0 when absent). */
  inCallCost: number;
  /** TraceOpsOptions.smallestCallCpu of the region. */
  smallestCallCpu: number | undefined;
  /** The smallest seen in this stream (RankTraceFacts.smallestCallCpu). */
  smallestSeen: number;
  /** TraceOpsOptions.resumeCost of the region (0 when absent). */
  resumeCost: number;
}

const NO_MEMBERS: readonly number[] = [];

/** Otf2RankStream.ready, when it never empties: what it holds moves to its front once this many places before it were handed out. */
const READY_COMPACT_AFTER = 1024;

const NOT_MPI: MpiRegion = { id: -1, poll: false, any: false, finalize: false, inCallCost: DOUBLE_ZERO, smallestCallCpu: undefined, smallestSeen: Infinity, resumeCost: DOUBLE_ZERO };

/** The CPU_TIME metric classes of the archive (metric class ids whose member is named CPU_TIME). */
export function cpuTimeMetrics(archive: Otf2Archive): Set<number> {
  const ids = new Set<number>();
  for (const [id, members] of archive.defs.metricClasses) {
    if (members.some((m) => archive.defs.metricMembers.get(m)?.name.toUpperCase() === 'CPU_TIME')) ids.add(id);
  }
  return ids;
}

/** Calls of one region kept per rank by the first pass (RankTraceFacts.collectiveCalls, resumedCallCpu). */
export const CALLS_KEPT_PER_REGION = 256;

/**
 * A call that waited off its core and resumed: RESUMED_WAIT_SECONDS or more of wall time, under a tenth of it
 * on the CPU. Its CPU is then what taking the core back costs (the switch, the poll, reading
 * every message that came meanwhile, with the caches the other ranks left), not polling: a rank
 * that polls through a wait with its core free burns half of it or more (mpi_yield_when_idle).
 */
export function isResumedCall(wallSeconds: number, cpuSeconds: number): boolean {
  return wallSeconds >= RESUMED_WAIT_SECONDS && cpuSeconds > 0 && cpuSeconds < 0.1 * wallSeconds;
}

/** A rank's operations, read from its event file as the engine asks for them. */
export class Otf2RankStream implements RankStream {
  readonly facts: RankTraceFacts = { firstSeconds: NaN, lastSeconds: NaN, suspendedSeconds: DOUBLE_ZERO, smallestCallCpu: new Map(), collectiveRegions: new Set(), collectiveCalls: new Map(), resumedCallCpu: new Map(), anySourceReceives: 0, gapsAfterRealRead: 0 };
  /** Skipped or unusable records, counted by reason. */
  readonly skipped = new Map<string, number>();
  private readonly reader: ev.Otf2EventReader;
  /**
   * Operations read and not handed out: ready[readyHead…readyEnd). Its places are used again once
   * it is empty, as it is after most calls: appending to an array whose front had been cut off went
   * through V8's runtime (the whole pipeline −1.8% in instructions).
   */
  private readonly ready = objectArray<PemOp | undefined>();
  private readyHead = 0;
  private readyEnd = 0;
  private readonly openIrecvs = new IdTable<PemOp>();
  private readonly secondsPerTick: number;
  private readonly ranksPerCore: number;
  /**
   * TraceOpsOptions read at every operation or call, kept here: the options objects of a first
   * pass and of a replay differ in shape, so reading them where they are used was a polymorphic load.
   */
  private readonly eventCost: number;
  private readonly realReadCost: number;
  private readonly unavoidable: ((op: PemOp) => number) | undefined;
  private ended = false;
  private carry = DOUBLE_ZERO;
  /** Time off the core since the last operation (PemOp.offCpuSeconds). */
  private offCpu = DOUBLE_ZERO;
  private lastWall = NaN;
  private lastCpu = NaN;
  private cpu = NaN;
  private suspended = DOUBLE_ZERO;
  private depth = 0;
  private regionStartWall = DOUBLE_ZERO;
  private regionStartCpu = NaN;
  /** The current call's operations: the first `regionOps` (reused from call to call). */
  private readonly region: PemOp[] = [];
  private regionOps = 0;
  /** The current call has a blocking send and a blocking receive (MPI_Sendrecv). */
  private regionSends = false;
  private regionRecvs = false;
  /**
   * The requests the current call completed: the first `regionCompletionCount`, and of them the
   * sends' (the first `regionSendCount`). Reused from call to call (a wait takes a copy): a new
   * list per call grew through V8's runtime at its first element.
   */
  private readonly regionCompletions: number[] = [];
  private regionCompletionCount = 0;
  private readonly regionSendCompletions: number[] = [];
  private regionSendCount = 0;
  /** Send completions an MPI_Waitsome-like call of the trace took that the replay leaves to the rank's next wait. */
  private carriedSends: number[] = [];
  /** The call has MPI records: its communication is modelled, so it costs its kind's work. */
  private regionCommunicates = false;
  /** The receives the current call posted (MPI_Irecv) or completed by polling (MPI_Test family): its CPU above the smallest copied them in. */
  private readonly regionReceives: PemOp[] = [];
  private regionReceiveCount = 0;
  private syntheticRequest = -2;
  /** The communicator of the last message record, and its members (world ranks). */
  private lastComm = DOUBLE_MINUS_ONE;
  private lastMembers: readonly number[] = NO_MEMBERS;
  /**
   * The MPI_* regions, indexed by region id: one lookup per Enter of any region (a Map's took
   * 0.7% of a whole prediction's time; ids are the definitions' dense numbering).
   */
  private readonly mpiRegions: MpiRegion[] = [];
  /** The rank entered MPI_Finalize: what follows is read (to the end of the file) but not used. */
  private finalizing = false;
  /** The MPI call being read. */
  private call: MpiRegion = NOT_MPI;
  /** Carry and time off the core after the first failed poll since the last operation, and the failed polls counted. */
  private firstPollCarry = DOUBLE_ZERO;
  private firstPollOffCpu = DOUBLE_ZERO;
  private failedPolls = 0;
  private lastMetric = DOUBLE_MINUS_ONE;
  private lastMetricIsCpu = false;
  /** Whether real reads of the CPU clock are told apart (sampled, or their cost removed): not needed otherwise. */
  private readonly tracksReads: boolean;
  /** When the last CPU value was written; whether it was really read; whether the gap now open began with a real read. */
  private lastCpuTime = NaN;
  private cpuReadReal = false;
  private gapAfterRealRead = false;
  /** Gaps after a real read since the last operation. */
  private realReadGaps = 0;
  /** The archive's id of WILDCARDS_ATTRIBUTE, or −1. */
  private readonly wildcardsAttribute: number;

  constructor(
    private readonly archive: Otf2Archive,
    readonly rank: RankLocation,
    private readonly communicators: Map<number, readonly number[]>,
    private readonly cpuMetrics: Set<number>,
    private readonly originTicks: number,
    options: TraceOpsOptions = {},
  ) {
    this.reader = openRankEvents(archive, rank, options.windowBytes);
    this.ranksPerCore = options.ranksPerCore ?? 1;
    this.eventCost = options.eventCostSeconds ?? 0;
    this.realReadCost = options.realReadCostSeconds ?? 0;
    this.unavoidable = options.unavoidableSeconds;
    if (options.sampleGaps) this.facts.shortGapsAfterRead = { real: [], estimated: [] };
    this.tracksReads = options.sampleGaps === true || (options.realReadCostSeconds ?? 0) > 0;
    this.secondsPerTick = 1 / archive.defs.clock.ticksPerSecond;
    this.wildcardsAttribute = [...archive.defs.attributes].find(([, attribute]) => attribute.name === WILDCARDS_ATTRIBUTE)?.[0] ?? -1;
    for (const [id, name] of archive.defs.regions) {
      if (!name.startsWith('MPI_')) continue;
      this.mpiRegions[id] = {
        id,
        poll: /^MPI_Test(any|some|all)?$/.test(name),
        any: /^MPI_(Wait|Test)(any|some)$/.test(name),
        finalize: name === 'MPI_Finalize',
        inCallCost: options.inCallCost?.get(id) ?? DOUBLE_ZERO,
        smallestCallCpu: options.smallestCallCpu?.get(id),
        smallestSeen: Infinity,
        resumeCost: options.resumeCost?.get(id) ?? DOUBLE_ZERO,
      };
    }
  }

  get fraction(): number {
    return this.reader.fraction;
  }

  get problems(): Otf2Problem[] {
    return this.reader.problems;
  }

  next(): PemOp | undefined {
    for (;;) {
      if (this.readyHead < this.readyEnd) {
        const head = this.ready[this.readyHead]!;
        // A posted receive is held until its completion names the source, and until the call
        // that completed it ended (a completing poll measures its copy).
        if (!(head.kind === OpKind.Irecv && (this.openIrecvs.get(head.request) === head || this.depth > 0)) || this.ended) {
          this.ready[this.readyHead++] = undefined;
          if (this.readyHead === this.readyEnd) {
            this.readyHead = 0;
            this.readyEnd = 0;
          } else if (this.readyHead > READY_COMPACT_AFTER && this.readyHead * 2 > this.readyEnd) {
            // A rank with a receive always posted ahead never empties it: what is left moves to the front.
            this.ready.copyWithin(0, this.readyHead, this.readyEnd);
            this.ready.fill(undefined, this.readyEnd - this.readyHead, this.readyEnd);
            this.readyEnd -= this.readyHead;
            this.readyHead = 0;
          }
          return head;
        }
      } else if (this.ended) {
        return undefined;
      }
      this.readMore();
    }
  }

  close(): void {
    this.reader.close();
  }

  private count(reason: string): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
  }

  private emit(op: PemOp): void {
    op.compute = Math.max(0, this.carry - this.eventCost - this.realReadGaps * this.realReadCost);
    this.realReadGaps = 0;
    if (this.offCpu > 0) {
      op.offCpuSeconds = this.offCpu;
      this.offCpu = 0;
    }
    this.carry = 0;
    this.failedPolls = 0;
    this.ready[this.readyEnd++] = op;
  }

  private worldRank(comm: number, rankInComm: number): number {
    if (rankInComm < 0) return -1;
    // A rank's messages mostly stay on one communicator: its members are looked up when it changes.
    if (comm !== this.lastComm) {
      this.lastComm = comm;
      this.lastMembers = this.communicators.get(comm) ?? NO_MEMBERS;
    }
    const members = this.lastMembers;
    if (members.length === 0) return this.rank.rank;
    const world = members[rankInComm];
    if (world !== undefined) return world;
    this.count('a message or collective root naming a rank outside its communicator (taken as no rank)');
    return -1;
  }

  /**
   * Elapsed or CPU seconds from the last mark to now, less suspensions; elapsed time beyond what
   * the CPU time and the core's sharing explain is added to the time off the core.
   */
  private gapSeconds(wall: number): number {
    const suspended = this.suspended * this.secondsPerTick;
    const elapsed = (wall - this.lastWall) * this.secondsPerTick - suspended;
    if (Number.isNaN(this.cpu) || Number.isNaN(this.lastCpu)) return Math.max(0, elapsed);
    const cpu = Math.max(0, (this.cpu - this.lastCpu) * 1e-9 - suspended);
    const off = elapsed - cpu * this.ranksPerCore;
    if (off >= OFF_CPU_MIN_SECONDS) this.offCpu += off;
    if (this.gapAfterRealRead) {
      this.realReadGaps++;
      this.facts.gapsAfterRealRead++;
    }
    const samples = this.facts.shortGapsAfterRead;
    if (samples && elapsed < REAL_READ_AFTER_SECONDS) {
      const into = this.gapAfterRealRead ? samples.real : samples.estimated;
      if (into.length < GAP_SAMPLES) into.push(cpu);
    }
    return cpu;
  }

  private readMore(): void {
    const r = this.reader;
    if (!r.next()) {
      this.finish();
      return;
    }
    if (this.finalizing) return;
    const time = r.time;
    if (Number.isNaN(this.lastWall)) {
      this.lastWall = time;
      this.facts.firstSeconds = (time - this.originTicks) * this.secondsPerTick;
    }
    this.facts.lastSeconds = (time - this.originTicks) * this.secondsPerTick;
    switch (r.type) {
      case ev.EventRecord.Metric:
        // A trace writes one metric class before every Enter and Leave: remember the last answer.
        if (r.metric !== this.lastMetric) {
          this.lastMetric = r.metric;
          this.lastMetricIsCpu = this.cpuMetrics.has(r.metric);
        }
        if (this.lastMetricIsCpu && r.metricValues.length > 0) {
          this.cpu = r.metricValues[0];
          if (Number.isNaN(this.lastCpu)) this.lastCpu = this.cpu;
          if (this.tracksReads) {
            this.cpuReadReal = !((time - this.lastCpuTime) * this.secondsPerTick < REAL_READ_AFTER_SECONDS);
            this.lastCpuTime = time;
          }
        }
        return;
      case ev.EventRecord.Enter: {
        if (this.depth++ > 0) return;
        const call = this.mpiRegions[r.region];
        if (!call) {
          this.depth = 0;
          return;
        }
        this.call = call;
        this.carry += this.gapSeconds(time);
        this.suspended = 0;
        // A rank's work ends where it enters MPI_Finalize, as the programs' own timings end before
        // it: the call is the recorder's closing barrier and spool writes (with 8 ranks on a core
        // the ranks' exits from it lay 6 ms apart, 18% of the traced latency run) and MPI's teardown.
        if (call.finalize) {
          this.finalizing = true;
          this.depth = 0;
          return;
        }
        this.regionStartWall = time;
        this.regionStartCpu = this.cpu;
        // Counts, not lengths: setting an array's length goes through V8's runtime.
        this.regionCompletionCount = 0;
        this.regionSendCount = 0;
        this.regionCommunicates = false;
        this.regionReceiveCount = 0;
        return;
      }
      case ev.EventRecord.Leave:
        if (this.depth === 0) return;
        if (--this.depth > 0) return;
        this.closeRegion(time);
        return;
      case ev.EventRecord.BufferFlush:
        if (this.depth === 0) {
          this.suspended += Math.max(0, r.stopTime - time);
          this.facts.suspendedSeconds += Math.max(0, r.stopTime - time) * this.secondsPerTick;
        }
        return;
      default:
        if (this.depth === 0) {
          this.count('MPI records outside an MPI_* region');
          return;
        }
        this.regionRecord(r);
    }
  }

  private regionRecord(r: ev.Otf2EventReader): void {
    switch (r.type) {
      case ev.EventRecord.MpiSend:
      case ev.EventRecord.MpiIsend: {
        const op = this.messageFields(r, new PemOp(r.type === ev.EventRecord.MpiSend ? OpKind.Send : OpKind.Isend));
        op.request = r.type === ev.EventRecord.MpiIsend ? r.request : -1;
        this.regionCommunicates = true;
        if (op.kind === OpKind.Send) this.regionSends = true;
        this.addRegionOp(op);
        return;
      }
      case ev.EventRecord.MpiRecv:
        this.blockingRecv(r);
        this.regionCommunicates = true;
        return;
      case ev.EventRecord.MpiIrecvRequest: {
        const op = new PemOp(OpKind.Irecv);
        op.request = r.request;
        this.openIrecvs.set(r.request, op);
        this.regionCommunicates = true;
        this.addRegionOp(op);
        this.regionReceives[this.regionReceiveCount++] = op;
        return;
      }
      case ev.EventRecord.MpiIrecv: {
        const posted = this.openIrecvs.get(r.request);
        if (posted) {
          this.openIrecvs.delete(r.request);
          this.receiveFields(r, posted);
          this.regionCompletions[this.regionCompletionCount++] = r.request;
          // A poll that completes a receive does not wait either: it copies the message in.
          if (this.call.poll) this.regionReceives[this.regionReceiveCount++] = posted;
        } else {
          // A receive completed without a recorded post: treat it as a blocking receive.
          this.blockingRecv(r);
          this.count('MpiIrecv without its MpiIrecvRequest (taken as a blocking receive)');
        }
        this.regionCommunicates = true;
        return;
      }
      case ev.EventRecord.MpiIsendComplete:
        this.regionCompletions[this.regionCompletionCount++] = r.request;
        this.regionSendCompletions[this.regionSendCount++] = r.request;
        this.regionCommunicates = true;
        return;
      case ev.EventRecord.MpiRequestCancelled: {
        const posted = this.openIrecvs.get(r.request);
        if (posted) {
          this.openIrecvs.delete(r.request);
          posted.peer = -1;
        }
        return;
      }
      case ev.EventRecord.MpiCollectiveEnd: {
        const op = new PemOp(OpKind.Collective);
        op.comm = r.comm;
        op.collective = r.collectiveOp;
        op.root = r.root === -1 ? -1 : this.worldRank(r.comm, r.root);
        op.sizeSent = r.sizeSent;
        op.sizeReceived = r.sizeReceived;
        this.regionCommunicates = true;
        this.addRegionOp(op);
        return;
      }
      default:
        return;
    }
  }

  /** `op` with what a send or receive record says of its message: partner (world rank), communicator, tag and size. */
  private messageFields(r: ev.Otf2EventReader, op: PemOp): PemOp {
    op.peer = this.worldRank(r.comm, r.peer);
    op.comm = r.comm;
    op.tag = r.tag;
    op.bytes = r.length;
    return op;
  }

  /** What a receive record says: its message, and the wildcards it was posted with. */
  private receiveFields(r: ev.Otf2EventReader, op: PemOp): void {
    this.messageFields(r, op);
    this.markWildcards(r, op);
  }

  /** The call's blocking receive of the record's message. */
  private blockingRecv(r: ev.Otf2EventReader): void {
    const op = new PemOp(OpKind.Recv);
    this.receiveFields(r, op);
    this.regionRecvs = true;
    this.addRegionOp(op);
  }

  /** Sets the receive's wildcards from the record's attribute list. */
  private markWildcards(r: ev.Otf2EventReader, op: PemOp): void {
    if (this.wildcardsAttribute < 0) return;
    for (const a of r.attributes) {
      if (a.attribute !== this.wildcardsAttribute) continue;
      if (a.value & ANY_SOURCE_BIT) {
        op.anySource = true;
        this.facts.anySourceReceives++;
      }
      if (a.value & ANY_TAG_BIT) op.anyTag = true;
    }
  }

  private addRegionOp(op: PemOp): void {
    this.region[this.regionOps++] = op;
  }

  private closeRegion(time: number): void {
    const ops = this.region;
    const count = this.regionOps;
    const sendrecv = this.regionSends && this.regionRecvs;
    // A blocking send's work (the tracer's Enter record, the library's posting) is done before its
    // message leaves: on the latency program's critical path, 0.07 of 0.5 µs per message; a
    // receiving call's work follows its message.
    const sendOnly = this.regionSends && !this.regionRecvs && this.regionCompletionCount === 0;
    const call = this.call;
    if (sendOnly) this.carry += call.inCallCost;
    for (let i = 0; i < count; i++) {
      const op = ops[i];
      if (sendrecv && op.kind === OpKind.Send) {
        op.kind = OpKind.Isend;
        op.request = this.syntheticRequest--;
        this.regionCompletions[this.regionCompletionCount++] = op.request;
      }
      if (op.kind === OpKind.Recv && call.resumeCost > 0) op.resumeSeconds = call.resumeCost;
      this.emit(op);
    }
    if (this.regionCompletionCount > 0) {
      const wait = new PemOp(OpKind.Wait);
      wait.requests = this.waitedRequests(call);
      if (call.resumeCost > 0) wait.resumeSeconds = call.resumeCost;
      const polls = call.poll ? this.failedPolls : 0;
      if (polls > 0) {
        const interval = (this.carry - this.firstPollCarry) / polls;
        this.carry = this.firstPollCarry;
        // Time off the core between the polls was waiting, too.
        this.offCpu = this.firstPollOffCpu;
        wait.pollInterval = interval;
        wait.polledSeconds = interval * polls;
        this.emit(wait);
        this.carry = interval;
      } else {
        // Its first poll found it done: a poll all the same (PemOp.pollInterval).
        if (call.poll) wait.pollInterval = 0;
        this.emit(wait);
      }
    }
    const cpuSeconds = !Number.isNaN(this.cpu) && !Number.isNaN(this.regionStartCpu) ? Math.max(0, (this.cpu - this.regionStartCpu) * 1e-9) : NaN;
    // Posting a receive whose message is there copies it in (Open MPI's single copy), and so does
    // the poll that completes one; neither waits: their CPU above their kind's smallest is that copy.
    const receives = this.regionReceiveCount;
    const smallest = receives > 0 ? call.smallestCallCpu : undefined;
    if (smallest !== undefined && cpuSeconds >= 0) {
      const share = Math.max(0, cpuSeconds - smallest) / receives;
      for (let i = 0; i < receives; i++) {
        const receive = this.regionReceives[i];
        receive.copySeconds = Math.max(0, receive.copySeconds) + share;
      }
    }
    // A call whose CPU clock did not advance says nothing about the tracer's cost.
    if (cpuSeconds > 0) {
      let work = cpuSeconds;
      const unavoidable = this.unavoidable;
      if (unavoidable) for (let i = 0; i < count; i++) work -= unavoidable(ops[i]);
      work = Math.max(0, work);
      if (unavoidable && count > 0 && ops[0].kind === OpKind.Collective) {
        this.facts.collectiveRegions.add(call.id);
        let calls = this.facts.collectiveCalls.get(call.id);
        if (!calls) this.facts.collectiveCalls.set(call.id, (calls = { work: doubleArray(), members: [] }));
        if (calls.work.length < CALLS_KEPT_PER_REGION) {
          calls.work.push(work);
          calls.members.push(this.communicators.get(ops[0].comm)?.length ?? 1);
        }
      }
      if (!(work >= call.smallestSeen)) {
        call.smallestSeen = work;
        this.facts.smallestCallCpu.set(call.id, work);
      }
      if (unavoidable && (this.regionRecvs || this.regionCompletionCount > 0) && isResumedCall((time - this.regionStartWall) * this.secondsPerTick, cpuSeconds)) {
        let resumed = this.facts.resumedCallCpu.get(call.id);
        if (!resumed) this.facts.resumedCallCpu.set(call.id, (resumed = doubleArray()));
        if (resumed.length < CALLS_KEPT_PER_REGION) resumed.push(cpuSeconds);
      }
    }
    // A call without MPI records costs its own duration, like computation.
    if (!this.regionCommunicates) {
      this.carry += Number.isNaN(cpuSeconds) ? (time - this.regionStartWall) * this.secondsPerTick : cpuSeconds;
      if (count === 0 && call.poll && this.failedPolls++ === 0) {
        this.firstPollCarry = this.carry;
        this.firstPollOffCpu = this.offCpu;
      }
    } else if (!sendOnly) this.carry += call.inCallCost;
    this.lastWall = time;
    this.lastCpu = this.cpu;
    this.gapAfterRealRead = this.cpuReadReal;
    this.regionOps = 0;
    this.regionSends = false;
    this.regionRecvs = false;
  }

  /**
   * The requests a call's wait waits for in the replay. MPI_Waitsome and its kin return once one
   * request is done, and a program calls them when it must free one (the pipeline's send slots),
   * so the sends such a call found done in the trace say how far the run had come, not what the
   * program waited for: the replay waits for the oldest of them, and leaves the others to the
   * rank's next wait, which waits for them too (by then the program reuses their slots), so no
   * more than one call's sends are ever left over. Receives are waited for, as the program goes
   * on to use them. Rank 0 of the pipeline completes 2.95 sends per MPI_Waitsome at 2/1, 1.01 at 2/2.
   */
  private waitedRequests(call: MpiRegion): number[] {
    const carried = this.carriedSends;
    const sends = this.regionSendCompletions;
    const count = this.regionCompletionCount;
    if (call.any && this.regionSendCount > 0 && this.regionSendCount === count) {
      this.carriedSends = sends.slice(1, this.regionSendCount);
      return carried.length > 0 ? [...carried, sends[0]] : [sends[0]];
    }
    const completed = this.regionCompletions.slice(0, count);
    if (carried.length === 0) return completed;
    this.carriedSends = [];
    return [...carried, ...completed];
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.carriedSends.length > 0) {
      const wait = new PemOp(OpKind.Wait);
      wait.requests = this.carriedSends;
      this.carriedSends = [];
      this.emit(wait);
    }
    if (this.depth > 0) this.count('an MPI call without its Leave at the end of the trace');
    for (const open of this.openIrecvs.values()) {
      open.peer = -1;
      this.count('an Irecv never completed in the trace (taken as completed at once)');
    }
    this.openIrecvs.clear();
    const announced = this.archive.defs.locations.get(this.rank.location)?.events ?? 0;
    if (this.reader.events < announced) this.count(`only ${this.reader.events} of the ${announced} events the definitions announce could be read`);
    const end = new PemOp(OpKind.End);
    this.emit(end);
    this.reader.close();
  }
}
