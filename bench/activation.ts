/**
 * Extension activation time in a real VS Code (code-server + headless chromium, the same
 * machinery as the extension-host tests: test/vscode/codeServer.ts). Each run opens a fresh
 * window, whose new extension host loads dist/client.js, runs bench/vscode/activation.ts and
 * exits; the figure is the extension's own `activationMs` (bundle evaluation + activate()).
 * Workspaces are small (see prepareWorkspaces): activate() does not wait for the server, so
 * the profile's size does not enter this figure.
 *
 *   . scripts/tools-env.sh && node out/bench/activation.js [--runs 5]   (runs per workspace)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { BrowserContext } from 'playwright-core';
import { extensionTestsUrl, launchChromium, startCodeServer, tailOf } from '../test/vscode/codeServer';
import { generateProfile } from './generate-profile';
import { ACTIVATION_MARKER as MARKER, flag, median, ms, quantile, record, repoRoot } from './stats';

const RUN_TIMEOUT_MS = 120_000;
const IN_HOST_SCRIPT = path.join(__dirname, 'vscode', 'activation.js');

/**
 * Two small workspaces: `startup` holds a profile.coz (workspaceContains activates the extension
 * while the window starts, alongside VS Code's built-in extensions); `on-demand` holds none (the
 * in-host script activates it once the window has settled, like opening a C file later).
 */
function prepareWorkspaces(): { startup: string; onDemand: string } {
  const base = path.join(repoRoot, 'bench', 'data');
  const startup = path.join(base, 'activation-startup');
  const onDemand = path.join(base, 'activation-on-demand');
  for (const root of [startup, onDemand]) {
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'module0.c'), 'int main(void) { return 0; }\n');
  }
  if (!fs.existsSync(path.join(startup, 'profile.coz'))) generateProfile(path.join(startup, 'profile.coz'), 256 * 1024, 1);
  return { startup, onDemand };
}

interface Figures {
  activationMs: number;
  loadMs: number;
  waitMs: number;
  activateMs: number;
  atStartup: boolean;
  node: string;
  vscode: string;
}

/** One fresh window: resolves with what bench/vscode/activation.ts printed in its extension host. */
async function oneRun(browser: BrowserContext, url: string): Promise<Figures> {
  const page = await browser.newPage();
  try {
    let line = '';
    let reportExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve, reject) => {
      reportExit = resolve;
      setTimeout(() => reject(new Error(`no exit within ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS).unref();
    });
    exited.catch(() => undefined); // handled where it is awaited; this only silences an early rejection
    await page.exposeFunction('codeAutomationLog', (_type: string, args: unknown[]) => {
      const text = format(...args);
      if (text.startsWith(MARKER)) line = text;
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => reportExit(code));
    await page.goto(url);
    const code = await exited;
    if (code !== 0 || !line) throw new Error(`extension host exited with ${code}; activation line: ${line || '(none)'}`);
    return JSON.parse(line.slice(MARKER.length)) as Figures;
  } finally {
    await page.close();
  }
}

function report(label: string, all: Figures[]): void {
  const times = all.map((f) => f.activationMs);
  const sorted = [...times].sort((a, b) => a - b);
  const split = (key: 'loadMs' | 'waitMs' | 'activateMs'): string => median(all.map((f) => f[key])).toFixed(0);
  const activatedAtStartup = all.filter((f) => f.atStartup).length;
  console.log(
    `activation ${label} ms (${all.length} fresh windows, ${activatedAtStartup} activated at startup): ` +
      `first ${ms(times[0])}, median ${ms(median(times))}, p90 ${ms(quantile(sorted, 0.9))}, min ${ms(sorted[0])}, max ${ms(sorted[sorted.length - 1])}`,
  );
  record({
    what: `Activation (${label}: ${label === 'startup' ? 'workspace with profile.coz' : 'activated after the window settled'}), median of ${all.length} windows`,
    value: `${ms(median(times))} ms (first ${ms(times[0])}, max ${ms(sorted[sorted.length - 1])}; bundle load ${split('loadMs')}, VS Code wait ${split('waitMs')}, activate() ${split('activateMs')})`,
    goal: '< 100 ms',
    met: median(times) < 100,
  });
  console.log(
    `activation ${label} split, medians (VS Code's marks, 1 ms steps): load bundle ${split('loadMs')}, ` +
      `wait for VS Code (context, other extensions) ${split('waitMs')}, activate() ${split('activateMs')}`,
  );
}

async function main(): Promise<void> {
  const runs = Number(flag('runs', '5'));
  const workspaces = prepareWorkspaces();
  const server = await startCodeServer({ smokeTestDriver: true });
  try {
    const browser = await launchChromium(server.runDir);
    try {
      let host = '';
      for (const [label, folder] of [['startup', workspaces.startup], ['on-demand', workspaces.onDemand]] as const) {
        const url = extensionTestsUrl(server.url, folder, IN_HOST_SCRIPT);
        const all: Figures[] = [];
        for (let i = 0; i < runs; i++) {
          all.push(
            await oneRun(browser, url).catch((error: Error) => {
              throw new Error(`${error.message}\ncode-server log (tail):\n${tailOf(server.logFile)}`);
            }),
          );
        }
        host = `extension host: Node ${all[0].node}, VS Code ${all[0].vscode} (code-server)`;
        report(label, all);
      }
      console.log(host);
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
