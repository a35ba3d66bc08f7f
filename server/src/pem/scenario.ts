// What a what-if scenario changes: where ranks run (placement: which node each rank is on and
// how many cores each node has) and the network (a communication-time table).
// The traced placement comes from the trace: ranks with the same host and the same CPU set
// (`causal_lens:cpu_set`) share a node of that many cores; on one machine a "node" is the set
// of cores a block of ranks was pinned to. Without a CPU set, each rank is taken to have had a
// core of its own.

import { CommTable, linkSecondsPerByte, oneWaySeconds, receiverTurnSeconds, recorderTurnSeconds, switchInSeconds } from '../network/commTable';
import { RankLocation } from '../trace/otf2Archive';
import { EngineNetwork } from './engine';
import { jsonSyntaxProblem, quotedValue } from '../jsonSyntax';

export interface Placement {
  label: string;
  nodeOf: number[];
  coresPerNode: number[];
}

export class ScenarioError extends Error {}

/** Number of CPUs in a Linux CPU list ("0-3,6"); undefined when it is not one. */
export function cpuCount(cpuSet: string | undefined): number | undefined {
  if (!cpuSet || !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(cpuSet)) return undefined;
  let count = 0;
  for (const part of cpuSet.split(',')) {
    const [a, b] = part.split('-').map(Number);
    count += b === undefined ? 1 : Math.max(0, b - a + 1);
  }
  return count;
}

export function tracedPlacement(ranks: readonly Pick<RankLocation, 'rank' | 'host' | 'cpuSet'>[], cores?: number): Placement {
  const nodeIds = new Map<string, number>();
  const nodeOf: number[] = [];
  const coresPerNode: number[] = [];
  const ranksPerNode: number[] = [];
  for (const rank of ranks) {
    const key = `${rank.host}\u0000${rank.cpuSet ?? ''}`;
    let node = nodeIds.get(key);
    if (node === undefined) {
      node = nodeIds.size;
      nodeIds.set(key, node);
      coresPerNode.push(cores ?? cpuCount(rank.cpuSet) ?? 0);
      ranksPerNode.push(0);
    }
    ranksPerNode[node]++;
    nodeOf[rank.rank] = node;
  }
  const resolved = coresPerNode.map((c, node) => (c > 0 ? c : ranksPerNode[node]));
  return { label: `traced (${ranks.length}/${nodeIds.size})`, nodeOf, coresPerNode: resolved };
}

/**
 * The traced nodes whose ranks outnumbered their cores without being pinned to one each (a CPU
 * set of several cores shared by more ranks): Linux moved them between those cores as they ran.
 */
export function unpinnedOversubscribed(ranks: readonly Pick<RankLocation, 'rank' | 'host' | 'cpuSet'>[]): { cpuSet: string; ranks: number; cores: number }[] {
  const placement = tracedPlacement(ranks);
  const found: { cpuSet: string; ranks: number; cores: number }[] = [];
  for (const rank of ranks) {
    const node = placement.nodeOf[rank.rank];
    const cores = placement.coresPerNode[node];
    (found[node] ??= { cpuSet: rank.cpuSet ?? '', ranks: 0, cores }).ranks++;
  }
  // A rank's own core, or no CPU set (a core each assumed: as many as the node's ranks), is not moved.
  return found.filter((node) => node.cores >= 2 && node.ranks > node.cores);
}

/** Per rank, its node's ranks over its cores (at least 1). */
export function placementRanksPerCore(placement: Placement): number[] {
  const ranksOnNode = new Array<number>(placement.coresPerNode.length).fill(0);
  for (const node of placement.nodeOf) ranksOnNode[node]++;
  return placement.nodeOf.map((node) => Math.max(1, ranksOnNode[node] / placement.coresPerNode[node]));
}

/** Whether two placements put the same ranks together on nodes of the same core counts (node numbers aside). */
export function samePlacement(a: Placement, b: Placement): boolean {
  if (a.nodeOf.length !== b.nodeOf.length) return false;
  const nodeInB = new Map<number, number>();
  for (let rank = 0; rank < a.nodeOf.length; rank++) {
    const node = a.nodeOf[rank];
    const paired = nodeInB.get(node);
    if (paired === undefined) nodeInB.set(node, b.nodeOf[rank]);
    else if (paired !== b.nodeOf[rank]) return false;
    if (a.coresPerNode[node] !== b.coresPerNode[b.nodeOf[rank]]) return false;
  }
  return new Set(nodeInB.values()).size === nodeInB.size;
}

export function spreadPlacement(ranks: number, nodes: number, cyclic: boolean, cores: number): Placement {
  if (!(nodes >= 1) || nodes > ranks) throw new ScenarioError(`${ranks} ranks cannot be spread over ${nodes} nodes`);
  const nodeOf = Array.from({ length: ranks }, (_, r) => (cyclic ? r % nodes : Math.floor((r * nodes) / ranks)));
  return { label: `${ranks}/${nodes}${cyclic ? ' cyclic' : ''}`, nodeOf, coresPerNode: new Array(nodes).fill(cores) };
}

