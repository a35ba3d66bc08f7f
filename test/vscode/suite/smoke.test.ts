/** Runs inside the extension host (see index.ts): the extension is there, activates and registers its commands. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'causal-lens.causal-lens';

interface ContributedCommand {
  command: string;
}

function extensionUnderTest(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `extension ${EXTENSION_ID} is not installed`);
  return extension;
}

suite('smoke', () => {
  test('reports the VS Code it runs in', () => {
    console.log(`    VS Code ${vscode.version} (${vscode.env.appHost}), extension host on Node ${process.version}`);
    assert.match(vscode.version, /^\d+\.\d+\.\d+/);
  });

  test(`${EXTENSION_ID} is present and activates`, async () => {
    const extension = extensionUnderTest();
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  test('every command in package.json contributes.commands is registered', async () => {
    const extension = extensionUnderTest();
    await extension.activate();
    const contributed = (extension.packageJSON.contributes.commands as ContributedCommand[]).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    assert.deepEqual(contributed.filter((command) => !registered.has(command)), [], 'contributed but not registered');
  });
});
