// Collective operations as the point-to-point rounds of their usual algorithms (Thakur,
// Rabenseifner, Gropp, "Optimization of collective communication operations in MPICH", 2005;
// Open MPI's tuned component uses the same families at these sizes):
//   barrier                      dissemination: ⌈log2 P⌉ rounds of 0 bytes, to i+2^k, from i−2^k
//   bcast, scatter(v)            binomial tree from the root (scatter: a child's subtree of blocks)
//   reduce, gather(v)            binomial tree to the root (gather: the sender's subtree of blocks)
//   allgather(v)                 recursive doubling: round k exchanges 2^k blocks with i xor 2^k
//   alltoall(v,w)                pairwise exchange: P−1 rounds of m/P bytes, to i+s, from i−s
//   allreduce and the rest       recursive doubling: ⌈log2 P⌉ exchanges of m bytes with i xor 2^k
// The engine runs them as messages (`collectiveRounds`): each member leaves when its own rounds
// are done, and the rounds take links, turns and connections in time order with the members'
// other messages. `CollectiveCosts` is the same rounds' one-way times along one chain, and their
// copies: what a call cannot avoid on the traced network (the first pass's smallest work inside calls).

import { OpKind, PemOp, RankStream } from './ops';

export const COLL_BARRIER = 0;
export const COLL_BCAST = 1;
export const COLL_GATHER = 2;
export const COLL_GATHERV = 3;
export const COLL_SCATTER = 4;
export const COLL_SCATTERV = 5;
export const COLL_ALLGATHER = 6;
export const COLL_ALLGATHERV = 7;
export const COLL_ALLTOALL = 8;
export const COLL_ALLTOALLV = 9;
export const COLL_ALLTOALLW = 10;
export const COLL_ALLREDUCE = 11;
export const COLL_REDUCE = 12;

/** OTF2_CollectiveOp names (OTF2_Events.h), for messages about a collective. */
const COLLECTIVE_NAMES = [
  'barrier', 'bcast', 'gather', 'gatherv', 'scatter', 'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'alltoallw',
  'allreduce', 'reduce', 'reduce_scatter', 'scan', 'exscan', 'reduce_scatter_block', 'create_handle', 'destroy_handle', 'allocate',
  'deallocate', 'create_handle_and_allocate', 'destroy_handle_and_deallocate',
];

export function collectiveName(op: number): string {
  return COLLECTIVE_NAMES[op] ?? `collective operation ${op}`;
}

/** Whether some pair `distance` apart (i, i xor distance) sits on different nodes. */
function crossesAt(members: readonly number[], nodeOf: ArrayLike<number>, distance: number, xor: boolean): boolean {
  const p = members.length;
  for (let i = 0; i < p; i++) {
    const j = xor ? i ^ distance : (i + distance) % p;
    if (j < p && nodeOf[members[i]] !== nodeOf[members[j]]) return true;
  }
  return false;
}

/**
 * Cost of one collective of `op` on `members` (world ranks) with payload `m` bytes, given the
 * one-way time function. Round crossings are computed once per communicator and cached.
 */
export class CollectiveCosts {
  private readonly crossCache = new Map<string, boolean>();
  constructor(
    private readonly nodeOf: ArrayLike<number>,
    private readonly oneWay: (bytes: number, sameNode: boolean) => number,
  ) {}

  cost(commKey: number, members: readonly number[], op: number, m: number): number {
    let total = 0;
    this.rounds(commKey, members, op, m, (bytes, same) => (total += this.oneWay(bytes, same)));
    return total;
  }

  /**
   * The size-dependent part of the same rounds, T(b) − T(0): copying their data. The last member
   * to arrive still copies, but finds every partner's message there (in these algorithms no
   * round it takes part in waits for its own arrival), so it waits for none of the latencies.
   */
  copies(commKey: number, members: readonly number[], op: number, m: number): number {
    let total = 0;
    this.rounds(commKey, members, op, m, (bytes, same) => (total += this.oneWay(bytes, same) - this.oneWay(0, same)));
    return total;
  }

  /** Calls `visit` with each round's message size and whether it stays inside nodes. */
  private rounds(commKey: number, members: readonly number[], op: number, m: number, visit: (bytes: number, sameNode: boolean) => void): void {
    const p = members.length;
    if (p <= 1) return;
    if (op === COLL_ALLTOALL || op === COLL_ALLTOALLV || op === COLL_ALLTOALLW) {
      const block = m / p;
      for (let step = 1; step < p; step++) visit(block, !this.crosses(commKey, members, step, false));
      return;
    }
    const blocks = op === COLL_GATHER || op === COLL_GATHERV || op === COLL_SCATTER || op === COLL_SCATTERV || op === COLL_ALLGATHER || op === COLL_ALLGATHERV;
    const rounds = Math.ceil(Math.log2(p));
    for (let k = 0; k < rounds; k++) {
      const bytes = op === COLL_BARRIER ? 0 : blocks ? Math.min(2 ** k, p) * (m / p) : m;
      visit(bytes, !this.crosses(commKey, members, 2 ** k, op !== COLL_BARRIER));
    }
  }

  private crosses(commKey: number, members: readonly number[], distance: number, xor: boolean): boolean {
    const key = `${commKey}:${xor ? 'x' : 'p'}${distance}`;
    let crosses = this.crossCache.get(key);
    if (crosses === undefined) this.crossCache.set(key, (crosses = crossesAt(members, this.nodeOf, distance, xor)));
    return crosses;
  }
}

/** The tag of collective rounds' messages: no MPI tag is negative, so they never match the program's. */
export const ROUND_TAG = -1;

