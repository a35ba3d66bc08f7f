// Collective operations as the point-to-point rounds of their usual algorithms (Thakur,
// Rabenseifner, Gropp, "Optimization of collective communication operations in MPICH", 2005;
// Open MPI's tuned component uses the same families at these sizes): each round costs one
// one-way message time from the communication table, intra-node when every pair of that round
// shares a node, else inter-node.
//   barrier                      dissemination: ⌈log2 P⌉ rounds of 0 bytes
//   bcast, reduce, scan          binomial tree: ⌈log2 P⌉ rounds of m bytes
//   allreduce, reduce_scatter    recursive doubling: ⌈log2 P⌉ rounds of m bytes
//   gather, scatter, allgather   recursive doubling / binomial: round k carries 2^k blocks of m/P
//   alltoall(v,w)                pairwise exchange: P−1 rounds of m/P bytes
// where m is the largest payload any member recorded (sizeSent or sizeReceived).

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
export const COLL_REDUCE = 12;

/** Who can leave before everyone arrived. */
export type CollectiveShape = 'all' | 'fromRoot' | 'toRoot';

export function collectiveShape(op: number): CollectiveShape {
  if (op === COLL_BCAST || op === COLL_SCATTER || op === COLL_SCATTERV) return 'fromRoot';
  if (op === COLL_REDUCE || op === COLL_GATHER || op === COLL_GATHERV) return 'toRoot';
  return 'all';
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
  private readonly pairCache = new Map<string, readonly (readonly [number, number])[]>();
  constructor(
    private readonly nodeOf: ArrayLike<number>,
    private readonly oneWay: (bytes: number, sameNode: boolean) => number,
  ) {}

  cost(commKey: number, members: readonly number[], op: number, m: number): number {
    let total = 0;
    this.rounds(commKey, members, op, m, (bytes, same) => (total += this.oneWay(bytes, same)));
    return total;
  }

  /** Bytes each member sends between nodes in one collective (the sum over its rounds that cross). */
  crossingBytes(commKey: number, members: readonly number[], op: number, m: number): { rounds: number; bytes: number } {
    const crossing = { rounds: 0, bytes: 0 };
    this.rounds(commKey, members, op, m, (bytes, same) => {
      if (same) return;
      crossing.rounds++;
      crossing.bytes += bytes;
    });
    return crossing;
  }

  /** The pairs of members (world ranks, lower first) that exchange a message across nodes in some round. */
  crossingPairs(commKey: number, members: readonly number[], op: number): readonly (readonly [number, number])[] {
    const key = `${commKey}:${op}`;
    let pairs = this.pairCache.get(key);
    if (pairs) return pairs;
    const found = new Map<number, readonly [number, number]>();
    const p = members.length;
    const add = (i: number, j: number) => {
      if (j >= p || this.nodeOf[members[i]] === this.nodeOf[members[j]]) return;
      const a = Math.min(members[i], members[j]);
      const b = Math.max(members[i], members[j]);
      found.set(a * 4294967296 + b, [a, b]);
    };
    const pairwise = op === COLL_ALLTOALL || op === COLL_ALLTOALLV || op === COLL_ALLTOALLW;
    for (let i = 0; i < p; i++) {
      if (pairwise) for (let step = 1; step < p; step++) add(i, (i + step) % p);
      else for (let distance = 1; distance < p; distance *= 2) add(i, i ^ distance);
    }
    pairs = [...found.values()];
    this.pairCache.set(key, pairs);
    return pairs;
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
      visit(bytes, !this.crosses(commKey, members, 2 ** k, true));
    }
  }

  private crosses(commKey: number, members: readonly number[], distance: number, xor: boolean): boolean {
    const key = `${commKey}:${xor ? 'x' : 'p'}${distance}`;
    let crosses = this.crossCache.get(key);
    if (crosses === undefined) this.crossCache.set(key, (crosses = crossesAt(members, this.nodeOf, distance, xor)));
    return crosses;
  }
}
