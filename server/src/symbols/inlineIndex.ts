// Inlined calls by address: the nested DW_TAG_inlined_subroutine ranges flattened into disjoint
// segments, each naming its innermost call, so a lookup is one binary search plus a parent walk.

import { DebugInfo } from './dwarfInfo';
import { LineTable } from './dwarfLine';
import { lastAtOrBelow } from './elf';
import type { InlineFrame } from './index';

export class InlineIndex {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  private readonly calls: Int32Array;
  /** Per inline call: its frame and its parent call, resolved once. */
  private readonly frames: InlineFrame[];
  private readonly parents: Int32Array;
  /** Per segment: its chain, built on first use. */
  private readonly chains: (InlineFrame[] | undefined)[];

  constructor(info: DebugInfo, lines: LineTable) {
    const inlines = info.inlines;
    this.parents = Int32Array.from(inlines, (c) => c.parent);
    const nameCache = new Map<number, string>();
    this.frames = inlines.map((c) => {
      let name = nameCache.get(c.origin);
      if (name === undefined) {
        name = info.functionName(c.origin);
        nameCache.set(c.origin, name);
      }
      const file = c.callFile >= 0 ? lines.fileOf(c.stmtList, c.callFile) : undefined;
      const callSite = Object.freeze({ file: file ?? '??', line: c.callLine, ...(c.callColumn ? { column: c.callColumn } : {}) });
      return Object.freeze({ function: name, callSite });
    });

    // Paint the elementary intervals between all range boundaries, shallow calls first, so
    // each interval ends up naming the deepest call covering it.
    const boundarySet: number[] = [];
    for (const c of inlines) for (const v of c.ranges) boundarySet.push(v);
    const bounds = Float64Array.from(boundarySet).sort();
    let unique = 0;
    for (let i = 0; i < bounds.length; i++) if (i === 0 || bounds[i] !== bounds[unique - 1]) bounds[unique++] = bounds[i];
    const edges = bounds.subarray(0, unique);
    const owner = new Int32Array(Math.max(0, unique - 1)).fill(-1);
    const order = inlines.map((_, i) => i).sort((a, b) => inlines[a].depth - inlines[b].depth);
    for (const call of order) {
      const ranges = inlines[call].ranges;
      for (let k = 0; k < ranges.length; k += 2) {
        for (let e = lastAtOrBelow(edges, ranges[k]); e >= 0 && e < owner.length && edges[e] < ranges[k + 1]; e++) owner[e] = call;
      }
    }
    const starts: number[] = [];
    const ends: number[] = [];
    const calls: number[] = [];
    for (let e = 0; e < owner.length; e++) {
      if (owner[e] < 0) continue;
      const last = calls.length - 1;
      if (last >= 0 && calls[last] === owner[e] && ends[last] === edges[e]) ends[last] = edges[e + 1];
      else {
        starts.push(edges[e]);
        ends.push(edges[e + 1]);
        calls.push(owner[e]);
      }
    }
    this.starts = Float64Array.from(starts);
    this.ends = Float64Array.from(ends);
    this.calls = Int32Array.from(calls);
    this.chains = new Array(calls.length);
  }

  /** Inline frames containing vaddr, innermost first; frozen and shared by every address of its range. */
  framesAt(vaddr: number): InlineFrame[] {
    const i = lastAtOrBelow(this.starts, vaddr);
    if (i < 0 || vaddr >= this.ends[i]) return NO_FRAMES;
    return (this.chains[i] ??= this.chainOf(this.calls[i]));
  }

  private chainOf(innermost: number): InlineFrame[] {
    const out: InlineFrame[] = [];
    // The depth bound keeps a corrupt parent cycle finite.
    for (let call = innermost; call >= 0 && out.length < 256; call = this.parents[call]) out.push(this.frames[call]);
    return Object.freeze(out) as InlineFrame[];
  }
}

export const NO_FRAMES = Object.freeze([]) as unknown as InlineFrame[];
