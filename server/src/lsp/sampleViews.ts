// Words for sampled time (perf, bperf) on a line: the after-line summary
// ("31% · I/O 12% · lock 6%"), the hover's breakdown by class and by thread with the
// heaviest stacks, and the tree's grouping by class and thread as bperf report groups it.

import * as path from 'node:path';
import { OffCpuClass, SAMPLE_CLASSES, SampleClass } from '../model/profile';
import { SampledClassRow, SampledThreadRow } from '../protocol/lspExt';
import { Attribution, ClassMs, StackShare, byClassAndThread, stackText, totalMs } from '../samples/attribution';
import { LineSampled } from '../workspace/profileStore';

export const CLASS_LABELS: Record<SampleClass, string> = { onCpu: 'CPU', io: 'I/O', sync: 'lock', sched: 'sched', other: 'other' };
/** How each class is told (samples/blocked.ts), in the words of the tree's tooltips. */
const CLASS_MEANINGS: Record<SampleClass, string> = {
  onCpu: 'On the CPU: the thread ran.',
  io: 'Blocked in I/O: switched out in uninterruptible sleep (D), as for disk reads and fsync.',
  sync: 'Waiting for a lock: asleep in a futex, condition variable, mutex, barrier or join.',
  sched: 'Waiting for a CPU: runnable but preempted or not yet back on a core, or its CPU taken by an interrupt handler.',
  other: 'Asleep elsewhere: sleep, poll, select, a pipe or a socket.',
};
const OFF_CPU: readonly OffCpuClass[] = ['io', 'sync', 'sched', 'other'];

function share(ms: number, of: number): string {
  if (of <= 0) return '0%';
  const pct = (ms / of) * 100;
  return pct >= 10 ? `${pct.toFixed(0)}%` : `${pct.toFixed(1)}%`;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

/** The heaviest sampled profile of a line (a line can be in several perf recordings). */
export function leadingSampled(sampled: readonly LineSampled[]): LineSampled | undefined {
  let best: LineSampled | undefined;
  for (const entry of sampled) {
    if (!best || totalMs(entry.samples.ms) / entry.profileTotalMs > totalMs(best.samples.ms) / best.profileTotalMs) best = entry;
  }
  return best;
}

/** Fraction of the line's sampled time spent off the CPU, 0..1: picks the heat's colour family. */
export function offCpuFraction(entry: LineSampled): number {
  const all = totalMs(entry.samples.ms);
  return all > 0 ? (all - entry.samples.ms.onCpu) / all : 0;
}

/** `31% · I/O 12% · lock 6%`: the line's share of all sampled time, then its off-CPU classes above 1%. */
export function sampledSummary(entry: LineSampled): string {
  const { ms } = entry.samples;
  const parts = [share(totalMs(ms), entry.profileTotalMs)];
  for (const cls of OFF_CPU) {
    if (ms[cls] / entry.profileTotalMs >= 0.01) parts.push(`${CLASS_LABELS[cls]} ${share(ms[cls], entry.profileTotalMs)}`);
  }
  return parts.join(' · ');
}

function classRow(label: string, ms: ClassMs, of: number, classes: readonly SampleClass[]): string {
  return `| ${label} | ${formatMs(totalMs(ms))} | ${classes.map((cls) => (ms[cls] > 0 ? `${formatMs(ms[cls])} (${share(ms[cls], of)})` : '')).join(' | ')} |`;
}

const CALLERS_SHOWN = 6;

/**
 * A stack as the way into the line: what the line called (libc, the kernel: collapsed to its
 * outermost frame and a count), the line's own frame, then its callers.
 */
function stackIntoLine(entry: LineSampled, stack: StackShare): string {
  const { samples, attribution } = entry;
  const texts = stackText(attribution, stack).map((f) => `\`${f}\``);
  const own = stack.frames.findIndex((id) => attribution.frames[id].file === samples.file && attribution.frames[id].line === samples.line);
  if (own < 0) return texts.slice(0, CALLERS_SHOWN + 2).join(' ← ');
  const deeper = own > 1 ? `… ${own - 1} deeper ← ` : '';
  const callee = own > 0 ? `${texts[own - 1]} ← ` : '';
  const callers = texts.slice(own, own + 1 + CALLERS_SHOWN);
  const more = texts.length > own + 1 + CALLERS_SHOWN ? ' ← …' : '';
  return `${deeper}${callee}**${callers[0]}**${callers.length > 1 ? ' ← ' : ''}${callers.slice(1).join(' ← ')}${more}`;
}

/** The hover section: time by class, by thread, and the heaviest stacks into the line. */
export function sampledHoverSection(entry: LineSampled, profileName: string): string {
  const { samples, profileTotalMs } = entry;
  const header = `**Sampled time** · ${sampledSummary(entry)} of ${formatMs(profileTotalMs)} · ${profileName}`;
  // Only the classes the line has time in: empty columns squeeze the others' headers together.
  const classes = SAMPLE_CLASSES.filter((cls) => samples.ms[cls] > 0);
  const table = [
    `| | total | ${classes.map((cls) => CLASS_LABELS[cls]).join(' | ')} |`,
    `|---|---:|${classes.map(() => '---:').join('|')}|`,
    classRow('this line', samples.ms, profileTotalMs, classes),
    ...[...samples.byThread.entries()]
      .sort((a, b) => totalMs(b[1]) - totalMs(a[1]))
      .slice(0, 8)
      .map(([thread, ms]) => classRow(`thread ${thread.replace(/\|/g, '\\|')}`, ms, profileTotalMs, classes)),
  ].join('\n');
  const stacks = samples.stacks.map((stack, i) => `${i + 1}. ${formatMs(stack.ms)}: ${stackIntoLine(entry, stack)}`);
  return [header, table, stacks.length > 0 ? `Heaviest stacks into this line (innermost first; the line in bold):\n\n${stacks.join('\n')}` : ''].filter((p) => p !== '').join('\n\n');
}

/** The "Sampled Time" tree of one profile: class → thread → line, heaviest first; `resolve` maps sources into the workspace. */
export function sampledClassRows(attribution: Attribution, resolve: (source: string) => string | undefined, toUri: (file: string) => string, maxLines = 50): SampledClassRow[] {
  const total = totalMs(attribution.total);
  const rows: SampledClassRow[] = [];
  for (const [cls, threads] of byClassAndThread(attribution)) {
    const threadRows: SampledThreadRow[] = [...threads].map(([thread, lines]) => {
      const ms = attribution.byThread.get(thread)?.[cls] ?? 0;
      return {
        thread,
        ms,
        share: total > 0 ? ms / total : 0,
        lines: lines.slice(0, maxLines).map((entry) => {
          const lineMs = entry.byThread.get(thread)![cls];
          const file = resolve(entry.file);
          return {
            label: `${path.basename(entry.file)}:${entry.line}`,
            uri: file ? toUri(file) : undefined,
            line: file ? entry.line - 1 : undefined,
            ms: lineMs,
            share: total > 0 ? lineMs / total : 0,
          };
        }),
      };
    });
    threadRows.sort((a, b) => b.ms - a.ms);
    const ms = attribution.total[cls];
    rows.push({ cls, label: CLASS_LABELS[cls], meaning: CLASS_MEANINGS[cls], ms, share: total > 0 ? ms / total : 0, threads: threadRows });
  }
  return rows.sort((a, b) => b.ms - a.ms);
}