/**
 * An explicit rank → node map (`source` names where it came from, for its messages). Nodes are
 * numbered as the map's distinct indices in increasing order, so a map may use a cluster's own
 * node numbers ("0 0 7 7" is two nodes).
 */
export function mapPlacement(map: readonly number[], ranks: number, cores: number, source: string): Placement {
  if (map.length !== ranks) throw new ScenarioError(`${source}: the map names ${map.length} ranks, the trace has ${ranks}`);
  const bad = map.findIndex((n) => !isNodeIndex(n));
  if (bad >= 0) throw new ScenarioError(`${source}: rank ${bad}'s node "${map[bad]}" is not a whole number ≥ 0`);
  const nodes = [...new Set(map)].sort((a, b) => a - b);
  const index = new Map(nodes.map((node, i) => [node, i]));
  return { label: `map (${ranks}/${nodes.length})`, nodeOf: map.map((n) => index.get(n)!), coresPerNode: new Array(nodes.length).fill(cores) };
}

const isNodeIndex = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

const MAP_FORMAT = 'a JSON array of node indices, or node indices separated by white space, rank 0 first';

/** A map file's text (MAP_FORMAT); every message names `file` and the entry. */
export function parseMapText(text: string, file: string): number[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new ScenarioError(`${file}: no node indices (expected ${MAP_FORMAT})`);
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new ScenarioError(`${file}: not JSON (${jsonSyntaxProblem(error)})`);
    }
    if (!Array.isArray(parsed)) throw new ScenarioError(`${file}: expected ${MAP_FORMAT}`);
    const bad = parsed.findIndex((v) => !isNodeIndex(v));
    if (bad >= 0) throw new ScenarioError(`${file}: entry ${bad} (${quotedValue(parsed[bad])}) is not a node index (a whole number ≥ 0)`);
    return parsed as number[];
  }
  return trimmed.split(/\s+/).map((word, i) => {
    const n = /^\d+$/.test(word) ? Number(word) : NaN;
    if (!isNodeIndex(n)) throw new ScenarioError(`${file}: word ${i + 1} (${quotedValue(word)}) is not a node index (a whole number ≥ 0)`);
    return n;
  });
}

/** Message sizes whose one-way time a scenario's network keeps (engineNetwork). */
const ONE_WAY_SIZES_KEPT = 4096;

/**
 * The engine's network: inter-node messages from `table`; intra-node ones from its intraNode
 * list when it has one, else from the traced table (changing the network leaves shared memory as
 * it was). A receiver's turn and its switch back onto a shared core are the machine's, not the network's:
 * from `table` when it was measured, else from the traced table. The stack's CPU per message and
 * the cost of opening a connection are the network's. When the tracer stays in the prediction
 * (`tracerStays`), each turn on a shared core also costs the recorder's CPU the trace does not
 * show, as the traced table measured it (CommTable.recorderTurn): it was the traced run's recorder;
 * and if that recorder opened every pair's connection in its start-up (`preconnected`, the trace
 * says so), no message in the predicted run opens one.
 */
export function engineNetwork(table: CommTable, traced: CommTable, tracerStays = false, preconnected = false): EngineNetwork {
  const intra = table.intraNode?.length ? table : traced;
  const sharing = table.sharedCore?.length ? table : traced;
  // A program sends a few sizes of message millions of times: each size is interpolated once,
  // up to ONE_WAY_SIZES_KEPT of them, so that one sending ever new sizes keeps memory flat.
  // The last size asked for is answered without the Map (the whole pipeline −0.4% in instructions).
  const known = new Map<number, number>();
  let lastKey = NaN;
  let lastSeconds = 0;
  return {
    eagerLimitBytes: table.eagerLimitBytes,
    linkSecondsPerByte: table.interNodeSharedMemory ? 0 : linkSecondsPerByte(table),
    oneWay: (bytes, sameNode) => {
      const key = sameNode ? -1 - bytes : bytes;
      if (key === lastKey) return lastSeconds;
      let seconds = known.get(key);
      if (seconds === undefined) {
        seconds = sameNode ? oneWaySeconds(intra, bytes, true) : oneWaySeconds(table, bytes, false);
        if (known.size < ONE_WAY_SIZES_KEPT) known.set(key, seconds);
      }
      lastKey = key;
      lastSeconds = seconds;
      return seconds;
    },
    receiverTurn: (ranksPerCore) => receiverTurnSeconds(sharing, ranksPerCore),
    switchIn: (ranksPerCore) => {
      const turn = switchInSeconds(sharing, ranksPerCore);
      return turn > 0 && tracerStays ? turn + recorderTurnSeconds(traced, ranksPerCore) : turn;
    },
    stackCpu: table.stackCpu,
    connectSeconds: tracerStays && preconnected ? 0 : table.connectSeconds,
    // The ranks' operating system, not the network: a table without it keeps the traced one's.
    schedulerTickSeconds: table.schedulerTickSeconds ?? traced.schedulerTickSeconds,
    schedulerSliceSeconds: table.schedulerSliceSeconds ?? traced.schedulerSliceSeconds,
    interNodeSharedMemory: table.interNodeSharedMemory,
  };
}
