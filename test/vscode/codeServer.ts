/**
 * Runs VS Code for the tests: code-server (a real Node extension host, on Node 24) on 127.0.0.1,
 * driven by Debian chromium through playwright-core. The tools come from scripts/setup-tools.sh;
 * source scripts/tools-env.sh so that CAUSAL_LENS_NODE24 and CAUSAL_LENS_CODE_SERVER are set.
 *
 * Every server gets a fresh run dir (user data, extensions, XDG dirs, the browser profile, the log),
 * removed by stop(). Servers and their children are killed even when the process ends abnormally.
 *
 * Run directly (scripts/start.sh does), it serves a folder with the extension installed until Ctrl-C:
 *   node out/test/vscode/codeServer.js [folder]     (port: $PORT, default 8090)
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrowserContext, chromium } from 'playwright-core';

/** The repo root (this file compiles to out/test/vscode/). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

const CHROMIUM_PATH = '/usr/bin/chromium';
const HEALTH_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** Settings every test window starts with: no welcome page, telemetry, updates, AI features or trust prompts. */
const BASE_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'chat.disableAIFeatures': true,
  'security.workspace.trust.enabled': false,
  // Keep the window free of things that cover the editor in screenshots.
  'git.openRepositoryInParentFolders': 'never',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface CodeServerOptions {
  /** User settings added to (and overriding) BASE_SETTINGS. */
  settings?: Record<string, unknown>;
  /** Honour the URL `payload` (extension development host and extension tests); see extensionTestsUrl. */
  smokeTestDriver?: boolean;
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
}

export interface CodeServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Fresh temp dir holding everything of this server; removed by stop(). */
  runDir: string;
  extensionsDir: string;
  /** code-server's stdout and stderr. */
  logFile: string;
  /** Kills code-server's process group and removes runDir. Close browsers that use runDir first. */
  stop(): Promise<void>;
}

interface RunDirs {
  root: string;
  userData: string;
  extensions: string;
  xdg: string;
  tmp: string;
  logFile: string;
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const tools = requireTools();
  const port = await reservePort(options.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  const dirs = createRunDirs(options.settings);
  const child = spawnCodeServer(tools, dirs, port, options.smokeTestDriver === true);
  const forgetOnExit = killOnProcessExit(child, dirs.root);
  const stop = async (): Promise<void> => {
    forgetOnExit();
    await killProcessGroup(child);
    fs.rmSync(dirs.root, { recursive: true, force: true });
  };
  try {
    await waitForHealthy(url, child, dirs.logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, runDir: dirs.root, extensionsDir: dirs.extensions, logFile: dirs.logFile, stop };
}

/**
 * Installs the extension under test like a user-installed one: the repo root, symlinked into the
 * extensions dir as `<publisher>.<name>-<version>`. A window opened afterwards loads it.
 */
export function installExtensionUnderTest(extensionsDir: string): void {
  const manifestPath = path.join(repoRoot, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { publisher: string; name: string; version: string };
  fs.symlinkSync(repoRoot, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
}

/** The workbench URL that opens `folder` (an absolute path on this machine). */
export function workbenchUrl(serverUrl: string, folder: string): string {
  return `${serverUrl}/?folder=${encodeURIComponent(folder).replace(/%2F/g, '/')}`;
}

/**
 * The workbench URL that opens `folder` in an Extension Development Host for the repo and runs the
 * extension tests in `extensionTestsPath` (a compiled module exporting `run(): Promise<void>`).
 * Needs a server started with `smokeTestDriver`; the page then reports the extension host's exit
 * code to `window.codeAutomationExit(code)` and its console to `window.codeAutomationLog(type, args)`.
 */
export function extensionTestsUrl(serverUrl: string, folder: string, extensionTestsPath: string): string {
  const host = new URL(serverUrl).host;
  const remoteUri = (localPath: string): string => `vscode-remote://${host}${pathToFileURL(localPath).pathname}`;
  const payload = [
    ['extensionDevelopmentPath', remoteUri(repoRoot)],
    ['extensionTestsPath', remoteUri(extensionTestsPath)],
  ];
  return `${workbenchUrl(serverUrl, folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/**
 * Launches headless Debian chromium with a fresh profile inside `runDir` (a CodeServer's), and with
 * HOME and XDG dirs there too: Debian's chromium writes below ~/.config even with a profile dir.
 */
export function launchChromium(runDir: string): Promise<BrowserContext> {
  const home = path.join(runDir, 'chromium-home');
  fs.mkdirSync(home);
  return chromium.launchPersistentContext(path.join(runDir, 'chromium-profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    env: { ...process.env, HOME: home, ...xdgEnvironment(home) },
  });
}

interface Tools {
  node24: string;
  codeServer: string;
}

function requireTools(): Tools {
  return { node24: requireToolPath('CAUSAL_LENS_NODE24'), codeServer: requireToolPath('CAUSAL_LENS_CODE_SERVER') };
}

function requireToolPath(variable: string): string {
  const toolPath = process.env[variable];
  if (!toolPath || !fs.existsSync(toolPath)) {
    throw new Error(
      `${variable} is ${toolPath ? `${toolPath}, which does not exist` : 'not set'}: ` +
        'run `bash scripts/setup-tools.sh`, then `. scripts/tools-env.sh`',
    );
  }
  return toolPath;
}

/** Checks that `port` on 127.0.0.1 is free (rejects with EADDRINUSE if not); port 0 finds a free one. */
function reservePort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Writes BASE_SETTINGS plus `settings` as the user settings of a VS Code user-data dir. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): void {
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...BASE_SETTINGS, ...settings }, null, 2));
}

function createRunDirs(settings: Record<string, unknown> | undefined): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-vscode-'));
  const dirs = {
    root,
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    xdg: path.join(root, 'xdg'),
    tmp: path.join(root, 'tmp'),
    logFile: path.join(root, 'code-server.log'),
  };
  writeUserSettings(dirs.userData, settings);
  fs.mkdirSync(dirs.extensions);
  fs.mkdirSync(dirs.tmp);
  return dirs;
}

function xdgEnvironment(base: string): Record<string, string> {
  return {
    XDG_CONFIG_HOME: path.join(base, '.config'),
    XDG_DATA_HOME: path.join(base, '.local', 'share'),
    XDG_STATE_HOME: path.join(base, '.local', 'state'),
    XDG_CACHE_HOME: path.join(base, '.cache'),
  };
}

function spawnCodeServer(tools: Tools, dirs: RunDirs, port: number, smokeTestDriver: boolean): ChildProcess {
  const args = [
    tools.codeServer,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--reconnection-grace-time', '5',
    '--extensions-dir', dirs.extensions,
    '--user-data-dir', dirs.userData,
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
  const log = fs.openSync(dirs.logFile, 'a');
  try {
    // detached: code-server leads its own process group, so stop() can kill its children with it.
    return spawn(tools.node24, args, { detached: true, stdio: ['ignore', log, log], env: codeServerEnvironment(tools, dirs) });
  } finally {
    fs.closeSync(log);
  }
}

function codeServerEnvironment(tools: Tools, dirs: RunDirs): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...xdgEnvironment(dirs.xdg),
    TMPDIR: dirs.tmp, // VS Code's IPC and git sockets, TypeScript server files
    PATH: `${path.dirname(tools.node24)}${path.delimiter}${process.env.PATH ?? ''}`,
    EXTENSIONS_GALLERY: '{}', // no marketplace (open-vsx) lookups
  };
  delete env.PORT; // code-server reads it; the port is --bind-addr's
  // Started from a VS Code terminal, code-server would see VSCODE_IPC_HOOK_CLI and open the folder in that VS Code.
  for (const name of Object.keys(env).filter((key) => key.startsWith('VSCODE_'))) {
    delete env[name];
  }
  return env;
}

async function waitForHealthy(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) while starting:\n${tailOf(logFile)}`);
    }
    if (await answersHealthz(url)) {
      return;
    }
    await sleep(200);
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${HEALTH_TIMEOUT_MS / 1000} s:\n${tailOf(logFile)}`);
}

async function answersHealthz(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`)).ok;
  } catch {
    return false; // not listening yet
  }
}

