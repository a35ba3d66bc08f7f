// What --keep DIR keeps of a validation run (its traces and DIR/measured.json), so that --kept DIR
// can predict from the same runs again after a model change, without measuring.

import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { describeMachine } = createRequire(import.meta.url)(path.join(root, 'out/bench/machine.js'));

/** The run's working directory: DIR with --keep, else a temporary one named after `prefix`. */
export function workDir(keep, prefix) {
  if (!keep) return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.mkdirSync(keep, { recursive: true });
  return keep;
}

export function writeKept(dir, measured, machine) {
  fs.writeFileSync(path.join(dir, 'measured.json'), JSON.stringify(measured));
  fs.writeFileSync(path.join(dir, 'machine.txt'), `${machine}\n`);
}

/** The machine the runs were measured on: this one, or the one --kept DIR recorded. */
export function measuredOn(kept) {
  if (!kept) return describeMachine();
  const file = path.join(kept, 'machine.txt');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : 'not recorded with the kept runs';
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
