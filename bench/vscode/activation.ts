/**
 * Runs inside a VS Code extension host as `extensionTestsPath` (see bench/activation.ts):
 * activates Causal Lens and prints, as one JSON line after ACTIVATION_MARKER:
 *  - activationMs: the extension's own figure, from the first line of dist/client.js being
 *    evaluated to activate() returning;
 *  - loadMs, waitMs, activateMs: the same span split with VS Code's own performance marks
 *    (code/extHost/{will,did}LoadExtensionCode, {will,did}ActivateExtension; 1 ms resolution):
 *    evaluating the bundle; VS Code preparing the ExtensionContext (its storage is read over
 *    RPC from the window) and running other extensions; activate() itself.
 * When the workspace did not activate the extension at startup, it waits SETTLE_MS first, so
 * that the figure is the on-demand one (e.g. the first C file opened later).
 */
import * as vscode from 'vscode';
import { ACTIVATION_MARKER } from '../stats';

const ID = 'causal-lens.causal-lens';
const SETTLE_MS = 3000;

interface Marks {
  getMarks(): { name: string; startTime: number }[];
}

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension<{ activationMs: number }>(ID);
  if (!extension) throw new Error(`extension ${ID} is not installed`);
  const activeBefore = extension.isActive;
  // Not activated by the workspace (no profile in it): let the window settle, then activate on demand.
  if (!activeBefore) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const api = await extension.activate();
  const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks() ?? [];
  const at = (name: string): number => marks.find((m) => m.name === `code/extHost/${name}/${ID}`)?.startTime ?? NaN;
  const figures = {
    activationMs: api.activationMs,
    loadMs: at('didLoadExtensionCode') - at('willLoadExtensionCode'),
    waitMs: at('willActivateExtension') - at('didLoadExtensionCode'),
    activateMs: at('didActivateExtension') - at('willActivateExtension'),
    atStartup: activeBefore,
    node: process.version,
    vscode: vscode.version,
  };
  console.log(ACTIVATION_MARKER + JSON.stringify(figures));
}
