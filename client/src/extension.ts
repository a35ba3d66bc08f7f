// Activation: wire the few UI pieces the server cannot draw itself (decorations, tree,
// status bar, commands) and return. The language server starts right after, lazily.

import * as vscode from 'vscode';
import { LineHeat, StatusParams, status } from '../../server/src/protocol/lspExt';
import type { ToPanel } from '../../webview/src/messages';
import { registerCommands } from './commands';
import { affectsHighlights } from './config';
import { HeatDecorations } from './decorations';
import { PanelHost } from './panel';
import { RankingTree } from './rankingTree';
import { SampledTree } from './sampledTree';
import { ServerConnection } from './serverConnection';
import { StatusItem } from './statusBar';

/** Returned from activate(); the extension-host tests and the activation bench read it. */
export interface CausalLensApi {
  /** Resolves once the server has loaded the workspace's profiles the first time. */
  readonly ready: Promise<void>;
  appliedHeat(uri: vscode.Uri): LineHeat[];
  /** The server's latest status notification. */
  lastStatus(): StatusParams | undefined;
  /** Our own share of activation, ms: evaluating the bundle plus running activate(). */
  readonly activationMs: number;
  /** The latest messages sent to the side panel, oldest first. */
  panelMessages(): readonly ToPanel[];
}

/** Stamped by the bundle's banner and footer (scripts/bundle.mjs). */
declare const __causalLensLoadStart: number | undefined;
declare const __causalLensLoadEnd: number | undefined;

let server: ServerConnection | undefined;

export function activate(context: vscode.ExtensionContext): CausalLensApi {
  const activateStart = performance.now();
  server = new ServerConnection(context.asAbsolutePath('dist/server.js'));
  const connection = server;
  const decorations = new HeatDecorations(connection);
  const tree = new RankingTree(connection);
  const sampled = new SampledTree(connection);
  const statusItem = new StatusItem();
  const panel = new PanelHost(context.extensionUri, connection);
  let latestStatus: StatusParams | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  connection.onNotification(status, (params) => {
    latestStatus = params;
    statusItem.show(params);
    tree.refresh();
    sampled.refresh();
    void decorations.refresh().then(() => {
      if (params.state === 'loaded' || params.state === 'error') markReady();
    });
  });
  context.subscriptions.push(
    connection,
    decorations,
    statusItem,
    vscode.window.registerTreeDataProvider('causalLens.ranking', tree),
    vscode.window.registerTreeDataProvider('causalLens.sampled', sampled),
    panel,
    ...registerCommands(connection, statusItem, panel, context.asAbsolutePath('dist/cli.js')),
    vscode.window.onDidChangeVisibleTextEditors((editors) => void decorations.refresh(editors)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsHighlights(event)) void decorations.refresh();
    }),
  );
  setImmediate(() => {
    connection.start().catch((error: Error) => {
      void vscode.window.showErrorMessage(`Causal Lens: the language server did not start: ${error.message}`);
    });
  });

  const bundleMs =
    typeof __causalLensLoadStart === 'number' && typeof __causalLensLoadEnd === 'number'
      ? __causalLensLoadEnd - __causalLensLoadStart
      : 0;
  return {
    ready,
    appliedHeat: (uri) => decorations.appliedTo(uri.toString()),
    lastStatus: () => latestStatus,
    activationMs: bundleMs + (performance.now() - activateStart),
    panelMessages: () => panel.sent,
  };
}

export function deactivate(): Promise<void> | undefined {
  return server?.dispose();
}
