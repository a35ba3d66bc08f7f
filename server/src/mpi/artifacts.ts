// Where the MPI parts built by scripts/build-mpi.sh live: build/mpi/ in the checkout, or
// $CAUSAL_LENS_MPI_BUILD. Every lookup says how to build what is missing.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const RECORDER_LIBRARY = 'libcausal-lens-recorder.so';
export const OTF2_CONVERTER = 'causal-lens-otf2';
export const PINGPONG = 'causal-lens-pingpong';

/**
 * The checkout's root: the nearest folder above this module holding scripts/build-mpi.sh.
 * This file runs compiled (out/server/src/mpi/) and bundled (dist/cli.js, the extension's CLI).
 */
export function repositoryRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'scripts', 'build-mpi.sh'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(__dirname, '..', '..', '..', '..');
  }
}

export function mpiBuildDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CAUSAL_LENS_MPI_BUILD || path.join(repositoryRoot(), 'build', 'mpi');
}

export class MissingBuildError extends Error {}

/** The path of a built file; throws a message naming the build script when it is absent. */
export function builtFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = path.join(mpiBuildDir(env), name);
  if (!fs.existsSync(file)) {
    throw new MissingBuildError(`${file} is missing: run scripts/build-mpi.sh (it needs mpicc and otf2-config)`);
  }
  return file;
}
