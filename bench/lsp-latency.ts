/**
 * LSP response times with the large profile loaded: starts dist/server.js over stdio on a
 * workspace (bench/data/ws) holding the profile and source files at the profile's paths
 * (/build/src/moduleN.c maps to ws/src/moduleN.c by path suffix), waits for the `loaded`
 * status, then sends sequential codeLens, hover and causalLens/fileHeat requests and prints
 * p50/p95/p99/max per request type. Times are round trips as the client sees them (JSON
 * encoding and stdio included). Last, it reports the longest hover wait while the server
 * re-reads the profile after a change notification (as when COZ appends to it).
 *
 *   node out/bench/lsp-latency.js [--file bench/data/large.coz] [--requests 2000] [--seed 7]
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigurationRequest,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  InitializeRequest,
  InitializedNotification,
  ProtocolConnection,
  RegistrationRequest,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { mulberry32 } from '../server/src/causal/random';
import * as ext from '../server/src/protocol/lspExt';
import { FILES, MAX_LINE } from './generate-profile';
import { DEFAULT_PROFILE, flag, ms, quantile, record, repoRoot } from './stats';

/** A workspace with the profile (hard-linked, else copied) and FILES C files of MAX_LINE+ lines. */
function prepareWorkspace(profile: string): { root: string; sources: string[] } {
  const root = path.join(path.dirname(profile), 'ws');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  const sources: string[] = [];
  const body = Array.from({ length: MAX_LINE + 10 }, (_, i) => `  work(${i}); /* line ${i + 1} */`).join('\n') + '\n';
  for (let n = 0; n < FILES; n++) {
    const file = path.join(root, 'src', `module${n}.c`);
    if (!fs.existsSync(file)) fs.writeFileSync(file, body);
    sources.push(pathToFileURL(file).href);
  }
  const linked = path.join(root, 'profile.coz');
  const same = fs.existsSync(linked) && fs.statSync(linked).ino === fs.statSync(profile).ino;
  if (!same) {
    fs.rmSync(linked, { force: true });
    try {
      fs.linkSync(profile, linked);
    } catch {
      fs.copyFileSync(profile, linked);
    }
  }
  return { root, sources };
}

interface Server {
  process: ChildProcess;
  connection: ProtocolConnection;
  loadMs: number;
  status: ext.StatusParams;
  /** Resolves at the next `loaded` (or `error`) status. */
  nextLoaded(): Promise<ext.StatusParams>;
}

async function startServer(root: string): Promise<Server> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist/server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => ({})));
  connection.onRequest(RegistrationRequest.type, () => undefined);
  connection.onRequest('workspace/codeLens/refresh', () => undefined);
  connection.onNotification('window/logMessage', () => undefined);
  connection.onNotification('window/showMessage', () => undefined);
  connection.onNotification('textDocument/publishDiagnostics', () => undefined);
  let waiters: ((s: ext.StatusParams) => void)[] = [];
  connection.onNotification(ext.status.method, (s: ext.StatusParams) => {
    if (s.state !== 'loaded' && s.state !== 'error') return;
    for (const resolve of waiters) resolve(s);
    waiters = [];
  });
  const nextLoaded = () => new Promise<ext.StatusParams>((resolve) => waiters.push(resolve));
  const loaded = nextLoaded();
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'ws' }],
    capabilities: { workspace: { configuration: true, codeLens: { refreshSupport: true } } },
  });
  const start = performance.now();
  await connection.sendNotification(InitializedNotification.type, {});
  const status = await loaded;
  return { process: child, connection, loadMs: performance.now() - start, status, nextLoaded };
}

/** Peak resident memory of a process, from /proc (Linux). */
function peakRssMiB(pid: number): string {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? (Number(match[1]) / 1024).toFixed(0) : '?';
  } catch {
    return '?';
  }
}

interface Timed {
  times: number[];
  /** Mean size of a response as JSON, a check that the requests did hit data. */
  meanBytes: number;
}

