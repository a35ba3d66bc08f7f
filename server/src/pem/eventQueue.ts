// The PEM engine's global queue (engine.ts): one binary heap of times, in typed arrays rather
// than objects (no allocation per event, no array growth through V8's runtime), ties broken by
// insertion order so that a replay is deterministic. The entry pushed last is held beside the
// heap until another comes: the engine mostly pushes a node's next finish and pops it at once
// (two pushes and pops per operation), which then never enters the heap.

import { DOUBLE_ZERO } from '../doubleFields';

/**
 * The global queue: times with a kind (a node's next finish, a rank's completion, or network-stack
 * work arriving on a node) and the node version they were made for (for stack work: its seconds).
 */
export class EventQueue {
  private times = new Float64Array(64);
  /** Insertion numbers: a long replay pushes more than 2^31 entries. */
  private seqs = new Float64Array(64);
  private ids = new Int32Array(64);
  private versions = new Float64Array(64);
  private count = 0;
  private seq = 0;
  /** The entry pushed last, not in the heap yet (heldSeq < 0: none). */
  private heldTime = DOUBLE_ZERO;
  private heldSeq = -1;
  private heldId = 0;
  private heldVersion = 0;

  get size(): number {
    return this.heldSeq < 0 ? this.count : this.count + 1;
  }

  push(time: number, id: number, version: number): void {
    if (this.heldSeq >= 0) this.insert(this.heldTime, this.heldSeq, this.heldId, this.heldVersion);
    this.heldTime = time;
    this.heldSeq = this.seq++;
    this.heldId = id;
    this.heldVersion = version;
  }

  /** Pops the earliest entry into `out` ([time, id, version]). */
  pop(out: number[]): void {
    const held = this.heldSeq;
    if (held >= 0) {
      this.heldSeq = -1;
      // The held entry is the latest pushed: it goes first only when strictly earlier than the heap's.
      if (this.count === 0 || this.heldTime < this.times[0]) {
        out[0] = this.heldTime;
        out[1] = this.heldId;
        out[2] = this.heldVersion;
        return;
      }
      this.insert(this.heldTime, held, this.heldId, this.heldVersion);
    }
    const t = this.times;
    const s = this.seqs;
    out[0] = t[0];
    out[1] = this.ids[0];
    out[2] = this.versions[0];
    const n = --this.count;
    if (n === 0) return;
    const lt = t[n];
    const ls = s[n];
    const lid = this.ids[n];
    const lv = this.versions[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && (t[c + 1] < t[c] || (t[c + 1] === t[c] && s[c + 1] < s[c]))) c++;
      if (t[c] > lt || (t[c] === lt && s[c] > ls)) break;
      this.move(c, i);
      i = c;
    }
    this.place(i, lt, ls, lid, lv);
  }

  private insert(time: number, seq: number, id: number, version: number): void {
    if (this.count === this.times.length) this.grow();
    const t = this.times;
    const s = this.seqs;
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (t[parent] < time || (t[parent] === time && s[parent] < seq)) break;
      this.move(parent, i);
      i = parent;
    }
    this.place(i, time, seq, id, version);
  }

  private grow(): void {
    const size = this.times.length * 2;
    const times = new Float64Array(size);
    const seqs = new Float64Array(size);
    const ids = new Int32Array(size);
    const versions = new Float64Array(size);
    times.set(this.times);
    seqs.set(this.seqs);
    ids.set(this.ids);
    versions.set(this.versions);
    this.times = times;
    this.seqs = seqs;
    this.ids = ids;
    this.versions = versions;
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from];
    this.seqs[to] = this.seqs[from];
    this.ids[to] = this.ids[from];
    this.versions[to] = this.versions[from];
  }

  private place(i: number, time: number, seq: number, id: number, version: number): void {
    this.times[i] = time;
    this.seqs[i] = seq;
    this.ids[i] = id;
    this.versions[i] = version;
  }
}
