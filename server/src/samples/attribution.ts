// Sampled time on source lines, as COZ attributes it: each stack counts for its
// innermost frame whose source is in the workspace, so time in libc or the kernel lands
// on the calling line; the whole stack is kept for hovers and the tree. Everything the
// editor shows (line heat split by class, hovers by thread with the top stacks, the tree
// by class and thread) is a plain function of the result.

import * as path from 'path';
import { SAMPLE_CLASSES, SampleClass, SampleData, SampleFrame } from '../model/profile';
import { isInside } from '../workspace/pathResolver';

export type ClassMs = Record<SampleClass, number>;

export function zeroClassMs(): ClassMs {
  return { onCpu: 0, io: 0, sync: 0, sched: 0, other: 0 };
}

export function totalMs(ms: ClassMs): number {
  return ms.onCpu + ms.io + ms.sync + ms.sched + ms.other;
}

export function addClassMs(into: ClassMs, from: ClassMs): void {
  for (const cls of SAMPLE_CLASSES) into[cls] += from[cls];
}

export interface StackShare {
  /** Frame indices into SampleData.frames, innermost first. */
  frames: number[];
  ms: number;
}

export interface LineSamples {
  file: string;
  line: number;
  ms: ClassMs;
  byThread: Map<string, ClassMs>;
  /** The heaviest stacks into the line, heaviest first (at most STACKS_PER_LINE). */
  stacks: StackShare[];
}

export interface FunctionSamples {
  name: string;
  file: string;
  ms: ClassMs;
}

export interface Attribution {
  frames: SampleFrame[];
  /** Heaviest first. */
  lines: LineSamples[];
  functions: FunctionSamples[];
  byThread: Map<string, ClassMs>;
  total: ClassMs;
  /** Time whose stack has no frame in the workspace. */
  outside: ClassMs;
}

export const STACKS_PER_LINE = 3;

/**
 * Whether a source file counts as the user's: inside one of `roots`; with no roots,
 * any file with a path outside the system's directories (/usr, /lib, glibc's `./`).
 */
export function workspaceFilter(roots: readonly string[]): (file: string) => boolean {
  if (roots.length === 0) return (file) => !/^(\/usr\/|\/lib|\/opt\/|\.\/|<)/.test(file);
  return (file) => {
    const absolute = path.resolve(file);
    return roots.some((root) => isInside(root, absolute));
  };
}

/** The index in `frames` of the innermost frame in the workspace, or -1. */
function attributedFrame(frameIds: number[], frames: SampleFrame[], inWorkspace: (file: string) => boolean, cache: Map<number, boolean>): number {
  for (let i = 0; i < frameIds.length; i++) {
    const id = frameIds[i];
    let inside = cache.get(id);
    if (inside === undefined) {
      const frame = frames[id];
      inside = frame.file !== undefined && frame.line !== undefined && inWorkspace(frame.file);
      cache.set(id, inside);
    }
    if (inside) return id;
  }
  return -1;
}

function addTo(map: Map<string, ClassMs>, key: string, cls: SampleClass, ms: number): ClassMs {
  let entry = map.get(key);
  if (!entry) map.set(key, (entry = zeroClassMs()));
  entry[cls] += ms;
  return entry;
}

