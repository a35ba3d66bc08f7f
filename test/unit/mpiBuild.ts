// The MPI programs the unit tests run (scripts/build-mpi.sh: the recorder, the calibration
// ping-pong, samples/mpi), built into this checkout's build/: in a directory shared by checkouts,
// make took another checkout's newer binaries for up to date and a test ran programs built from
// other sources.

import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
export const MPI_BUILD = path.join(ROOT, 'build/mpi-test');

/** Builds what changed (make) and points the recorder's launcher at the build. */
export function buildMpi(): void {
  process.env.CAUSAL_LENS_MPI_BUILD = MPI_BUILD;
  execFileSync(path.join(ROOT, 'scripts/build-mpi.sh'), { env: { ...process.env, CAUSAL_LENS_MPI_BUILD: MPI_BUILD }, stdio: 'pipe' });
}
