// The traces named on a validation tool's command line, opened: a usage line when there are
// none, and each trace that cannot be opened named on stderr (exit status 1) and skipped.

import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { openOtf2Archive } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { cpuTimeMetrics } = require(path.join(root, 'out/server/src/pem/otf2Ops.js'));

/** `{ trace, archive }` for each TRACE.otf2 argument of `node validation/pem/<script> TRACE.otf2...`. */
export function* openedTraces(script) {
  const traces = process.argv.slice(2);
  if (traces.length === 0) {
    process.stderr.write(`usage: node validation/pem/${script} TRACE.otf2...\n`);
    process.exit(2);
  }
  for (const trace of traces) {
    const archive = openOtf2Archive(trace);
    if (archive.fatal) {
      process.stderr.write(`${archive.fatal}\n`);
      process.exitCode = 1;
      continue;
    }
    yield { trace, archive };
  }
}

/** As openedTraces, with each trace's CPU-clock metrics; a trace without them (Score-P's) is named on stderr and skipped. */
export function* tracesWithCpuClock(script) {
  for (const { trace, archive } of openedTraces(script)) {
    const cpuMetrics = cpuTimeMetrics(archive);
    if (cpuMetrics.size === 0) {
      process.stderr.write(`${trace}: no CPU_TIME metric (the recorder's; a Score-P trace has none): nothing to measure\n`);
      process.exitCode = 1;
      continue;
    }
    yield { trace, archive, cpuMetrics };
  }
}
