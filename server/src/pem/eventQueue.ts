// The PEM engine's global queue (engine.ts): one binary heap of times, in arrays rather than
// objects (no allocation per event), ties broken by insertion order so that a replay is
// deterministic.

/**
 * The global queue: times with a kind (a node's next finish, a rank's completion, or network-stack
 * work arriving on a node) and the node version they were made for (for stack work: its seconds).
 */
export class EventQueue {
  private readonly times: number[] = [];
  private readonly seqs: number[] = [];
  private readonly ids: number[] = [];
  private readonly versions: number[] = [];
  private seq = 0;

  get size(): number {
    return this.times.length;
  }

  push(time: number, id: number, version: number): void {
    const t = this.times;
    const s = this.seqs;
    const seq = this.seq++;
    let i = t.length;
    t.push(time);
    s.push(seq);
    this.ids.push(id);
    this.versions.push(version);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (t[parent] < time || (t[parent] === time && s[parent] < seq)) break;
      this.move(parent, i);
      i = parent;
    }
    this.place(i, time, seq, id, version);
  }

  /** Pops the earliest entry into `out` ([time, id, version]). */
  pop(out: number[]): void {
    const t = this.times;
    const s = this.seqs;
    out[0] = t[0];
    out[1] = this.ids[0];
    out[2] = this.versions[0];
    const lt = t.pop()!;
    const ls = s.pop()!;
    const lid = this.ids.pop()!;
    const lv = this.versions.pop()!;
    const n = t.length;
    if (n === 0) return;
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
