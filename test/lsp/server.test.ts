// The language server over stdio, driven by the LSP protocol library the client uses:
// initialize on a temp workspace holding a real COZ profile, then lenses, hovers, the
// custom requests, problem reporting, and live reload when the profile changes.

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  CodeLens,
  ConfigurationRequest,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  Hover,
  InitializeRequest,
  InitializedNotification,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  RegistrationRequest,
  ShowMessageNotification,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import * as ext from '../../server/src/protocol/lspExt';

const REPO = path.join(__dirname, '../../..');
const FIXTURES = path.join(REPO, 'test/fixtures/coz');

let server: ChildProcess;
let connection: ProtocolConnection;
let workspace: string;
let sourceUri: string;
let profilePath: string;
const statuses: ext.StatusParams[] = [];
const diagnostics = new Map<string, PublishDiagnosticsParams>();
const messages: string[] = [];
const settings = { minPoints: 10 };

function nextStatus(predicate: (s: ext.StatusParams) => boolean, timeoutMs = 20_000): Promise<ext.StatusParams> {
  const seen = statuses.length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching status; last: ${JSON.stringify(statuses.at(-1))}`)), timeoutMs);
    const poll = setInterval(() => {
      const match = statuses.slice(seen).find(predicate);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match);
      }
    }, 20);
  });
}

before(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-lsp-'));
  // The profile names /home/dev/prog/prog.c: the server must find prog/prog.c by suffix.
  fs.mkdirSync(path.join(workspace, 'prog'));
  fs.copyFileSync(path.join(FIXTURES, 'coz-prog.c'), path.join(workspace, 'prog/prog.c'));
  profilePath = path.join(workspace, 'prog/profile.coz');
  fs.copyFileSync(path.join(FIXTURES, 'coz-toy-2runs-15000iters.coz'), profilePath);
  sourceUri = pathToFileURL(path.join(workspace, 'prog/prog.c')).href;

  server = spawn(process.execPath, [path.join(REPO, 'dist/server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  connection = createProtocolConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => settings));
  connection.onRequest(RegistrationRequest.type, () => undefined);
  connection.onRequest('workspace/codeLens/refresh', () => undefined);
  connection.onNotification(ext.status.method, (s: ext.StatusParams) => {
    statuses.push(s);
  });
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
    diagnostics.set(p.uri, p);
  });
  connection.onNotification(ShowMessageNotification.type, (m) => {
    messages.push(m.message);
  });
  connection.listen();

  const loaded = nextStatus((s) => s.state === 'loaded' || s.state === 'error');
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
    capabilities: {
      workspace: { configuration: true, codeLens: { refreshSupport: true }, didChangeWatchedFiles: { dynamicRegistration: true } },
    },
  });
  await connection.sendNotification(InitializedNotification.type, {});
  await loaded;
});

after(() => {
  connection?.dispose();
  server?.kill();
  fs.rmSync(workspace, { recursive: true, force: true });
});

test('the workspace profile loads by itself and the status says what was loaded', () => {
  const last = statuses.at(-1)!;
  assert.equal(last.state, 'loaded');
  assert.equal(last.profiles, 1);
  assert.equal(last.experiments, 460);
  assert.equal(last.curves, 2);
});

test('code lenses: the curve summary on the two profiled loop lines, a run action on every hot line', async () => {
  const lenses = (await connection.sendRequest('textDocument/codeLens', { textDocument: { uri: sourceUri } })) as CodeLens[];
  const summaries = lenses.filter((l) => l.command!.title.startsWith('Causal: '));
  assert.deepEqual(summaries.map((l) => l.range.start.line).sort((a, b) => a - b), [14, 29]);
  for (const lens of summaries) assert.match(lens.command!.title, /^Causal: .* · impact \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] · 21 speedups$/);
  const runs = lenses.filter((l) => l.command!.command === 'causalLens.runVirtualSpeedup');
  const onLine = runs.filter((l) => l.command!.title === '$(beaker) Run virtual speedup');
  const heat = (await connection.sendRequest(ext.fileHeat.method, { uri: sourceUri })) as ext.FileHeatResult;
  assert.deepEqual(onLine.map((l) => l.range.start.line).sort((a, b) => a - b), heat.lines.map((l) => l.line).sort((a, b) => a - b));
  for (const lens of onLine) assert.deepEqual(lens.command!.arguments, [sourceUri, lens.range.start.line]);
  // On the headers of spin() and slow_work(): run on their hottest lines, the two loops.
  const onHeaders = runs.filter((l) => l.command!.title.includes('hottest line'));
  const source = fs.readFileSync(path.join(workspace, 'prog/prog.c'), 'utf8').split('\n');
  assert.deepEqual(
    onHeaders.map((l) => [source[l.range.start.line].match(/(\w+)\(/)![1], l.command!.arguments![1]]).sort(),
    [['slow_work', 29], ['spin', 14]],
  );
  assert.match(onHeaders.find((l) => l.command!.arguments![1] === 29)!.command!.title, /Run virtual speedup on slow_work's hottest line \(30\)/);
});

test('hover shows the curve table with intervals, experiments and runs', async () => {
  const hover = (await connection.sendRequest('textDocument/hover', {
    textDocument: { uri: sourceUri },
    position: { line: 29, character: 4 },
  })) as Hover;
  const text = (hover.contents as { value: string }).value;
  assert.match(text, /Throughput point `prog\.c:45`\*\* · 2 runs/);
  assert.match(text, /\| line speedup \| program speedup \| 95% interval \| experiments \| visits \|/);
  assert.equal(text.split('\n').filter((l) => /^\| \d+% \|/.test(l)).length, 21);
  const nothing = await connection.sendRequest('textDocument/hover', { textDocument: { uri: sourceUri }, position: { line: 0, character: 0 } });
  assert.equal(nothing, null);
});

test('fileHeat shades lines by sample share, hottest = 1, and annotates curve lines', async () => {
  const heat = await connection.sendRequest(ext.fileHeat.method, { uri: sourceUri }) as ext.FileHeatResult;
  assert.ok(heat.lines.length >= 2);
  assert.equal(Math.max(...heat.lines.map((l) => l.heat)), 1);
  const annotated = heat.lines.filter((l) => l.annotation).map((l) => l.line).sort((a, b) => a - b);
  assert.deepEqual(annotated, [14, 29]);
  const shares = heat.lines.reduce((sum, l) => sum + l.share, 0);
  assert.ok(shares > 0.5 && shares <= 1.0000001, `shares of the file's lines add up to at most 1: ${shares}`);
});

