// The Causal Lens language server: LSP wiring only. Reading profiles, the causal math and
// path mapping live in plain modules (import/, causal/, workspace/) that the CLI shares.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CancellationToken,
  CodeLens,
  DidChangeWatchedFilesParams,
  Diagnostic,
  DiagnosticSeverity,
  DidChangeWatchedFilesNotification,
  Disposable,
  FileChangeType,
  InitializeResult,
  MessageType,
  ProposedFeatures,
  ShowMessageNotification,
  WatchKind,
  createConnection,
} from 'vscode-languageserver/node';
import { CurveOptions, DEFAULT_CURVE_OPTIONS } from './causal/curves';
import { shortNames } from './causal/names';
import { Profile } from './model/profile';
import * as ext from './protocol/lspExt';
import { PathMapping, PathResolver } from './workspace/pathResolver';
import { LineFacts, ProfileStore } from './workspace/profileStore';
import { profileMatcher, scanWorkspace } from './workspace/scan';
import { fileHeat, hoverMarkdown, leadingCurve, lensTitle } from './lsp/views';
import { insideRoots, panelCurves, scalingFit, whatIfForPanel, whatIfOptions, workspaceEntries } from './lsp/panelViews';
import { sampledClassRows } from './lsp/sampleViews';
import { totalMs } from './samples/attribution';
import { VirtualSpeedups } from './lsp/virtualSpeedup';
import { FunctionSpan, findFunctionsIn, sourceFamily } from './lsp/functionHeaders';

interface Settings {
  profileGlobs: string[];
  whatIf: { traceGlobs: string[]; networkGlobs: string[] };
  scaling: { csvGlobs: string[] };
  minPoints: number;
  pathMappings: Record<string, string>;
  highlights: { minShare: number };
}

const DEFAULT_SETTINGS: Settings = {
  profileGlobs: ['**/profile.coz', '**/profile.jsonl', '**/*.coz', '**/perf.data', '**/*.perf.txt', '**/*.bperf.txt'],
  whatIf: { traceGlobs: ['**/*.otf2'], networkGlobs: ['**/comm-table*.json', '**/*.commtable.json'] },
  scaling: { csvGlobs: ['**/*.scaling.csv', '**/scaling/**/*.csv'] },
  minPoints: DEFAULT_CURVE_OPTIONS.minPoints,
  pathMappings: {},
  highlights: { minShare: 0.005 },
};

const connection = createConnection(ProposedFeatures.all);

function handle<P, R>(type: ext.Request<P, R>, handler: (params: P) => R | Promise<R>): void {
  connection.onRequest(type.method, (params: P) => handler(params) as unknown);
}
let roots: string[] = [];
let settings = DEFAULT_SETTINGS;
let store = new ProfileStore(new PathResolver([], [], []), DEFAULT_CURVE_OPTIONS);
let isProfile: (file: string) => boolean = () => false;
let supportsLensRefresh = false;
let problemsByProfile = new Map<string, number>();
const reloadTimers = new Map<string, NodeJS.Timeout>();
let supportsWatcherRegistration = false;
let watcherRegistration: Disposable | undefined;

