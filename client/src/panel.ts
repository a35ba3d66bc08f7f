// The side panel's host: creates the webview (strict CSP, local assets only), validates
// every message from it, and forwards its requests to the language server, where the
// predictions and fits are computed.

import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import * as ext from '../../server/src/protocol/lspExt';
import { PanelTab, ToPanel, parseToHost, ToHost } from '../../webview/src/messages';
import { ServerConnection } from './serverConnection';

const VIEW_TYPE = 'causalLens.panel';

export class PanelHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private running: { id: string; cancel: vscode.CancellationTokenSource } | undefined;
  /** A tab asked for before the panel's script listens; sent when it says it is ready. */
  private pendingTab: PanelTab | undefined;
  private selectionTimer: NodeJS.Timeout | undefined;
  /** The panel takes focus from the editor (activeTextEditor is then undefined): remember it. */
  private lastEditor: vscode.TextEditor | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** What the last message sent to the panel was, for the extension-host tests. */
  readonly sent: ToPanel[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerConnection,
  ) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel),
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => this.selectionChanged(event.textEditor)),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastEditor = editor;
      }),
    );
    this.lastEditor = vscode.window.activeTextEditor;
    server.onNotification(ext.whatIfProgress, (params) => {
      if (params.progressId === this.running?.id) this.post({ type: 'whatIfProgress', fraction: params.fraction, message: params.message });
    });
  }

  show(tab?: PanelTab): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      if (tab) this.post({ type: 'showTab', tab });
    } else {
      this.pendingTab = tab;
      this.adopt(vscode.window.createWebviewPanel(VIEW_TYPE, 'Causal Lens', vscode.ViewColumn.Beside, {}));
    }
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    const assets = vscode.Uri.joinPath(this.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [assets] };
    panel.webview.html = panelHtml(panel.webview, assets);
    panel.webview.onDidReceiveMessage((message: unknown) => void this.receive(message), undefined, this.disposables);
    panel.onDidDispose(() => {
      this.running?.cancel.cancel();
      this.panel = undefined;
    });
  }

  private post(message: ToPanel): void {
    this.sent.push(message);
    if (this.sent.length > 50) this.sent.shift();
    void this.panel?.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    const message = parseToHost(raw);
    if (typeof message === 'string') {
      void vscode.window.showWarningMessage(`Causal Lens: the panel sent ${message}; ignored.`);
      return;
    }
    try {
      await this.handle(message);
    } catch (error) {
      void vscode.window.showErrorMessage(`Causal Lens: ${(error as Error).message}`);
    }
  }

  private async handle(message: ToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        if (this.pendingTab) this.post({ type: 'showTab', tab: this.pendingTab });
        this.pendingTab = undefined;
        if (this.lastEditor) this.selectionChanged(this.lastEditor, 0);
        return this.sendOptions();
      case 'refreshOptions':
        return this.sendOptions();
      case 'runWhatIf':
        return this.runWhatIf(message);
      case 'cancelWhatIf':
        this.running?.cancel.cancel();
        return;
      case 'revealLine':
        await vscode.commands.executeCommand('causalLens.revealLine', message.uri, message.line);
        return;
      case 'fit': {
        const result = await this.server.request(ext.fitScaling, { csv: message.csv, predictAt: message.predictAt });
        this.post({ type: 'fitResult', csv: message.csv, result });
        return;
      }
      case 'export':
        return exportFile(message.format, message.suggestedName, message.content);
    }
  }

  /** New traces or tables in the workspace: the panel's lists follow. */
  refreshOptions(): void {
    if (this.panel) void this.sendOptions().catch(() => undefined);
  }

  private async sendOptions(): Promise<void> {
    const [options, scaling] = await Promise.all([this.server.request(ext.whatIfOptions, undefined), this.server.request(ext.scalingFiles, undefined)]);
    this.post({ type: 'options', traces: options.traces, networks: options.networks, assumedTracedNetwork: options.assumedTracedNetwork, scalingFiles: scaling.files });
  }

  private async runWhatIf(message: Extract<ToHost, { type: 'runWhatIf' }>): Promise<void> {
    this.running?.cancel.cancel();
    const run = { id: crypto.randomUUID(), cancel: new vscode.CancellationTokenSource() };
    this.running = run;
    try {
      const result = await this.server.request(
        ext.whatIf,
        { trace: message.trace, scenarios: message.scenarios, coresPerNode: message.coresPerNode, tracedNetwork: message.tracedNetwork, tableSpread: message.tableSpread, progressId: run.id },
        run.cancel.token,
      );
      this.post({ type: 'whatIfResult', trace: message.trace, result });
    } catch (error) {
      const cancelled = run.cancel.token.isCancellationRequested;
      this.post({ type: 'whatIfResult', trace: message.trace, result: { ok: false, message: cancelled ? 'Cancelled.' : (error as Error).message } });
    } finally {
      if (this.running === run) this.running = undefined;
      run.cancel.dispose();
    }
  }

  /** The panel follows the editor: a line with causal data shows its curves. */
  private selectionChanged(editor: vscode.TextEditor, delayMs = 150): void {
    this.lastEditor = editor;
    if (!this.panel || editor.document.uri.scheme !== 'file') return;
    clearTimeout(this.selectionTimer);
    this.selectionTimer = setTimeout(() => {
      this.server
        .request(ext.lineCurves, { uri: editor.document.uri.toString(), line: editor.selection.active.line })
        .then((result) => {
          if (result.curves.length > 0) this.post({ type: 'curve', result });
        })
        // A server that is restarting answers the next selection; its log has the reason.
        .catch(() => undefined);
    }, delayMs);
  }

  dispose(): void {
    clearTimeout(this.selectionTimer);
    this.running?.cancel.cancel();
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function panelHtml(webview: vscode.Webview, assets: vscode.Uri): string {
  const nonce = crypto.randomBytes(18).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(assets, 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(assets, 'webview.css'));
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Causal Lens</title>
</head>
<body>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

async function exportFile(format: 'csv' | 'json', suggestedName: string, content: string): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, suggestedName.replace(/[\\/]/g, '_')) : undefined,
    filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
  });
  if (!target) return;
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(content));
  void vscode.window.showInformationMessage(`Causal Lens: wrote ${vscode.workspace.asRelativePath(target)}`);
}
