// The client's one way to the language server. The language client library is loaded and
// the server started on first use (activation schedules that right after it returns).

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { Notification, Request } from '../../server/src/protocol/lspExt';
import type { createLanguageClient } from './languageClient';

export class ServerConnection implements vscode.Disposable {
  private client: Promise<LanguageClient> | undefined;
  private readonly handlers: [string, (params: unknown) => void][] = [];

  constructor(private readonly serverModule: string) {}

  /** Registers before the start so no early notification is missed. */
  onNotification<P>(type: Notification<P>, handler: (params: P) => void): void {
    this.handlers.push([type.method, handler as (params: unknown) => void]);
  }

  start(): Promise<LanguageClient> {
    this.client ??= this.launch();
    return this.client;
  }

  /** Cancelling `token` sends $/cancelRequest; the server stops the work. */
  async request<P, R>(type: Request<P, R>, params: P, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.start();
    return (await client.sendRequest(type.method, params, token)) as R;
  }

  async showOutput(): Promise<void> {
    (await this.start()).outputChannel.show(true);
  }

  private async launch(): Promise<LanguageClient> {
    // Resolved at run time, beside this bundle: esbuild must not inline it.
    const modulePath = path.join(__dirname, 'languageClient.js');
    const { createLanguageClient: create } = require(modulePath) as { createLanguageClient: typeof createLanguageClient };
    const client = create(this.serverModule);
    for (const [method, handler] of this.handlers) client.onNotification(method, handler);
    await client.start();
    return client;
  }

  async dispose(): Promise<void> {
    if (this.client) await (await this.client).stop();
  }
}
