// Blocked samples from stock perf, in the manner of bperf (seed 002): every interval a
// thread spends switched out becomes one sample on the stack it had at switch-out,
// weighted by the interval's length. The class comes from the state at switch-out:
// runnable (preempted) waits for a CPU (sched); D is I/O; S in a futex, condition,
// mutex or join is sync; any other S (sleep, poll) is other. When the wakeup was
// recorded (sched_waking from one of the program's own threads), the time from wakeup
// to switch-in is a wait for a CPU, as bperf splits it. A clock sample taken while an
// interrupt's handler ran on the thread's CPU (its stack enters through an interrupt) is a
// wait for a CPU too: the kernel leaves interrupt time out of a thread's CPU time
// (IRQ time accounting), while perf's task clock counts it for whichever thread was
// current. Under another process's disk load, such samples were 26 of the 46 that perf took
// in a program's fsync calls on this project's VM (test/unit/record.test.ts).

import { OffCpuClass } from '../model/profile';
import { SampleBuilder } from './builder';

const SYNC_FUNCTIONS = /futex|pthread_cond|pthread_mutex|pthread_rwlock|pthread_barrier|pthread_join|pthread_timedjoin|sem_wait|sem_timedwait|__lll_lock|lll_lock/;

/** The class of a switch-out from its `prev_state` and the function names of its stack. */
export function switchOutClass(state: string | undefined, preempted: boolean, functionNames: readonly string[]): OffCpuClass {
  if (preempted || state?.startsWith('R')) return 'sched';
  if (state === undefined) return 'other';
  if (state.startsWith('D')) return 'io';
  if (state.startsWith('S') && functionNames.some((name) => SYNC_FUNCTIONS.test(name))) return 'sync';
  return 'other';
}

/**
 * Kernel entry points of device and system interrupts (x86-64 since Linux 5.8, older x86,
 * arm64); exceptions such as page faults are the thread's own work and are not here.
 */
const INTERRUPT_ENTRIES = /^(asm_common_interrupt|asm_sysvec_\w+|common_interrupt|do_IRQ|(smp_)?apic_timer_interrupt|el[01]h?_64_irq|el[01]_irq|el[01]_interrupt)$/;

/** Whether a stack was taken inside an interrupt's handler: its clock sample is sched, see the header. */
export function enteredByInterrupt(functionNames: readonly string[]): boolean {
  return functionNames.some((name) => INTERRUPT_ENTRIES.test(name));
}

interface SwitchedOut {
  thread: string;
  outMs: number;
  cls: OffCpuClass;
  frames: number[];
  wakeMs?: number;
}

export class BlockedSamples {
  private readonly out = new Map<number, SwitchedOut>();
  /** Each thread's last on-CPU stack, for switch records that carry none. */
  private readonly lastStack = new Map<number, number[]>();

  constructor(private readonly builder: SampleBuilder) {}

  /** A `sched:sched_switch` of `tid` (with its stack) or a bare PERF_RECORD_SWITCH OUT. */
  switchOut(tid: number, thread: string, timeMs: number, state: string | undefined, preempted: boolean, frames: number[] | undefined, functionNames: readonly string[]): void {
    const pending = this.out.get(tid);
    if (pending && frames === undefined) {
      // The SWITCH OUT record that follows the tracepoint of the same switch: it is
      // written after the tracepoint's own sample (an 8 KB stack copy), closer to the switch.
      if (preempted) pending.cls = 'sched';
      if (timeMs >= pending.outMs) pending.outMs = timeMs;
      return;
    }
    if (pending) this.builder.skip('switchOutWithoutSwitchIn');
    const stack = frames ?? this.lastStack.get(tid);
    if (stack === undefined) {
      this.builder.skip('switchOutWithoutStack');
      return;
    }
    this.out.set(tid, { thread, outMs: timeMs, cls: switchOutClass(state, preempted, functionNames), frames: stack });
  }

  wakeup(tid: number, timeMs: number): void {
    const pending = this.out.get(tid);
    if (pending && pending.wakeMs === undefined && timeMs >= pending.outMs) pending.wakeMs = timeMs;
  }

  /** The thread runs again: a PERF_RECORD_SWITCH IN, or any record it made itself. */
  switchIn(tid: number, timeMs: number): void {
    const pending = this.out.get(tid);
    if (!pending) return;
    this.out.delete(tid);
    if (!(timeMs >= pending.outMs)) {
      this.builder.skip('switchInBeforeSwitchOut');
      return;
    }
    const wake = pending.cls !== 'sched' && pending.wakeMs !== undefined ? Math.min(pending.wakeMs, timeMs) : timeMs;
    this.builder.add(pending.thread, pending.cls, pending.frames, wake - pending.outMs);
    this.builder.add(pending.thread, 'sched', pending.frames, timeMs - wake);
  }

  onCpu(tid: number, timeMs: number | undefined, frames: number[]): void {
    if (timeMs !== undefined) this.switchIn(tid, timeMs);
    this.lastStack.set(tid, frames);
  }

  /** Threads still switched out when the recording ended (the program exited) are not counted. */
  finish(): void {
    if (this.out.size > 0) this.builder.skip('switchOutAtEnd', this.out.size);
    this.out.clear();
  }
}