const isAlltoall = (op: number) => op === COLL_ALLTOALL || op === COLL_ALLTOALLV || op === COLL_ALLTOALLW;
const fromRoot = (op: number) => op === COLL_BCAST || op === COLL_SCATTER || op === COLL_SCATTERV;
const toRoot = (op: number) => op === COLL_REDUCE || op === COLL_GATHER || op === COLL_GATHERV;
const inBlocks = (op: number) => op === COLL_SCATTER || op === COLL_SCATTERV || op === COLL_GATHER || op === COLL_GATHERV;

/**
 * `stream` with each Collective replaced by the point-to-point operations of its rounds as world
 * rank `rank` performs them (blocking calls, or Irecv + Isend + Wait for an exchange). The
 * collective's computation comes first; the payload is what this rank recorded (m, or the
 * root's total of P blocks).
 */
export function collectiveRounds(
  stream: RankStream,
  rank: number,
  communicators: ReadonlyMap<number, readonly number[]>,
  worldRanks: readonly number[],
  eagerLimitBytes: number,
  problem: (text: string) => void,
): RankStream {
  // The engine is done with one collective's operations before it asks for the next, so they are reused.
  const pool: PemOp[] = [];
  let ready = 0;
  let nextReady = 0;
  // Far below the synthetic requests of otf2Ops (−1, −2, …) and the trace's own (≥ 0).
  let request = -(2 ** 40);
  const indexIn = new Map<number, number>();

  const emit = (kind: OpKind, source: PemOp, peer: number, bytes: number): PemOp => {
    let op = pool[ready];
    if (!op) pool.push((op = new PemOp(kind)));
    ready++;
    op.kind = kind;
    op.compute = 0;
    op.comm = source.comm;
    op.tag = ROUND_TAG;
    op.collective = source.collective;
    op.peer = peer;
    op.bytes = bytes;
    op.copySeconds = -1;
    return op;
  };
  const exchange = (source: PemOp, to: number, from: number, bytes: number) => {
    // An eager send never waits, so send-then-receive is the exchange: with one partner, one
    // operation (two cost the engine a tenth of its time on the bench's Allreduce-heavy trace).
    if (bytes <= eagerLimitBytes) {
      if (to === from) emit(OpKind.Exchange, source, to, bytes);
      else {
        emit(OpKind.Send, source, to, bytes);
        emit(OpKind.Recv, source, from, 0);
      }
      return;
    }
    const recv = (emit(OpKind.Irecv, source, from, 0).request = request--);
    const send = (emit(OpKind.Isend, source, to, bytes).request = request--);
    emit(OpKind.Wait, source, -1, 0).requests = [recv, send];
  };

  const expand = (op: PemOp): void => {
    let members = communicators.get(op.comm);
    if (!members) {
      problem(`a collective on communicator ${op.comm}, which the trace does not define; taken as all ranks`);
      members = worldRanks;
    }
    let i = indexIn.get(op.comm);
    if (i === undefined) indexIn.set(op.comm, (i = members.indexOf(rank)));
    const p = members.length;
    if (i < 0) problem(`rank ${rank} calls a collective on communicator ${op.comm}, which does not hold it; taken as computation`);
    if (i < 0 || p <= 1) return;
    const m = Math.max(op.sizeSent, op.sizeReceived);
    const c = op.collective;
    if (c === COLL_BARRIER) {
      for (let d = 1; d < p; d *= 2) exchange(op, members[(i + d) % p], members[(i - d + p) % p], 0);
    } else if (isAlltoall(c)) {
      for (let step = 1; step < p; step++) exchange(op, members[(i + step) % p], members[(i - step + p) % p], m / p);
    } else if (fromRoot(c) || toRoot(c)) {
      let root = members.indexOf(op.root);
      if (root < 0) {
        problem(`a rooted collective whose root (rank ${op.root}) is not in communicator ${op.comm}; taken as its first member`);
        root = 0;
      }
      const v = (i - root + p) % p;
      const block = inBlocks(c) ? (v === 0 ? m / p : m) : m;
      const world = (relative: number) => members[(relative + root) % p];
      // The lowest set bit of v is the round in which v hears from (or reports to) its parent.
      let parentMask = 1;
      while (parentMask < p && !(v & parentMask)) parentMask *= 2;
      if (fromRoot(c)) {
        if (v > 0) emit(OpKind.Recv, op, world(v - parentMask), 0);
        for (let mask = parentMask / 2; mask >= 1; mask /= 2) {
          if (v + mask < p) emit(OpKind.Send, op, world(v + mask), inBlocks(c) ? Math.min(mask, p - v - mask) * block : m);
        }
      } else {
        for (let mask = 1; mask < parentMask && mask < p; mask *= 2) if (v + mask < p) emit(OpKind.Recv, op, world(v + mask), 0);
        if (v > 0) emit(OpKind.Send, op, world(v - parentMask), inBlocks(c) ? Math.min(parentMask, p - v) * block : m);
      }
    } else {
      const blocks = c === COLL_ALLGATHER || c === COLL_ALLGATHERV;
      const block = blocks ? Math.max(op.sizeSent, op.sizeReceived / p) : m;
      for (let d = 1; d < p; d *= 2) if ((i ^ d) < p) exchange(op, members[i ^ d], members[i ^ d], blocks ? Math.min(d, p) * block : m);
    }
  };

  return {
    next(): PemOp | undefined {
      if (nextReady < ready) return pool[nextReady++];
      const op = stream.next();
      if (!op || op.kind !== OpKind.Collective) return op;
      ready = 0;
      nextReady = 0;
      expand(op);
      if (ready === 0) emit(OpKind.KeepAlive, op, -1, 0);
      pool[0].compute = op.compute;
      return pool[nextReady++];
    },
  };
}
