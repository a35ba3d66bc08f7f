// Is COZ installed, which version, and where is its runtime library?
//
// `coz` is a Python script that LD_PRELOADs libcoz.so into the program. Debian's 0.2.2 script
// has no --version (argparse exits 2 on it); later scripts print `coz <version>`. So the version
// comes from, in order: `coz --version`, the Debian package owning the script, the script's
// text. The version matters for the output: 0.2.4 and later write JSON Lines by default, earlier
// ones tab-separated records (the importer reads both).

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const INSTALL_HINT =
  'Install COZ: `sudo apt-get install coz-profiler` (Debian/Ubuntu), or build it from ' +
  'https://github.com/plasma-umass/coz and put `coz` on the PATH.';

export interface CozInstallation {
  /** `coz` found on the PATH, runnable, with its runtime library. */
  ok: boolean;
  /** Absolute path of the `coz` script, when found. */
  cozPath?: string;
  /** e.g. `0.2.2-2`; undefined when it could not be told. */
  version?: string;
  /** How the version was found. */
  versionFrom?: 'coz --version' | 'dpkg' | 'script text';
  /** Profile format this COZ writes by default. */
  outputFormat: 'tsv' | 'jsonl' | 'unknown';
  /** libcoz.so the script will preload, when found. */
  libcozPath?: string;
  /** What is missing or broken, one sentence each, ending with how to fix it. */
  problems: string[];
}

/** Absolute path of an executable `name` on `pathVariable`, as a shell would find it. */
export function findOnPath(name: string, pathVariable: string | undefined, cwd = process.cwd()): string | undefined {
  if (name.includes('/')) {
    const file = path.resolve(cwd, name);
    return isExecutableFile(file) ? file : undefined;
  }
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.resolve(cwd, dir, name);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a short query program (argv, no shell); never throws. */
function query(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Where the script looks for libcoz.so, in its own order (0.2.2 and HEAD `_coz_run`). */
function libcozCandidates(cozPath: string): string[] {
  const prefix = path.dirname(fs.realpathSync(cozPath));
  const candidates = [
    path.join(prefix, '..', 'lib64', 'libcoz.so'),
    path.join(prefix, '..', 'lib', 'libcoz.so'),
    path.join(prefix, '..', 'lib64', 'coz-profiler', 'libcoz.so'),
    path.join(prefix, '..', 'lib', 'coz-profiler', 'libcoz.so'),
    path.join(prefix, 'libcoz', 'libcoz.so'),
    path.join(prefix, 'build', 'libcoz', 'libcoz.so'),
  ];
  // HEAD also searches multiarch folders (lib/x86_64-linux-gnu/libcoz.so).
  const lib = path.join(prefix, '..', 'lib');
  try {
    for (const entry of fs.readdirSync(lib)) candidates.push(path.join(lib, entry, 'libcoz.so'));
  } catch {
    // no lib folder next to the script
  }
  return candidates.map((candidate) => path.normalize(candidate));
}

/** `0.2.2-2` → [0, 2, 2]; undefined when it does not start with a version number. */
export function parseVersion(version: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

/** JSON Lines became the default output in 0.2.4 (plasma-umass/coz commit 7f96c46). */
function formatOf(version: string | undefined, scriptText: string): CozInstallation['outputFormat'] {
  const parts = version ? parseVersion(version) : undefined;
  if (parts) {
    const [major, minor, patch] = parts;
    const atLeast024 = major > 0 || minor > 2 || (minor === 2 && patch >= 4);
    return atLeast024 ? 'jsonl' : 'tsv';
  }
  // Scripts that write JSON Lines offer --legacy-format to get the old records back.
  if (scriptText.includes('--legacy-format')) return 'jsonl';
  return scriptText.includes('--fixed-speedup') ? 'tsv' : 'unknown';
}

async function findVersion(
  cozPath: string,
  scriptText: string,
  env: NodeJS.ProcessEnv,
): Promise<Pick<CozInstallation, 'version' | 'versionFrom'>> {
  const own = await query(cozPath, ['--version'], env);
  const printed = /\bcoz\s+v?(\d+\.\d+(?:\.\d+)?\S*)/.exec(own.stdout + own.stderr);
  if (own.code === 0 && printed) return { version: printed[1], versionFrom: 'coz --version' };

  const dpkgQuery = findOnPath('dpkg-query', env.PATH) ?? findOnPath('dpkg-query', '/usr/bin:/bin');
  if (dpkgQuery) {
    const owner = await query(dpkgQuery, ['-S', fs.realpathSync(cozPath)], env);
    const pkg = owner.code === 0 ? /^([^:\s,]+)[^:]*:/.exec(owner.stdout)?.[1] : undefined;
    if (pkg) {
      const installed = await query(dpkgQuery, ['-W', '-f=${Version}', pkg], env);
      if (installed.code === 0 && installed.stdout.trim() !== '') {
        return { version: installed.stdout.trim(), versionFrom: 'dpkg' };
      }
    }
  }

  // A source build: pyproject-era scripts read their version from pyproject.toml.
  const declared = /version\s*=\s*['"](\d+\.\d+\.\d+)['"]/.exec(scriptText);
  if (declared) return { version: declared[1], versionFrom: 'script text' };
  return {};
}

/**
 * Finds `coz` on `env.PATH` (default: this process's environment) and checks what it needs:
 * an interpreter for the script and libcoz.so.
 */
export async function detectCoz(env: NodeJS.ProcessEnv = process.env): Promise<CozInstallation> {
  const cozPath = findOnPath('coz', env.PATH);
  if (!cozPath) {
    return { ok: false, outputFormat: 'unknown', problems: [`\`coz\` is not on the PATH. ${INSTALL_HINT}`] };
  }
  const problems: string[] = [];
  let scriptText = '';
  try {
    scriptText = fs.readFileSync(cozPath, 'latin1').slice(0, 512 * 1024);
  } catch {
    problems.push(`${cozPath} cannot be read. ${INSTALL_HINT}`);
  }

  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(scriptText);
  if (shebang) {
    // `#!/usr/bin/env python3` needs python3 on the PATH; `#!/usr/bin/python3` needs that file.
    const interpreter = path.basename(shebang[1]) === 'env' && shebang[2] ? findOnPath(shebang[2], env.PATH) : findOnPath(shebang[1], undefined);
    if (!interpreter) {
      const wanted = path.basename(shebang[1]) === 'env' && shebang[2] ? shebang[2] : shebang[1];
      problems.push(`${cozPath} is a script for ${wanted}, which is not installed: \`sudo apt-get install python3\`.`);
    }
  }

  const libcozPath = libcozCandidates(cozPath).find((candidate) => fs.existsSync(candidate));
  if (!libcozPath && env.COZ_PRELOAD === undefined) {
    problems.push(`${cozPath} is there, but its runtime library libcoz.so is not (looked next to it, in ../lib and ../lib/coz-profiler). ${INSTALL_HINT}`);
  }

  const found = problems.length === 0 ? await findVersion(cozPath, scriptText, env) : {};
  return {
    ok: problems.length === 0,
    cozPath,
    ...found,
    outputFormat: formatOf(found.version, scriptText),
    libcozPath: libcozPath ?? env.COZ_PRELOAD,
    problems,
  };
}