/** The last lines of a log file, for error messages. */
export function tailOf(file: string, lines = 40): string {
  return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

/** SIGTERM to the group, then SIGKILL to whatever of it is left after STOP_GRACE_MS. */
async function killProcessGroup(child: ChildProcess): Promise<void> {
  const groupId = -(child.pid as number);
  signalGroup(groupId, 'SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  while (groupIsAlive(groupId) && Date.now() < deadline) {
    await sleep(100);
  }
  signalGroup(groupId, 'SIGKILL');
}

function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(groupId, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

function groupIsAlive(groupId: number): boolean {
  return signalGroup(groupId, 0);
}

let exitOnSignalsInstalled = false;

/**
 * Kills the server's group and removes its run dir if this process exits without stop(), also on
 * Ctrl-C or SIGTERM (turned into process.exit). Returns the function that cancels this.
 */
function killOnProcessExit(child: ChildProcess, runDir: string): () => void {
  const cleanUp = (): void => {
    signalGroup(-(child.pid as number), 'SIGKILL');
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  process.on('exit', cleanUp);
  if (!exitOnSignalsInstalled) {
    exitOnSignalsInstalled = true;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
    }
  }
  return () => process.off('exit', cleanUp);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `node codeServer.js [folder]`: serves `folder` (default samples/) with the extension installed, until Ctrl-C. */
async function serveUntilInterrupted(folder: string): Promise<void> {
  const server = await startCodeServer({ port: Number(process.env.PORT ?? 8090) });
  installExtensionUnderTest(server.extensionsDir);
  console.log(`Causal Lens: open ${workbenchUrl(server.url, folder)}`);
  console.log(`(code-server log: ${server.logFile}; Ctrl-C stops it; reload the window to pick up a rebuilt extension)`);
}

if (require.main === module) {
  serveUntilInterrupted(path.resolve(process.argv[2] ?? path.join(repoRoot, 'samples'))).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
