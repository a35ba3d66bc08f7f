// One status bar item: what is loaded, whether it is stale, and whether anything failed.

import * as vscode from 'vscode';
import { StatusParams } from '../../server/src/protocol/lspExt';

const ICONS: Record<StatusParams['state'], string> = {
  idle: '$(pulse)',
  loading: '$(sync~spin)',
  stale: '$(sync~spin)',
  loaded: '$(pulse)',
  error: '$(warning)',
};

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('causalLens.status', vscode.StatusBarAlignment.Left, 10);
  /** Beside it: the panel (what-if, causal curves, scaling). */
  private readonly panelItem = vscode.window.createStatusBarItem('causalLens.panel', vscode.StatusBarAlignment.Left, 9);
  private last: StatusParams | undefined;
  private running: string | undefined;

  constructor() {
    this.item.name = 'Causal Lens';
    this.show({ state: 'idle', profiles: 0, experiments: 0, curves: 0, problems: 0, detail: 'Starting…' });
    this.item.show();
    this.panelItem.name = 'Causal Lens Panel';
    this.panelItem.text = '$(graph)';
    this.panelItem.tooltip = 'Causal Lens: open the what-if, causal-curve and scaling panel';
    this.panelItem.command = 'causalLens.openPanel';
    this.panelItem.show();
  }

  /** While a virtual speedup runs, the item says so; `undefined` when it ends. */
  showRunning(what: string | undefined): void {
    this.running = what;
    if (this.last) this.show(this.last);
  }

  show(status: StatusParams): void {
    this.last = status;
    if (this.running) {
      this.item.text = `$(beaker~spin) Causal: speeding up ${this.running}`;
      this.item.tooltip = 'A virtual-speedup run is in progress (cancel it from its notification)';
      this.item.command = undefined;
      this.item.backgroundColor = undefined;
      return;
    }
    const summary =
      status.state === 'loading' || status.state === 'stale'
        ? 'loading'
        : status.profiles === 0
          ? 'no profile'
          : `${status.curves} curve${status.curves === 1 ? '' : 's'}`;
    this.item.text = `${ICONS[status.state]} Causal: ${summary}${status.problems > 0 ? ` · ${status.problems} problems` : ''}`;
    this.item.tooltip = status.detail;
    this.item.command = status.problems > 0 ? 'causalLens.showOutput' : 'causalLens.ranking.focus';
    this.item.backgroundColor = status.state === 'error' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
    this.panelItem.dispose();
  }
}
