// Long synchronous work in the language server (reading a trace's first operations, a replay)
// gives the event loop a turn every few tens of milliseconds, so that the server answers other
// requests, reports progress and notices a cancellation. Counted in time, not in operations: an
// operation costs 0.5 µs at 8 ranks and 3 µs at 4,096 (docs/pem.md, Performance), and a count
// fitted to the first blocked the server for a second at the second.

import { performance } from 'node:perf_hooks';

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}

/** Milliseconds of work between turns of the event loop. */
const TURN_EVERY_MS = 50;
/**
 * Operations between looks at the clock (Pace.counted). A look costs a clock read; 4,096 cold
 * operations (a prediction's first) took 70 ms.
 */
const OPERATIONS_PER_LOOK = 1024;
/** Operations of a replay's engine per turn once warm: the engines sharing a trace's reads take turns of this many (index.ts). */
export const OPERATIONS_PER_TURN = 4096;

export class Pace {
  private last = performance.now();
  private operations = 0;

  constructor(private readonly cancel?: () => boolean) {}

  /** Whether a turn is due: call it every few thousand operations. */
  due(): boolean {
    return performance.now() - this.last >= TURN_EVERY_MS;
  }

  /** Counts one operation of a loop; true, every few thousand, when a turn is due (then `await pause()`). */
  counted(): boolean {
    return ++this.operations % OPERATIONS_PER_LOOK === 0 && this.due();
  }

  /** Gives the event loop a turn; throws CancelledError when the work was cancelled. */
  async pause(): Promise<void> {
    if (this.cancel?.()) throw new CancelledError();
    await new Promise((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}