test('ranking lists both curves first, resolved to the workspace file', async () => {
  const ranking = (await connection.sendRequest(ext.ranking.method)) as ext.RankingResult;
  const ready = ranking.lines.filter((l) => !l.insufficient);
  assert.equal(ready.length, 2);
  assert.ok(ready.every((l) => l.uri === sourceUri));
  assert.ok(ready[0].impact >= ready[1].impact);
  assert.deepEqual(ready.map((l) => l.label).sort(), ['prog.c:15', 'prog.c:30']);
});

test('next and previous hot line walk the hot lines and wrap around', async () => {
  const first = (await connection.sendRequest(ext.hotLine.method, { uri: sourceUri, line: -1, direction: 'next' })) as ext.HotLineResult;
  const second = (await connection.sendRequest(ext.hotLine.method, { uri: sourceUri, line: first.line, direction: 'next' })) as ext.HotLineResult;
  assert.ok(second.line > first.line);
  const back = (await connection.sendRequest(ext.hotLine.method, { uri: sourceUri, line: second.line, direction: 'previous' })) as ext.HotLineResult;
  assert.equal(back.line, first.line);
  const wrapped = (await connection.sendRequest(ext.hotLine.method, { uri: sourceUri, line: first.line, direction: 'previous' })) as ext.HotLineResult;
  assert.ok(wrapped.line >= second.line);
});

test('a new minPoints setting recomputes the curves without rereading', async () => {
  const strict = nextStatus((s) => s.state === 'loaded');
  settings.minPoints = 22; // more than COZ's 21 possible speedups: no line qualifies
  await connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  assert.equal((await strict).curves, 0);
  const lenses = (await connection.sendRequest('textDocument/codeLens', { textDocument: { uri: sourceUri } })) as CodeLens[];
  const summaries = lenses.filter((l) => l.command!.title.startsWith('Causal: '));
  assert.ok(summaries.length > 0 && summaries.every((l) => l.command!.title.startsWith('Causal: collecting')));
  const restored = nextStatus((s) => s.state === 'loaded');
  settings.minPoints = 10;
  await connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  assert.equal((await restored).curves, 2);
});

test('a broken profile: what could be read loads, problems become diagnostics and one message', async () => {
  const broken = path.join(workspace, 'broken.coz');
  const good = fs.readFileSync(path.join(FIXTURES, 'coz-toy-run3-3000iters.coz'), 'utf8').split('\n');
  good.splice(3, 0, 'experiment\tselected=/home/dev/prog/prog.c:15\tspeedup=abc\tduration=12');
  fs.writeFileSync(broken, good.join('\n'));
  const result = (await connection.sendRequest(ext.loadProfile.method, { path: broken })) as ext.LoadProfileResult;
  assert.ok(result.experiments > 0);
  assert.ok(result.problems >= 1);
  await new Promise((r) => setTimeout(r, 200));
  const published = diagnostics.get(pathToFileURL(broken).href);
  assert.ok(published && published.diagnostics.some((d) => d.range.start.line === 3), 'a diagnostic on line 4 of broken.coz');
  assert.ok(messages.some((m) => m.includes('broken.coz') && m.includes('line 4')));
});

test('a missing file is one clear error, not a crash', async () => {
  const result = (await connection.sendRequest(ext.loadProfile.method, { path: path.join(workspace, 'nope.coz') })) as ext.LoadProfileResult;
  assert.equal(result.experiments, 0);
  assert.ok(messages.some((m) => m.includes('nope.coz')));
});

test('appending to the profile reloads it live', async () => {
  const experimentsBefore = statuses.at(-1)!.experiments;
  const reloaded = nextStatus((s) => s.state === 'loaded' || s.state === 'error');
  const extra = fs.readFileSync(path.join(FIXTURES, 'coz-toy-run3-3000iters.coz'), 'utf8');
  fs.appendFileSync(profilePath, extra);
  await connection.sendNotification(DidChangeWatchedFilesNotification.type, {
    changes: [{ uri: pathToFileURL(profilePath).href, type: FileChangeType.Changed }],
  });
  const status = await reloaded;
  const appended = extra.split('\n').filter((l) => l.startsWith('experiment')).length;
  assert.equal(status.experiments, experimentsBefore + appended);
});
