/**
 * The extension-host suite (test/vscode/suite) under desktop VS Code (Electron) with
 * @vscode/test-electron, for a developer machine. NOT run in CI: it downloads VS Code from
 * update.code.visualstudio.com (cached in .vscode-test/ of the working directory), which the CI
 * machine cannot reach; CI runs the same suite on code-server with runExtensionHostTests.ts.
 *
 *   npm run compile && node out/test/vscode/runElectron.js [workspace folder]
 *
 * The workspace defaults to samples/. Builds nothing: bundle the extension (npm run build) first.
 * On a Linux machine without a display, run it under `xvfb-run -a`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { repoRoot, writeUserSettings } from './codeServer';

async function main(): Promise<void> {
  const workspace = path.resolve(process.argv[2] ?? path.join(repoRoot, 'samples'));
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-electron-'));
  const userDataDir = path.join(runDir, 'user-data');
  writeUserSettings(userDataDir);
  try {
    await runTests({
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(__dirname, 'suite', 'index.js'),
      launchArgs: [
        workspace,
        `--user-data-dir=${userDataDir}`,
        `--extensions-dir=${path.join(runDir, 'extensions')}`,
        '--disable-extensions', // other installed extensions; the one under development still loads
        '--disable-workspace-trust',
      ],
    });
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

// runTests rejects (TestRunFailedError) when VS Code exits non-zero, i.e. when a test failed.
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
