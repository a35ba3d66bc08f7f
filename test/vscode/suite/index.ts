/**
 * The mocha entry point that VS Code's extension host loads as `extensionTestsPath` (code-server via
 * runExtensionHostTests.ts, or Electron via runElectron.ts). Runs every `*.test.js` next to this
 * file (tdd interface: suite/test) and ends with the line `exthost: N passed, N failed`.
 *
 * mocha comes from the repo's node_modules: require resolves from this file (out/test/vscode/suite/),
 * not from the extension host's working directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

const TEST_TIMEOUT_MS = 60_000;

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', reporter: 'spec', color: false, timeout: TEST_TIMEOUT_MS });
  for (const file of testFilesNextToThisOne()) {
    mocha.addFile(file);
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      console.log(`exthost: ${runner.stats?.passes ?? 0} passed, ${failures} failed`);
      if (failures === 0) {
        resolve();
      } else {
        reject(new Error(`${failures} extension-host test(s) failed`));
      }
    });
  });
}

function testFilesNextToThisOne(): string[] {
  return fs
    .readdirSync(__dirname)
    .filter((name) => name.endsWith('.test.js'))
    .sort()
    .map((name) => path.join(__dirname, name));
}
