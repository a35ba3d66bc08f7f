/**
 * Runs the mocha suite in test/vscode/suite inside a real VS Code extension host, the way
 * @vscode/test-electron would, but on code-server + headless chromium (see codeServer.ts):
 * the server runs with the smoke-test driver, the page opens an Extension Development Host for the
 * repo with `extensionTestsPath` = out/test/vscode/suite/index.js, the extension host's console
 * is printed here as it comes, and the host's exit code becomes this process's exit code.
 *
 *   . scripts/tools-env.sh && node out/test/vscode/runExtensionHostTests.js [workspace folder]
 *
 * Builds nothing: compile (and bundle the extension) first. The workspace defaults to samples/.
 * CAUSAL_LENS_EXTHOST_TIMEOUT: seconds to wait for the suite to finish (default 180).
 */
import * as path from 'node:path';
import { format } from 'node:util';
import { Page } from 'playwright-core';
import { extensionTestsUrl, launchChromium, repoRoot, startCodeServer, tailOf } from './codeServer';

const DEFAULT_TIMEOUT_SECONDS = 180;
const SUITE_INDEX = path.join(__dirname, 'suite', 'index.js');

async function main(): Promise<number> {
  const workspace = path.resolve(process.argv[2] ?? path.join(repoRoot, 'samples'));
  const timeoutSeconds = Number(process.env.CAUSAL_LENS_EXTHOST_TIMEOUT ?? DEFAULT_TIMEOUT_SECONDS);
  const started = Date.now();
  const server = await startCodeServer({ smokeTestDriver: true });
  try {
    const browser = await launchChromium(server.runDir);
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      const url = extensionTestsUrl(server.url, workspace, SUITE_INDEX);
      const exitCode = await runSuite(page, url, timeoutSeconds).catch((error: unknown) => {
        console.error(`${error instanceof Error ? error.message : String(error)}\ncode-server log (tail):\n${tailOf(server.logFile)}`);
        return 1;
      });
      console.log(`extension host exited with ${exitCode} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return exitCode;
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
}

/** Opens `url` and resolves with the extension host's exit code; rejects after `timeoutSeconds`. */
async function runSuite(page: Page, url: string, timeoutSeconds: number): Promise<number> {
  let reportExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (reportExit = resolve));
  const browserErrors = collectBrowserErrors(page);
  await page.exposeFunction('codeAutomationLog', printExtensionHostLog);
  await page.exposeFunction('codeAutomationExit', (code: number) => reportExit(code));
  await page.goto(url);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(
        `Timed out: the extension-host tests did not finish within ${timeoutSeconds} s ` +
          '(set CAUSAL_LENS_EXTHOST_TIMEOUT=<seconds> to wait longer).\n' +
          `Browser errors:\n${browserErrors.join('\n') || '(none)'}`,
      ));
    }, timeoutSeconds * 1000);
  });
  try {
    return await Promise.race([exited, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function printExtensionHostLog(type: string, args: unknown[]): void {
  const line = format(...args);
  if (type === 'error') {
    console.error(line);
  } else {
    console.log(line);
  }
}

function collectBrowserErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return errors;
}

main().then(
  (exitCode) => {
    process.exitCode = exitCode;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  },
);