async function timeRequests(count: number, send: () => Promise<unknown>): Promise<Timed> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const result = await send();
    times.push(performance.now() - start);
    bytes += JSON.stringify(result ?? null).length;
  }
  return { times, meanBytes: bytes / count };
}

async function main(): Promise<void> {
  const profile = path.resolve(flag('file', DEFAULT_PROFILE));
  const requests = Number(flag('requests', '2000'));
  const random = mulberry32(Number(flag('seed', '7')));
  const { root, sources } = prepareWorkspace(profile);
  const server = await startServer(root);
  const { connection, status } = server;
  try {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const heat = (uri: string) => connection.sendRequest(ext.fileHeat.method, { uri }) as Promise<ext.FileHeatResult>;
    // Hot lines per file, from the server itself (untimed).
    const hot: { uri: string; line: number }[] = [];
    for (const uri of sources) for (const l of (await heat(uri)).lines) hot.push({ uri, line: l.line });
    const withData = [...new Set(hot.map((h) => h.uri))];

    const results: [string, Timed][] = [
      ['codeLens', await timeRequests(requests, () => connection.sendRequest('textDocument/codeLens', { textDocument: { uri: pick(withData) } }))],
      ['hover', await timeRequests(requests, () => {
        const { uri, line } = pick(hot);
        return connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 2 } });
      })],
      ['fileHeat', await timeRequests(requests, () => heat(pick(withData)))],
    ];
    // Not a goal, but what a user sees while COZ appends to the profile: the server re-reads it.
    const reloaded = server.nextLoaded();
    let reloading = true;
    void reloaded.then(() => (reloading = false));
    const reloadStart = performance.now();
    await connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: pathToFileURL(path.join(root, 'profile.coz')).href, type: FileChangeType.Changed }],
    });
    const duringReload: number[] = [];
    while (reloading) {
      const start = performance.now();
      const { uri, line } = pick(hot);
      await connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 2 } });
      duringReload.push(performance.now() - start);
    }
    const reloadMs = performance.now() - reloadStart;

    console.log(
      `lsp: initial load ${(server.loadMs / 1000).toFixed(2)} s (${status.experiments} experiments, ${status.curves} curves, state ${status.state}); ` +
        `server peak RSS ${peakRssMiB(server.process.pid!)} MiB; ${hot.length} hot lines in ${withData.length} files`,
    );
    record({ what: 'Server: initial load of the workspace (scan, read, curves, index)', value: `${(server.loadMs / 1000).toFixed(2)} s` });
    for (const [name, { times, meanBytes }] of results) {
      const sorted = [...times].sort((a, b) => a - b);
      const p99 = quantile(sorted, 0.99);
      record({
        what: `${name === 'fileHeat' ? 'causalLens/fileHeat (inlay)' : name} round trip p99, ${times.length} requests`,
        value: `${ms(p99)} ms (p50 ${ms(quantile(sorted, 0.5))}, max ${ms(sorted[sorted.length - 1])})`,
        goal: '< 20 ms',
        met: p99 < 20,
      });
      console.log(
        `lsp ${name} (${times.length}) ms: p50 ${ms(quantile(sorted, 0.5))}, p95 ${ms(quantile(sorted, 0.95))}, ` +
          `p99 ${ms(quantile(sorted, 0.99))}, max ${ms(sorted[sorted.length - 1])}, first ${ms(times[0])}; ` +
          `mean response ${(meanBytes / 1024).toFixed(1)} KiB`,
      );
    }
    record({ what: 'hover: longest wait while the server re-reads the changed profile', value: `${ms(Math.max(...duringReload))} ms` });
    console.log(
      `lsp hover during a reload of the profile (${duringReload.length} requests over ${(reloadMs / 1000).toFixed(2)} s, ` +
        `300 ms debounce included): max ${ms(Math.max(...duringReload))} ms`,
    );
  } finally {
    connection.dispose();
    server.process.kill();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