function toPath(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function toUri(file: string): string {
  return pathToFileURL(file).href;
}

function curveOptions(): CurveOptions {
  return { ...DEFAULT_CURVE_OPTIONS, minPoints: settings.minPoints };
}

function expandMappings(mappings: Record<string, string>): PathMapping[] {
  const folder = roots[0] ?? '';
  return Object.entries(mappings).map(([from, to]) => ({ from, to: to.split('${workspaceFolder}').join(folder) }));
}

async function readSettings(): Promise<Settings> {
  const raw = (await connection.workspace.getConfiguration('causalLens')) as Partial<Settings> | null;
  return {
    profileGlobs: Array.isArray(raw?.profileGlobs) ? raw!.profileGlobs : DEFAULT_SETTINGS.profileGlobs,
    whatIf: {
      traceGlobs: Array.isArray(raw?.whatIf?.traceGlobs) ? raw!.whatIf!.traceGlobs : DEFAULT_SETTINGS.whatIf.traceGlobs,
      networkGlobs: Array.isArray(raw?.whatIf?.networkGlobs) ? raw!.whatIf!.networkGlobs : DEFAULT_SETTINGS.whatIf.networkGlobs,
    },
    scaling: { csvGlobs: Array.isArray(raw?.scaling?.csvGlobs) ? raw!.scaling!.csvGlobs : DEFAULT_SETTINGS.scaling.csvGlobs },
    minPoints: typeof raw?.minPoints === 'number' ? raw.minPoints : DEFAULT_SETTINGS.minPoints,
    pathMappings: raw?.pathMappings && typeof raw.pathMappings === 'object' ? raw.pathMappings : {},
    highlights: { minShare: typeof raw?.highlights?.minShare === 'number' ? raw.highlights.minShare : DEFAULT_SETTINGS.highlights.minShare },
  };
}

function sendStatus(state: ext.StatusParams['state'], detail?: string): void {
  const profiles = store.profiles();
  const problems = [...problemsByProfile.values()].reduce((a, b) => a + b, 0);
  const curves = store.ranking().filter((r) => r.curve.status.kind === 'curve').length;
  const experiments = profiles.reduce((n, p) => n + p.profile.experiments.length, 0);
  const status: ext.StatusParams = {
    state: state === 'loaded' && problems > 0 ? 'error' : state,
    profiles: profiles.length,
    experiments,
    curves,
    problems,
    detail:
      detail ??
      `${profiles.length} profile${profiles.length === 1 ? '' : 's'}, ${experiments} experiments, ${curves} curves` +
        (problems > 0 ? `, ${problems} problems (see Problems and Output)` : ''),
  };
  void connection.sendNotification(ext.status.method, status);
  if (supportsLensRefresh) void connection.sendRequest('workspace/codeLens/refresh');
}

/** A notification, not a request: nothing waits for the user to dismiss it. */
function notify(type: MessageType, message: string): void {
  void connection.sendNotification(ShowMessageNotification.type, { type, message });
}

/** Problems go three ways: Diagnostics on the profile file, the output channel, one notification. */
function reportProblems(profile: Profile): void {
  const diagnostics: Diagnostic[] = profile.problems.map((p) => ({
    range: { start: { line: Math.max(0, p.line - 1), character: 0 }, end: { line: Math.max(0, p.line - 1), character: Number.MAX_SAFE_INTEGER } },
    severity: p.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    source: 'Causal Lens',
    message: p.message,
  }));
  void connection.sendDiagnostics({ uri: toUri(profile.source), diagnostics });
  problemsByProfile.set(profile.source, profile.problems.length);
  for (const p of profile.problems) connection.console.warn(`${p.file}:${p.line}: ${p.severity}: ${p.message}`);
  if (profile.problems.length > 0) {
    const first = profile.problems[0];
    notify(
      MessageType.Warning,
      `Causal Lens: ${path.basename(profile.source)} was read with ${profile.problems.length} problem${profile.problems.length === 1 ? '' : 's'}` +
        ` (first at line ${first.line}: ${first.message}). What could be read is shown; details in the Output and Problems views.`,
    );
  }
}

async function loadOne(file: string): Promise<ext.LoadProfileResult> {
  try {
    const { profile, curves } = await store.load(file);
    reportProblems(profile);
    connection.console.info(`Loaded ${file}: ${profile.format}, ${profile.runs.length} runs, ${profile.experiments.length} experiments`);
    return { experiments: profile.experiments.length, lines: curves.length, problems: profile.problems.length };
  } catch (error) {
    const message = (error as Error).message;
    connection.console.error(message);
    store.remove(file);
    problemsByProfile.set(file, 1);
    notify(MessageType.Error, `Causal Lens: ${message}`);
    return { experiments: 0, lines: 0, problems: 1 };
  }
}

async function reloadWorkspace(): Promise<void> {
  sendStatus('loading', 'Scanning the workspace for profiles…');
  settings = await readSettings();
  const scan = await scanWorkspace(roots, settings.profileGlobs);
  if (scan.truncated) connection.console.warn(`Workspace has more than ${scan.files.length} files; profile paths are matched against the first ${scan.files.length} only.`);
  isProfile = profileMatcher(roots, settings.profileGlobs);
  await watchProfiles(settings.profileGlobs);
  store = new ProfileStore(new PathResolver(roots, scan.files, expandMappings(settings.pathMappings)), curveOptions());
  problemsByProfile = new Map();
  for (const file of scan.matching) await loadOne(file);
  sendStatus('loaded');
}

/** The client's file watcher follows the configured globs; the server decides what they mean. */
async function watchProfiles(globs: string[]): Promise<void> {
  if (!supportsWatcherRegistration) return;
  watcherRegistration?.dispose();
  watcherRegistration = await connection.client.register(DidChangeWatchedFilesNotification.type, {
    // Deleting a folder reports only the folder: watch every deletion to unload what it held.
    watchers: [...globs.map((globPattern) => ({ globPattern })), { globPattern: '**/*', kind: WatchKind.Delete }],
  });
}

function scheduleReload(file: string, deleted: boolean): void {
  clearTimeout(reloadTimers.get(file));
  sendStatus('stale', `${path.basename(file)} changed; reloading…`);
  // COZ appends an experiment every ~0.5 s: coalesce bursts of writes into one reload.
  reloadTimers.set(
    file,
    setTimeout(async () => {
      reloadTimers.delete(file);
      if (deleted) {
        store.remove(file);
        problemsByProfile.delete(file);
        void connection.sendDiagnostics({ uri: toUri(file), diagnostics: [] });
      } else {
        await loadOne(file);
      }
      sendStatus('loaded');
    }, 300),
  );
}

const virtualSpeedups = new VirtualSpeedups(
  () => roots[0],
  async (file) => {
    if (!fs.existsSync(file)) return undefined; // the run wrote nothing: diagnoseRun says why
    await loadOne(file);
    sendStatus('loaded');
    return store.profiles().find((loaded) => loaded.profile.source === file)?.profile;
  },
);

connection.onInitialize((params): InitializeResult => {
  roots = (params.workspaceFolders ?? []).map((f) => toPath(f.uri)).filter((p): p is string => p !== undefined);
  if (roots.length === 0 && params.rootUri) {
    const root = toPath(params.rootUri);
    if (root) roots = [root];
  }
  supportsLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  supportsWatcherRegistration = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  return {
    capabilities: { codeLensProvider: { resolveProvider: false }, hoverProvider: true },
    serverInfo: { name: 'causal-lens-server', version: '0.1.0' },
  };
});

connection.onInitialized(() => {
  void reloadWorkspace();
});

/** Only what changed is redone: new globs or mappings rescan, new minPoints recompute, the rest redraws. */
connection.onDidChangeConfiguration(async () => {
  const previous = settings;
  const next = await readSettings();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(previous.profileGlobs, next.profileGlobs) || !same(previous.pathMappings, next.pathMappings)) {
    await reloadWorkspace();
    return;
  }
  settings = next;
  if (previous.minPoints !== next.minPoints) await store.setOptions(curveOptions());
  sendStatus('loaded');
});

