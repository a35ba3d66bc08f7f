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
    const ids = this.ids;
    const v = this.versions;
    const seq = this.seq++;
    let i = t.length;
    t.push(time);
    s.push(seq);
    ids.push(id);
    v.push(version);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (t[parent] < time || (t[parent] === time && s[parent] < seq)) break;
      t[i] = t[parent];
      s[i] = s[parent];
      ids[i] = ids[parent];
      v[i] = v[parent];
      i = parent;
    }
    t[i] = time;
    s[i] = seq;
    ids[i] = id;
    v[i] = version;
  }

  /** Pops the earliest entry into `out` ([time, id, version]). */
  pop(out: number[]): void {
    const t = this.times;
    const s = this.seqs;
    const ids = this.ids;
    const v = this.versions;
    out[0] = t[0];
    out[1] = ids[0];
    out[2] = v[0];
    const lt = t.pop()!;
    const ls = s.pop()!;
    const lid = ids.pop()!;
    const lv = v.pop()!;
    const n = t.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && (t[c + 1] < t[c] || (t[c + 1] === t[c] && s[c + 1] < s[c]))) c++;
      if (t[c] > lt || (t[c] === lt && s[c] > ls)) break;
      t[i] = t[c];
      s[i] = s[c];
      ids[i] = ids[c];
      v[i] = v[c];
      i = c;
    }
    t[i] = lt;
    s[i] = ls;
    ids[i] = lid;
    v[i] = lv;
  }
}
