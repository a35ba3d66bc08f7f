// Values by a numeric id, for the engine's hot tables: a rank's open requests, a trace's posted
// receives, the channels between two ranks. Entries are set and deleted once per operation while
// only a handful exist at a time (a halo's four requests, a pair's two or three tags): a Map's
// deletions leave entries that make it rebuild its table every few operations (open requests in
// Maps were 7% of the whole pipeline's profile). A few entries are searched linearly; a program
// that keeps many open at once spills into a Map until they are all gone.

import { doubleArray } from '../doubleFields';

/** Entries kept in the linear arrays; beyond, a Map. */
const LINEAR_MAX = 16;

export class IdTable<V> {
  /**
   * The first `count` places hold the entries; the arrays never shrink, as pushing onto one that
   * had been popped went through V8's runtime (1% of a whole prediction's time).
   */
  private readonly ids = doubleArray();
  private readonly entries: (V | undefined)[] = [];
  private count = 0;
  private spill: Map<number, V> | undefined;

  get size(): number {
    return this.spill ? this.spill.size : this.count;
  }

  get(id: number): V | undefined {
    if (this.spill) return this.spill.get(id);
    const ids = this.ids;
    for (let i = 0; i < this.count; i++) if (ids[i] === id) return this.entries[i];
    return undefined;
  }

  set(id: number, value: V): void {
    if (this.spill) {
      this.spill.set(id, value);
      return;
    }
    const ids = this.ids;
    const count = this.count;
    for (let i = 0; i < count; i++) {
      if (ids[i] === id) {
        this.entries[i] = value;
        return;
      }
    }
    if (count < LINEAR_MAX) {
      ids[count] = id;
      this.entries[count] = value;
      this.count = count + 1;
      return;
    }
    this.spill = new Map(ids.slice(0, count).map((key, i) => [key, this.entries[i] as V]));
    this.spill.set(id, value);
    this.emptyLinear();
  }

  /** Removes the entry; returns whether there was one. */
  delete(id: number): boolean {
    const spill = this.spill;
    if (spill) {
      const had = spill.delete(id);
      if (spill.size === 0) this.spill = undefined;
      return had;
    }
    const ids = this.ids;
    for (let i = 0; i < this.count; i++) {
      if (ids[i] !== id) continue;
      // The order of entries does not matter: the last one takes the freed place.
      const last = --this.count;
      ids[i] = ids[last];
      this.entries[i] = this.entries[last];
      // Not kept alive by a place no longer used.
      this.entries[last] = undefined;
      return true;
    }
    return false;
  }

  /** Removes the entries for which `drop` is true. */
  deleteWhere(drop: (value: V) => boolean): void {
    if (this.spill) {
      for (const [id, value] of this.spill) if (drop(value)) this.spill.delete(id);
      if (this.spill.size === 0) this.spill = undefined;
      return;
    }
    for (let i = this.count - 1; i >= 0; i--) if (drop(this.entries[i] as V)) this.delete(this.ids[i]);
  }

  values(): V[] {
    return this.spill ? [...this.spill.values()] : (this.entries.slice(0, this.count) as V[]);
  }

  clear(): void {
    this.spill = undefined;
    this.emptyLinear();
  }

  private emptyLinear(): void {
    for (let i = 0; i < this.count; i++) this.entries[i] = undefined;
    this.count = 0;
  }
}