connection.onDidChangeWatchedFiles((params: DidChangeWatchedFilesParams) => {
  for (const change of params.changes) {
    const file = toPath(change.uri);
    if (!file) continue;
    if (isProfile(file)) scheduleReload(file, change.type === FileChangeType.Deleted);
    else if (change.type === FileChangeType.Deleted) {
      for (const { profile } of store.profiles()) {
        if (profile.source.startsWith(file + path.sep)) scheduleReload(profile.source, true);
      }
    }
  }
});

const functionsByFile = new Map<string, { mtimeMs: number; functions: FunctionSpan[] }>();

/** Function spans of a source file, re-read only when the file changed on disk. */
async function functionsOf(file: string): Promise<FunctionSpan[]> {
  if (!sourceFamily(file)) return [];
  try {
    const { mtimeMs } = await fs.promises.stat(file);
    const cached = functionsByFile.get(file);
    if (cached?.mtimeMs === mtimeMs) return cached.functions;
    const functions = findFunctionsIn(file, await fs.promises.readFile(file, 'utf8'));
    functionsByFile.set(file, { mtimeMs, functions });
    return functions;
  } catch {
    return [];
  }
}

function isHot(facts: LineFacts): boolean {
  return facts.share >= settings.highlights.minShare || facts.curves.length > 0;
}

/** A lens shown above `shownAt` that speeds up `target` (0-based lines). */
function runLens(uri: string, shownAt: number, target: number, title: string): CodeLens {
  return {
    range: { start: { line: shownAt, character: 0 }, end: { line: shownAt, character: 0 } },
    command: { title, command: 'causalLens.runVirtualSpeedup', arguments: [uri, target] },
  };
}

connection.onCodeLens(async (params): Promise<CodeLens[]> => {
  const file = toPath(params.textDocument.uri);
  const lines = file ? store.linesOf(file) : undefined;
  if (!file || !lines) return [];
  const uri = params.textDocument.uri;
  const lenses: CodeLens[] = [];
  for (const facts of lines.values()) {
    const lead = leadingCurve(facts);
    if (!lead) continue;
    const line = facts.line - 1;
    lenses.push({
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      // An empty command id renders the lens as a label.
      command: { title: lensTitle(lead.curve), command: '' },
    });
  }
  const hot = [...lines.values()].filter(isHot);
  for (const facts of hot) lenses.push(runLens(uri, facts.line - 1, facts.line - 1, '$(beaker) Run virtual speedup'));
  for (const fn of await functionsOf(file)) {
    const inside = hot.filter((f) => f.line >= fn.bodyStart && f.line <= fn.bodyEnd);
    if (inside.length === 0 || inside.some((f) => f.line === fn.headerLine)) continue;
    const hottest = inside.reduce((a, b) => (b.share > a.share ? b : a));
    lenses.push(runLens(uri, fn.headerLine - 1, hottest.line - 1, `$(beaker) Run virtual speedup on ${fn.name}'s hottest line (${hottest.line})`));
  }
  return lenses;
});

