// Short names for long profile paths: the fewest trailing path components that keep every
// name unique, as COZ's viewer does (ui.ts get_minimum_parts_for_unique_path).

export function shortNames(locations: Iterable<string>): Map<string, string> {
  const unique = [...new Set(locations)];
  const parts = unique.map((l) => l.split('/'));
  const names = new Map<string, string>();
  let depth = 1;
  let pending = unique.map((_, i) => i);
  while (pending.length > 0) {
    const suffix = (i: number) => parts[i].slice(-depth).join('/');
    const counts = new Map<string, number>();
    for (const i of unique.keys()) counts.set(suffix(i), (counts.get(suffix(i)) ?? 0) + 1);
    pending = pending.filter((i) => {
      if (counts.get(suffix(i)) === 1 || depth >= parts[i].length) {
        names.set(unique[i], suffix(i));
        return false;
      }
      return true;
    });
    depth++;
  }
  return names;
}
