// What --keep DIR keeps of a validation run (its traces and DIR/measured.json), so that --kept DIR
// can predict from the same runs again after a model change, without measuring.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The run's working directory: DIR with --keep, else a temporary one named after `prefix`. */
export function workDir(keep, prefix) {
  if (!keep) return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.mkdirSync(keep, { recursive: true });
  return keep;
}

export function writeKept(dir, measured) {
  fs.writeFileSync(path.join(dir, 'measured.json'), JSON.stringify(measured));
}

/** What --keep DIR kept; a message naming the missing file (and no stack) when there is none. */
export function readKept(dir) {
  const file = path.join(dir, 'measured.json');
  if (!fs.existsSync(file)) {
    process.stderr.write(`--kept ${dir}: ${file} does not exist (a run with --keep ${dir} makes it)\n`);
    process.exit(2);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}
