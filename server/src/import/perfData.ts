// perf.data, the file `perf record` writes (format: tools/perf/Documentation/
// perf.data-file-format.txt; it starts with the magic "PERFILE2"), is read through the
// installed perf: `perf script` prints it as text for PerfScriptParser, with the fields
// the attribution needs per event type (a field one type lacks would abort the run), the
// mmap, context-switch and lost-records sideband records, and undemangled names. `perf buildid-list`
// gives the build ids recorded for each binary, to notice a binary rebuilt since.

import { spawn, execFile } from 'child_process';
import { promisify } from 'util';
import { Profile, emptySkipCounts } from '../model/profile';
import { PerfScriptParser } from './perfScript';
import { ProfileReader } from '.';

export const PERF_DATA_MAGIC = 'PERFILE2';

const SAMPLE_FIELDS = 'comm,pid,tid,time,period,event,ip,sym,symoff,dso';
const TRACE_FIELDS = 'comm,pid,tid,time,event,trace,ip,sym,symoff,dso';

/** The `perf script` argv for a perf.data file. */
export function perfScriptArgs(file: string): string[] {
  return [
    'script', '-i', file,
    '-F', `trace:${TRACE_FIELDS}`, '-F', `sw:${SAMPLE_FIELDS}`, '-F', `hw:${SAMPLE_FIELDS}`,
    '--show-mmap-events', '--show-switch-events', '--show-lost-events', '--no-demangle',
  ];
}

const run = promisify(execFile);

function failed(file: string, message: string): Profile {
  return { source: file, format: 'perf-data', runs: [], experiments: [], problems: [{ file, line: 1, severity: 'error', message }], skipped: emptySkipCounts() };
}

async function perfVersion(perf: string): Promise<string | undefined> {
  const { stdout } = await run(perf, ['--version']);
  return /perf version (\S+)/.exec(stdout)?.[1];
}

async function recordedBuildIds(perf: string, file: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  try {
    const { stdout } = await run(perf, ['buildid-list', '-i', file], { maxBuffer: 16 * 1024 * 1024 });
    for (const line of stdout.split('\n')) {
      const match = /^([0-9a-f]+) (\/.*)$/.exec(line.trim());
      if (match) ids.set(match[2], match[1]);
    }
  } catch {
    // Without build ids the binaries are used as found; nothing is lost but the check.
  }
  return ids;
}

/** Reads a perf.data file by streaming `perf script` into the perf script importer. */
export async function readPerfData(file: string, options: { perf?: string } = {}): Promise<Profile> {
  const perf = options.perf ?? 'perf';
  let version: string | undefined;
  try {
    version = await perfVersion(perf);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return failed(file, missing ? `${file} is a perf.data file, and reading it needs perf, which is not installed (Debian: apt-get install linux-perf); or give the output of \`perf script\` instead` : `cannot run ${perf}: ${(error as Error).message}`);
  }
  const buildIds = await recordedBuildIds(perf, file);
  const parser = new PerfScriptParser(file, { buildIds, perfVersion: version });
  const reader = new ProfileReader(file, parser);
  const child = spawn(perf, perfScriptArgs(file), { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (stderr.join('').length < 4096) stderr.push(text);
  });
  child.stdout.setEncoding('latin1');
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  for await (const chunk of child.stdout) reader.push(chunk as string);
  const code = await exit;
  const profile = reader.end();
  profile.format = 'perf-data';
  const messages = stderr.join('').split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (code !== 0) {
    const why = messages.find((m) => /incompatible|not a perf|Permission|failed|error/i.test(m)) ?? messages[0] ?? `exit code ${code}`;
    profile.problems.unshift({ file, line: 1, severity: 'error', message: `perf script could not read ${file}: ${why}` });
  } else {
    for (const message of messages.slice(0, 5)) profile.problems.push({ file, line: 1, severity: 'warning', message: `perf script: ${message}` });
  }
  return profile;
}
