// Activation: start the language server without waiting for it, and wire the few UI
// pieces the server cannot draw itself (decorations, tree, status bar, commands).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { LineHeat, StatusParams, status } from '../../server/src/protocol/lspExt';
import { registerCommands } from './commands';
import { affectsHighlights } from './config';
import { HeatDecorations } from './decorations';
import { RankingTree } from './rankingTree';
import { StatusItem } from './statusBar';

/** Returned from activate(); the extension-host tests read what was drawn through it. */
export interface CausalLensApi {
  /** Resolves once the server has loaded the workspace's profiles the first time. */
  readonly ready: Promise<void>;
  appliedHeat(uri: vscode.Uri): LineHeat[];
  /** The server's latest status notification. */
  lastStatus(): StatusParams | undefined;
  /** Milliseconds from the first line of the bundle being evaluated to activate() returning. */
  readonly activationMs: number;
}

/** Set by the bundle's banner (scripts/bundle.mjs) before any module code runs. */
declare const __causalLensLoadStart: number | undefined;

const SOURCE_LANGUAGES = ['c', 'cpp', 'cuda-cpp', 'objective-c', 'objective-cpp', 'fortran', 'FortranFreeForm', 'fortran-modern', 'rust'];

let client: LanguageClient | undefined;

export function activate(context: vscode.ExtensionContext): CausalLensApi {
  const activateStart = performance.now();
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: SOURCE_LANGUAGES.map((language) => ({ scheme: 'file', language })),
    outputChannelName: 'Causal Lens',
  };
  client = new LanguageClient('causalLens', 'Causal Lens', serverOptions, clientOptions);
  const languageClient = client;

  const decorations = new HeatDecorations(languageClient);
  const tree = new RankingTree(languageClient);
  const statusItem = new StatusItem();
  let latestStatus: StatusParams | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  context.subscriptions.push(
    decorations,
    statusItem,
    vscode.window.registerTreeDataProvider('causalLens.ranking', tree),
    ...registerCommands(languageClient),
    vscode.window.onDidChangeVisibleTextEditors((editors) => void decorations.refresh(editors)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsHighlights(event)) void decorations.refresh();
    }),
    languageClient.onNotification(status, (params) => {
      latestStatus = params;
      statusItem.show(params);
      tree.refresh();
      void decorations.refresh().then(() => {
        if (params.state === 'loaded' || params.state === 'error') markReady();
      });
    }),
  );
  void languageClient.start().catch((error: Error) => {
    void vscode.window.showErrorMessage(`Causal Lens: the language server did not start: ${error.message}`);
  });

  const loadStart = typeof __causalLensLoadStart === 'number' ? __causalLensLoadStart : activateStart;
  return {
    ready,
    appliedHeat: (uri) => decorations.appliedTo(uri.toString()),
    lastStatus: () => latestStatus,
    activationMs: performance.now() - loadStart,
  };
}

export function deactivate(): Promise<void> | undefined {
  return client?.stop();
}
