// Message matching of the PEM engine (engine.ts), MPI's rules without the timing: a message and a
// receive match when they name each other's rank, communicator and tag; of one sender's messages
// a receive takes the first sent, and of the receives a message fits the earliest posted takes it.
// A receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG matches the message that reaches it first
// in the replay (among those already sent: a later send that would arrive earlier is not waited
// for), not the one the trace matched; a send marked toWildcardSource goes to the source its
// rank's last wildcard receive matched (a master's reply to whichever worker reported: dealing.ts).
// Generic over the engine's messages and receives, which carry their timing beside what is read here.

import { ChannelHeads } from './channelHeads';
import { IdTable } from './idTable';
import { PemOp } from './ops';

/** What matching reads of a message sent and not received yet. */
export interface Sent {
  /** Its sender (world rank). */
  src: number;
  /** When it was sent. */
  time: number;
  eager: boolean;
  /** Delay of the data: the one-way time, less the copy when the receiver copies it in (the engine's Message.copied). */
  oneWay: number;
  /** Rendezvous: the delay of its request-to-send, one leg of the handshake. */
  zeroWay: number;
  /** PemOp.payload of its send. */
  payload: unknown;
  /** Its place among the messages held (Mailboxes.holdMessage): messages of one sender match in the order they were sent. */
  seq: number;
}

/** What matching reads of a receive posted and not matched yet. */
export interface Posted {
  op: PemOp;
  /** Its place among the receives held (Mailboxes.holdRecv): of two a message fits, the first posted takes it. */
  seq: number;
}

/** The messages and receives in flight between two ranks on one communicator and tag. */
export interface Channel<M extends Sent, R extends Posted> {
  src: number;
  dst: number;
  comm: number;
  tag: number;
  sends: M[];
  recvs: R[];
}

/** Channels a pair of ranks keeps before its idle ones are forgotten (a program may tag each iteration anew). */
const PAIR_CHANNELS_MAX = 8;

/** A pair of ranks' channels, by communicator and tag. */
class PairChannels<M extends Sent, R extends Posted> {
  readonly byKey = new IdTable<Channel<M, R>>();
  /** When it holds this many its idle channels are forgotten; then at twice those in flight, so many in flight are not scanned at every message. */
  forgetAt = PAIR_CHANNELS_MAX;
}

/** A receiver's senders with channels kept before the idle channels of all are forgotten. */
const SENDERS_SWEEP_AT = 32;

/** A receiver's channels, by sender. */
class ReceiverPairs<M extends Sent, R extends Posted> {
  readonly bySender = new IdTable<PairChannels<M, R>>();
  sweepAt = SENDERS_SWEEP_AT;
  /** Its channels with messages held, by their first's arrival: kept once it posts an MPI_ANY_SOURCE receive. */
  heads: ChannelHeads<M, Channel<M, R>> | undefined;
}

/** When a message held arrives: its data when eager, its request-to-send (a rendezvous's first leg) otherwise. */
const arrivalOf = (msg: Sent) => msg.time + (msg.eager ? msg.oneWay : msg.zeroWay);

const isWildcard = (op: PemOp) => op.anySource === true || op.anyTag === true;

/**
 * Whether a receive takes messages of `tag`. MPI_ANY_TAG takes the program's tags only: every MPI
 * tag is 0 or more, and a collective's rounds (collectives.ts, a negative tag) have a context of
 * their own in MPI, which no receive of the program matches.
 */
const takesTag = (op: PemOp, tag: number) => (op.anyTag ? tag >= 0 : op.tag === tag);

/** The messages and receives in flight between the ranks of a run, matched as MPI matches them. */
export class Mailboxes<M extends Sent, R extends Posted> {
  /**
   * Per receiver, by sender, then by communicator and tag: a rank's own table rather than one for
   * all pairs, so that its MPI_ANY_SOURCE receives look among its own senders and it forgets its
   * idle senders' channels by itself.
   */
  private readonly receivers: ReceiverPairs<M, R>[];
  /** Channels forgotten, for reuse. */
  private readonly idleChannels: Channel<M, R>[] = [];
  /**
   * The channel each pair of ranks used last, by pairKey: most pairs use one, found here without
   * the receiver's tables. With many ranks those are cold when a pair's next message comes, and on
   * the AMD EPYC VM each object between the receiver and its channel (five of them) was a load from
   * memory of about 100 ns (docs/pem.md, Performance, 2026-11-28 07:15). A forgotten channel leaves it.
   */
  private readonly lastByPair = new Map<number, Channel<M, R>>();
  /** Per rank, its wildcard receives posted and not matched yet, in the order they were posted. */
  private readonly wildcardRecvs: R[][];
  /** Per rank, how many those are: read at every send, where the rank's list would be one more object to load. */
  private readonly wildcardCounts: Int32Array;
  /** Per rank, 1 once it keeps its channels' heads (ReceiverPairs.heads): read at every message held or taken, for the same reason. */
  private readonly keepsHeads: Uint8Array;
  /** Per rank, the source its last wildcard receive matched, or −1. */
  private readonly wildcardSources: Int32Array;
  /** Messages held so far (Sent.seq), and receives (Posted.seq). */
  private sends = 0;
  private posts = 0;

