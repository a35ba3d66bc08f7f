// A command's progress on a terminal: one line on stderr, redrawn in place, erased when the
// command is done. Only on a terminal: a log or a pipe gets no carriage returns, as git and curl
// do. A what-if prediction of a large trace runs for tens of seconds (a 10⁷-event trace of 4,096
// ranks, about 20 s), long enough to look hung without it.

/** Redraws at most this often. */
const REDRAW_MS = 100;

export interface ProgressLine {
  /** The fraction done, 0 to 1. */
  update(fraction: number): void;
  /** Erases the line. */
  done(): void;
}

/** "LABEL: 42%" on `write`'s terminal, redrawn when the percentage changes, at most every REDRAW_MS (`now` in ms). */
export function progressLine(label: string, write: (text: string) => void, now: () => number = () => performance.now()): ProgressLine {
  let shown = -1;
  let drawnAt = -Infinity;
  return {
    update(fraction) {
      const percent = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
      const time = now();
      if (percent === shown || time - drawnAt < REDRAW_MS) return;
      shown = percent;
      drawnAt = time;
      write(`\r${label}: ${percent}%`);
    },
    done() {
      if (shown >= 0) write('\r\x1b[K');
      shown = -1;
    },
  };
}