connection.onHover((params) => {
  const file = toPath(params.textDocument.uri);
  const facts = file ? store.linesOf(file)?.get(params.position.line + 1) : undefined;
  const markdown = facts ? hoverMarkdown(facts) : undefined;
  return markdown ? { contents: { kind: 'markdown', value: markdown } } : null;
});

handle(ext.fileHeat, (params) => {
  const file = toPath(params.uri);
  const lines = file ? store.linesOf(file) : undefined;
  return { lines: lines ? fileHeat(lines.values(), settings.highlights.minShare) : [] };
});

handle(ext.ranking, () => {
  const ranked = store.ranking();
  const names = shortNames(ranked.map((r) => r.curve.selected));
  return {
    lines: ranked.map(({ curve, profile, resolution, line }): ext.RankedLine => {
      const file = resolution && 'file' in resolution ? resolution.file : undefined;
      return {
        location: curve.selected,
        progressPoint: curve.progressPoint,
        uri: file ? toUri(file) : undefined,
        line: file && line !== undefined && line > 0 ? line - 1 : undefined,
        label: names.get(curve.selected)!,
        impact: curve.impact,
        impactLow: curve.impactLow,
        impactHigh: curve.impactHigh,
        maxSpeedup: curve.maxSpeedup,
        insufficient: curve.status.kind === 'insufficient' ? curve.status.reason : undefined,
        unresolved: resolution && !('file' in resolution) ? resolution.reason : undefined,
        profile,
      };
    }),
  };
});

handle(ext.loadProfile, async (params) => {
  const result = await loadOne(params.path);
  sendStatus('loaded');
  return result;
});

handle(ext.clearProfiles, () => {
  for (const { profile } of store.profiles()) void connection.sendDiagnostics({ uri: toUri(profile.source), diagnostics: [] });
  store.clear();
  problemsByProfile = new Map();
  sendStatus('idle', 'Profiles cleared; they load again when they change or on reload');
});

handle(ext.virtualSpeedupStart, async (params) => {
  const file = toPath(params.uri);
  if (!file) return { ok: false, message: `${params.uri} is not a file on disk`, fix: '' };
  return virtualSpeedups.start(params, file);
});

handle(ext.virtualSpeedupNext, (params) => virtualSpeedups.next(params));

handle(ext.hotLine, (params) => {
  const file = toPath(params.uri);
  const hot = store.hotLines().filter((f) => f.share >= settings.highlights.minShare || f.curves.length > 0);
  if (hot.length === 0) return null;
  const cursor = { file: file ?? '', line: params.line + 1 };
  const after = (f: { file: string; line: number }) => f.file > cursor.file || (f.file === cursor.file && f.line > cursor.line);
  const before = (f: { file: string; line: number }) => f.file < cursor.file || (f.file === cursor.file && f.line < cursor.line);
  const target =
    params.direction === 'next'
      ? hot.find(after) ?? hot[0]
      : [...hot].reverse().find(before) ?? hot[hot.length - 1];
  return { uri: toUri(target.file), line: target.line - 1 };
});

handle(ext.whatIfOptions, () => whatIfOptions(roots, settings.whatIf.traceGlobs, settings.whatIf.networkGlobs));

connection.onRequest(ext.whatIf.method, (params: ext.WhatIfParams, token: CancellationToken) =>
  whatIfForPanel(
    roots,
    params,
    (fraction) =>
      void connection.sendNotification(ext.whatIfProgress.method, {
        progressId: params.progressId,
        fraction,
        message: `${Math.round(fraction * 100)}% of the trace's events`,
      } satisfies ext.WhatIfProgressParams),
    () => token.isCancellationRequested,
  ),
);

handle(ext.scalingFiles, async () => ({ files: await workspaceEntries(roots, settings.scaling.csvGlobs) }));

handle(ext.fitScaling, (params) =>
  insideRoots(roots, params.csv) ? scalingFit(params) : { ok: false as const, message: `${params.csv} is outside the workspace` },
);

handle(ext.sampledTree, () => ({
  profiles: store.sampledProfiles().map(({ profile, attribution }) => ({
    profile,
    label: path.basename(profile),
    totalMs: totalMs(attribution.total),
    classes: sampledClassRows(attribution, (source) => store.resolveSource(source, profile), toUri),
  })),
}));

handle(ext.lineCurves, (params) => {
  const file = toPath(params.uri) ?? params.uri;
  return panelCurves(params.uri, store.linesOf(file)?.get(params.line + 1), params.line, file);
});

connection.listen();
