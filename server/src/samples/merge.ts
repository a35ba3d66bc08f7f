// Several sample profiles as one (e.g. one perf recording per MPI rank): frames are
// re-numbered into one table; stacks are kept apart by their threads.

import { SampleData, SampleFrame } from '../model/profile';
import { SampleBuilder } from './builder';

export function mergeSampleData(parts: readonly SampleData[]): SampleData {
  if (parts.length === 1) return parts[0];
  const frames: SampleFrame[] = [];
  const ids = new Map<string, number>();
  const builder = new SampleBuilder();
  const stackArrays = new Map<string, number[]>();
  for (const part of parts) {
    const remap = part.frames.map((frame) => {
      const key = JSON.stringify(frame);
      let id = ids.get(key);
      if (id === undefined) {
        id = frames.length;
        frames.push(frame);
        ids.set(key, id);
      }
      return id;
    });
    for (const stack of part.stacks) {
      const frames = stack.frames.map((id) => remap[id]);
      const key = frames.join(',');
      let same = stackArrays.get(key);
      if (!same) stackArrays.set(key, (same = frames));
      builder.add(stack.thread, stack.cls, same, stack.ms);
    }
    for (const [reason, count] of Object.entries(part.skipped)) builder.skip(reason, count);
  }
  return builder.finish(frames);
}