  constructor(ranks: number) {
    this.receivers = Array.from({ length: ranks }, () => new ReceiverPairs<M, R>());
    this.wildcardRecvs = Array.from({ length: ranks }, () => []);
    this.wildcardCounts = new Int32Array(ranks);
    this.keepsHeads = new Uint8Array(ranks);
    this.wildcardSources = new Int32Array(ranks).fill(-1);
  }

  /** The pair `src` → `dst` as one number. */
  private pairKey(src: number, dst: number): number {
    return src * this.receivers.length + dst;
  }

  /** The source `rank`'s last wildcard receive matched (PemOp.toWildcardSource), or −1. */
  wildcardSource(rank: number): number {
    return this.wildcardSources[rank];
  }

  /** The channel of messages from `src` to `dst` on communicator `comm` and `tag`. */
  channel(src: number, dst: number, comm: number, tag: number): Channel<M, R> {
    // Small enough to be inlined into the engine's send and receive: the tables are searched apart.
    const pair = this.pairKey(src, dst);
    const last = this.lastByPair.get(pair);
    // The key is the pair's; a channel reused for another pair leaves the map first (forgetIdle).
    if (last !== undefined && last.comm === comm && last.tag === tag) return last;
    const channel = this.findChannel(src, dst, comm, tag);
    this.lastByPair.set(pair, channel);
    return channel;
  }

  /** The pair's channel on `comm` and `tag` from its receiver's tables, or a new one. */
  private findChannel(src: number, dst: number, comm: number, tag: number): Channel<M, R> {
    const channels = this.receivers[dst].bySender.get(src);
    return channels?.byKey.get(comm * 4294967296 + tag) ?? this.openChannel(channels, src, dst, comm, tag);
  }

  /** A new channel, on the pair's `channels` when it has any. */
  private openChannel(channels: PairChannels<M, R> | undefined, src: number, dst: number, comm: number, tag: number): Channel<M, R> {
    if (!channels) {
      const receiver = this.receivers[dst];
      if (receiver.bySender.size >= receiver.sweepAt) this.sweepSenders(receiver);
      receiver.bySender.set(src, (channels = new PairChannels<M, R>()));
    }
    if (channels.byKey.size >= channels.forgetAt) this.forgetIdle(channels);
    const channel = this.idleChannels.pop() ?? { src, dst, comm, tag, sends: [], recvs: [] };
    channel.src = src;
    channel.dst = dst;
    channel.comm = comm;
    channel.tag = tag;
    channels.byKey.set(comm * 4294967296 + tag, channel);
    return channel;
  }

  /**
   * The receive a message from `src` to `dst` on `channel` matches, taken from those posted: the
   * channel's first or the receiver's first fitting wildcard receive, whichever was posted first.
   */
  takeRecv(channel: Channel<M, R>, src: number, dst: number, payload: unknown): R | undefined {
    // Without wildcard receives or payloads (most programs) the channel's first receive takes it,
    // in a method small enough to be inlined into the engine's send.
    if (this.wildcardCounts[dst] === 0 && payload === undefined) return channel.recvs.shift();
    return this.takeFittingRecv(channel, src, dst, payload);
  }

  private takeFittingRecv(channel: Channel<M, R>, src: number, dst: number, payload: unknown): R | undefined {
    const wildcards = this.wildcardRecvs[dst];
    let wildcard = -1;
    for (let i = 0; i < wildcards.length; i++) {
      const w = wildcards[i].op;
      if (w.comm === channel.comm && (w.anySource || w.peer === src) && takesTag(w, channel.tag)) {
        wildcard = i;
        break;
      }
    }
    let recv: R | undefined;
    if (wildcard >= 0 && !(channel.recvs.length > 0 && channel.recvs[0].seq < wildcards[wildcard].seq)) {
      recv = wildcards.splice(wildcard, 1)[0];
      this.wildcardCounts[dst]--;
    } else recv = channel.recvs.shift();
    if (!recv) return undefined;
    recv.op.payload = payload;
    if (recv.op.anySource) this.wildcardSources[dst] = src;
    return recv;
  }

  /** Holds a message no receive took on its channel until one does. */
  holdMessage(channel: Channel<M, R>, msg: M): void {
    msg.seq = this.sends++;
    channel.sends.push(msg);
    if (channel.sends.length === 1 && this.keepsHeads[channel.dst] === 1) this.receivers[channel.dst].heads!.headChanged(channel);
  }

  /** The channel whose first message a receive `op` of `dst` takes: its own, or a wildcard receive's pick (undefined when it finds none). */
  recvChannel(dst: number, op: PemOp): Channel<M, R> | undefined {
    return isWildcard(op) ? this.wildcardChannel(dst, op) : this.channel(op.peer, dst, op.comm, op.tag);
  }

