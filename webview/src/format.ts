// Number formats the panel shows; DOM-free, so the tests format expectations the same way.

export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds >= 100) return `${seconds.toFixed(1)} s`;
  if (seconds >= 1) return `${seconds.toFixed(3)} s`;
  if (seconds >= 1e-3) return `${(seconds * 1e3).toFixed(2)} ms`;
  return `${(seconds * 1e6).toFixed(1)} µs`;
}

/** "73.39–73.91 ms": a range, its unit once when both ends share it. */
export function formatSecondsRange(low: number, high: number): string {
  const [a, b] = [formatSeconds(low), formatSeconds(high)];
  const unit = (text: string) => text.slice(text.lastIndexOf(' '));
  return unit(a) === unit(b) && a.includes(' ') ? `${a.slice(0, a.lastIndexOf(' '))}–${b}` : `${a} – ${b}`;
}