export function attributeSamples(data: SampleData, inWorkspace: (file: string) => boolean): Attribution {
  const cache = new Map<number, boolean>();
  const lines = new Map<number, LineSamples & { allStacks: Map<string, StackShare> }>();
  const functions = new Map<string, FunctionSamples>();
  const byThread = new Map<string, ClassMs>();
  const total = zeroClassMs();
  const outside = zeroClassMs();
  for (const stack of data.stacks) {
    total[stack.cls] += stack.ms;
    addTo(byThread, stack.thread, stack.cls, stack.ms);
    const id = attributedFrame(stack.frames, data.frames, inWorkspace, cache);
    if (id < 0) {
      outside[stack.cls] += stack.ms;
      continue;
    }
    const frame = data.frames[id];
    let entry = lines.get(id);
    if (!entry) {
      // Distinct frames can share a line (several functions inlined there): merged below.
      entry = { file: frame.file!, line: frame.line!, ms: zeroClassMs(), byThread: new Map(), stacks: [], allStacks: new Map() };
      lines.set(id, entry);
    }
    entry.ms[stack.cls] += stack.ms;
    addTo(entry.byThread, stack.thread, stack.cls, stack.ms);
    const key = stack.frames.join(',');
    const share = entry.allStacks.get(key);
    if (share) share.ms += stack.ms;
    else entry.allStacks.set(key, { frames: stack.frames, ms: stack.ms });
    const fnKey = `${frame.function}\0${frame.file}`;
    let fn = functions.get(fnKey);
    if (!fn) functions.set(fnKey, (fn = { name: frame.function, file: frame.file!, ms: zeroClassMs() }));
    fn.ms[stack.cls] += stack.ms;
  }
  const merged = new Map<string, LineSamples & { allStacks: Map<string, StackShare> }>();
  for (const entry of lines.values()) {
    const key = `${entry.file}:${entry.line}`;
    const into = merged.get(key);
    if (!into) {
      merged.set(key, entry);
      continue;
    }
    addClassMs(into.ms, entry.ms);
    for (const [thread, ms] of entry.byThread) for (const cls of SAMPLE_CLASSES) addTo(into.byThread, thread, cls, ms[cls]);
    for (const [k, share] of entry.allStacks) {
      const existing = into.allStacks.get(k);
      if (existing) existing.ms += share.ms;
      else into.allStacks.set(k, share);
    }
  }
  const byWeight = (a: { ms: ClassMs }, b: { ms: ClassMs }) => totalMs(b.ms) - totalMs(a.ms);
  const lineList: LineSamples[] = [...merged.values()].map(({ allStacks, ...entry }) => ({
    ...entry,
    stacks: [...allStacks.values()].sort((a, b) => b.ms - a.ms).slice(0, STACKS_PER_LINE),
  }));
  return {
    frames: data.frames,
    lines: lineList.sort(byWeight),
    functions: [...functions.values()].sort(byWeight),
    byThread,
    total,
    outside,
  };
}

/** The lines of one source file (as the profile names it), for heat and after-line text. */
export function linesOfFile(attribution: Attribution, file: string): LineSamples[] {
  return attribution.lines.filter((entry) => entry.file === file);
}

/** A stack as text, innermost first: `fn (file:line)` or `fn [dso]`. */
export function stackText(attribution: Attribution, stack: StackShare): string[] {
  return stack.frames.map((id) => {
    const frame = attribution.frames[id];
    if (frame.file !== undefined) return `${frame.function} (${path.basename(frame.file)}:${frame.line})`;
    if (!frame.dso) return frame.function;
    return frame.dso.startsWith('[') ? `${frame.function} ${frame.dso}` : `${frame.function} [${path.basename(frame.dso)}]`;
  });
}

/** Time by class then thread, as bperf report groups it, for the tree view. */
export function byClassAndThread(attribution: Attribution): Map<SampleClass, Map<string, LineSamples[]>> {
  const result = new Map<SampleClass, Map<string, LineSamples[]>>();
  for (const cls of SAMPLE_CLASSES) {
    const threads = new Map<string, LineSamples[]>();
    for (const entry of attribution.lines) {
      for (const [thread, ms] of entry.byThread) {
        if (ms[cls] <= 0) continue;
        let list = threads.get(thread);
        if (!list) threads.set(thread, (list = []));
        list.push(entry);
      }
    }
    for (const [thread, list] of threads) list.sort((a, b) => b.byThread.get(thread)![cls] - a.byThread.get(thread)![cls]);
    if (threads.size > 0) result.set(cls, threads);
  }
  return result;
}
