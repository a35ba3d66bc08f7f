// What V8 prints with --trace-opt and --trace-deopt-verbose (node 20, V8 11.3): each TurboFan
// compilation as `[completed compiling 0x… <JSFunction NAME (sfi = 0x…)> (target TURBOFAN)[ OSR]
// - took A, B, C ms]` (the phases on the main thread, on a compiler thread, on the main thread
// again), and each deoptimization as `[bailout (kind: deopt-KIND, reason: REASON): begin.
// deoptimizing 0x… <JSFunction NAME …` followed, for eager ones, by `;;; deoptimize at <FILE:LINE:COL>`
// (and ` inlined at <…>` when the position is in an inlined function). The format is V8's
// (src/diagnostics and src/deoptimizer), not a stable interface: a line that names neither is
// not ours to read, and a trace with no compilation at all is reported by the caller.

/** One TurboFan compilation: the function (its name, and its SharedFunctionInfo's address, which tells functions of one name apart), its milliseconds (all three phases), whether on-stack replacement. */
export interface Compilation {
  name: string;
  sfi: string;
  ms: number;
  osr: boolean;
}

/** One deoptimization: eager, lazy or soft, V8's reason, the function sent back, and where when V8 says (the first position printed: inside the inlined function, when it is in one). */
export interface Deoptimization {
  kind: string;
  reason: string;
  name: string;
  at?: string;
}

export interface OptimizationTrace {
  compilations: Compilation[];
  deoptimizations: Deoptimization[];
}

const COMPILED = /^\[completed compiling 0x[0-9a-f]+ <JSFunction (?:(\S+) )?\(sfi = (0x[0-9a-f]+)\)> \(target TURBOFAN\)( OSR)? - took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/;
const BAILOUT = /^\[bailout \(kind: deopt-(\w+), reason: (.*?)\): begin\. deoptimizing 0x[0-9a-f]+ <JSFunction (?:(\S+) )?\(sfi/;
const POSITION = /^\s*;;; deoptimize at <([^>]*)>/;

export function parseOptimizationTrace(text: string): OptimizationTrace {
  const compilations: Compilation[] = [];
  const deoptimizations: Deoptimization[] = [];
  let last: Deoptimization | undefined;
  for (const line of text.split('\n')) {
    const compiled = COMPILED.exec(line);
    if (compiled) {
      compilations.push({ name: compiled[1] || '(anonymous)', sfi: compiled[2], osr: compiled[3] !== undefined, ms: Number(compiled[4]) + Number(compiled[5]) + Number(compiled[6]) });
      last = undefined;
      continue;
    }
    const bailout = BAILOUT.exec(line);
    if (bailout) {
      last = { kind: bailout[1], reason: bailout[2], name: bailout[3] || '(anonymous)' };
      deoptimizations.push(last);
      continue;
    }
    const position = POSITION.exec(line);
    if (position && last && last.at === undefined) last.at = position[1];
  }
  return { compilations, deoptimizations };
}

/** Milliseconds spent compiling a function again, after its first compilation (OSR ones included). */
export function recompileMs(compilations: readonly Compilation[]): number {
  const seen = new Set<string>();
  let ms = 0;
  for (const c of compilations) {
    if (seen.has(c.sfi)) ms += c.ms;
    else seen.add(c.sfi);
  }
  return ms;
}
