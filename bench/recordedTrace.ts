// A trace recorded for a bench: samples/mpi/halo on 8 ranks under the recorder
// (scripts/build-mpi.sh builds both), for as many iterations as give about the events asked for.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtFile } from '../server/src/mpi/artifacts';
import { recordTrace } from '../server/src/mpi/recordTrace';

/** OTF2 events the recorder writes per iteration of `halo 8000 N` on 8 ranks (3.72 M for N = 15000). */
const HALO_EVENTS_PER_ITERATION = 248;

/** `use` of the archive of a trace of about `events` OTF2 events, deleted afterwards. */
export async function withRecordedTrace<T>(events: number, use: (archive: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-bench-pem-'));
  try {
    const iterations = Math.max(1, Math.round(events / HALO_EVENTS_PER_ITERATION));
    const summary = await recordTrace({ np: 8, outDir: dir, program: builtFile('halo'), args: ['8000', String(iterations)] });
    if (summary.truncated) throw new Error(`the bench trace is truncated: ${summary.truncated}`);
    // The spool is only the recorder's; the archive is what the pipeline reads. The kernel's
    // writeback of a fresh 1.2 GB trace competes with reading it (100 M events: 4.6 M events/s
    // right after recording, 5.7 once written out), so it is flushed before it is read.
    fs.rmSync(path.join(dir, 'spool'), { recursive: true, force: true });
    execFileSync('sync');
    return await use(summary.archive);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
