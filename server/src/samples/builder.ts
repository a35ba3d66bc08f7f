// Sums sampled time per distinct (stack, thread, class): a recording of millions of
// samples keeps only as many entries as it has distinct stacks.

import { SampleClass, SampleData, SampleFrame, SampleStack } from '../model/profile';

export class SampleBuilder {
  /**
   * By stack array, then `thread\0class`. Callers hand over one array per distinct stack
   * (the same object every time), so the hot path compares identities, never frames.
   */
  private readonly byStack = new Map<number[], SampleStack | Map<string, SampleStack>>();
  readonly skipped: Record<string, number> = {};

  add(thread: string, cls: SampleClass, frames: number[], ms: number): void {
    if (!(ms > 0)) return;
    let entries = this.byStack.get(frames);
    // Most stacks are seen with one thread and class only: no map for those.
    if (!entries) {
      this.byStack.set(frames, { thread, cls, frames, ms });
      return;
    }
    if (!(entries instanceof Map)) {
      if (entries.thread === thread && entries.cls === cls) {
        entries.ms += ms;
        return;
      }
      const first = entries;
      this.byStack.set(frames, (entries = new Map([[`${first.thread}\0${first.cls}`, first]])));
    }
    const key = `${thread}\0${cls}`;
    const entry = entries.get(key);
    if (entry) entry.ms += ms;
    else entries.set(key, { thread, cls, frames, ms });
  }

  skip(reason: string, count = 1): void {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + count;
  }

  finish(frames: SampleFrame[]): SampleData {
    const stacks: SampleStack[] = [];
    for (const entries of this.byStack.values()) {
      if (entries instanceof Map) stacks.push(...entries.values());
      else stacks.push(entries);
    }
    return { frames, stacks, skipped: { ...this.skipped } };
  }
}