  /** The message a receive `op` of `dst` matches on its `channel` (recvChannel), taken from those held. */
  takeMessage(channel: Channel<M, R> | undefined, dst: number, op: PemOp): M | undefined {
    const msg = channel && channel.sends.length > 0 ? channel.sends.shift()! : undefined;
    if (!msg) return undefined;
    if (this.keepsHeads[dst] === 1) this.receivers[dst].heads!.headChanged(channel!);
    op.payload = msg.payload;
    if (op.anySource) this.wildcardSources[dst] = msg.src;
    return msg;
  }

  /** Holds a receive of `dst` no message matched on its `channel` (recvChannel) until one does: a wildcard receive with its rank's. */
  holdRecv(channel: Channel<M, R> | undefined, dst: number, recv: R): void {
    recv.seq = this.posts++;
    if (isWildcard(recv.op)) {
      this.wildcardRecvs[dst].push(recv);
      this.wildcardCounts[dst]++;
    } else channel!.recvs.push(recv);
  }

  /**
   * The channel of the message a wildcard receive takes among those sent and not matched: from
   * any source (MPI_ANY_SOURCE) or on any tag of its communicator (MPI_ANY_TAG). Of one sender's
   * messages the first sent; of several senders' the first to arrive (a rendezvous message's
   * request-to-send), then the first sent.
   */
  private wildcardChannel(dst: number, op: PemOp): Channel<M, R> | undefined {
    const receiver = this.receivers[dst];
    if (!op.anySource) {
      const pair = receiver.bySender.get(op.peer);
      return pair && this.firstSent(pair, op);
    }
    const heads = receiver.heads ?? this.keepHeads(receiver, dst);
    let best: Channel<M, R> | undefined;
    let bestArrival = Infinity;
    let bestSeq = Infinity;
    heads.visit((channel, msg, arrival) => {
      // Channels come in order of arrival: none after this one arrives before the best found.
      if (arrival > bestArrival || (arrival === bestArrival && msg.seq > bestSeq)) return true;
      if (channel.comm !== op.comm || !takesTag(op, channel.tag)) return false;
      // Of one sender's messages the first sent: with MPI_ANY_TAG, maybe one on another channel that arrives later.
      const first = op.anyTag ? this.firstSent(receiver.bySender.get(channel.src)!, op)! : channel;
      const head = first.sends[0];
      const headArrival = arrivalOf(head);
      if (headArrival < bestArrival || (headArrival === bestArrival && head.seq < bestSeq)) {
        best = first;
        bestArrival = headArrival;
        bestSeq = head.seq;
      }
      return first === channel;
    });
    return best;
  }

  /** Of a pair's channels with a message the receive `op` takes (its communicator, its tag or any), the one whose first message was sent first. */
  private firstSent(pair: PairChannels<M, R>, op: PemOp): Channel<M, R> | undefined {
    let first: Channel<M, R> | undefined;
    const consider = (channel: Channel<M, R> | undefined) => {
      const msg = channel?.sends[0];
      if (msg && channel.comm === op.comm && takesTag(op, channel.tag) && (!first || msg.seq < first.sends[0].seq)) first = channel;
    };
    if (op.anyTag) for (const channel of pair.byKey.values()) consider(channel);
    else consider(pair.byKey.get(op.comm * 4294967296 + op.tag));
    return first;
  }

  /** Starts keeping the receiver's channel heads (its first MPI_ANY_SOURCE receive), with the messages held now. */
  private keepHeads(receiver: ReceiverPairs<M, R>, dst: number): ChannelHeads<M, Channel<M, R>> {
    const heads = new ChannelHeads<M, Channel<M, R>>(arrivalOf);
    for (const pair of receiver.bySender.values()) for (const channel of pair.byKey.values()) heads.headChanged(channel);
    receiver.heads = heads;
    this.keepsHeads[dst] = 1;
    return heads;
  }

  /**
   * Forgets a pair's channels with nothing in flight, so memory follows the messages in flight,
   * not the tags ever used. Idle channels are kept until then because most are used again at once
   * (the next iteration's message): forgetting each as it emptied cost 3% of the whole pipeline,
   * and making a new one per message a sixth of it in GC, so their objects are reused.
   */
  private forgetIdle(channels: PairChannels<M, R>): void {
    channels.byKey.deleteWhere((channel) => {
      if (channel.sends.length > 0 || channel.recvs.length > 0) return false;
      // Its object goes to another pair's channel: the pair no longer finds it.
      const pair = this.pairKey(channel.src, channel.dst);
      if (this.lastByPair.get(pair) === channel) this.lastByPair.delete(pair);
      this.idleChannels.push(channel);
      return true;
    });
    channels.forgetAt = Math.max(PAIR_CHANNELS_MAX, 2 * channels.byKey.size);
  }

  /** Forgets the idle channels of every pair of a receiver, and the pairs left without any. */
  private sweepSenders(receiver: ReceiverPairs<M, R>): void {
    receiver.bySender.deleteWhere((channels) => {
      this.forgetIdle(channels);
      return channels.byKey.size === 0;
    });
    receiver.sweepAt = Math.max(SENDERS_SWEEP_AT, 2 * receiver.bySender.size);
  }
}
