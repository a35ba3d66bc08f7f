// The "Lines by Impact" tree: the server's ranking, one row per (line, progress point).

import * as vscode from 'vscode';
import { RankedLine, ranking } from '../../server/src/protocol/lspExt';
import { ServerConnection } from './serverConnection';

function percent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}

export class RankingTree implements vscode.TreeDataProvider<RankedLine> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly server: ServerConnection) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(element?: RankedLine): Promise<RankedLine[]> {
    if (element) return [];
    return (await this.server.request(ranking, undefined)).lines;
  }

  getTreeItem(entry: RankedLine): vscode.TreeItem {
    const item = new vscode.TreeItem(entry.label, vscode.TreeItemCollapsibleState.None);
    item.description =
      (entry.insufficient ?? `impact ${entry.impact.toFixed(3)} · max ${percent(entry.maxSpeedup)} · ${entry.progressPoint}`) +
      (entry.unresolved ? ' · not in workspace' : '');
    item.tooltip = new vscode.MarkdownString(
      [`**${entry.location}**`, `progress point \`${entry.progressPoint}\``,
        `impact ${entry.impact.toFixed(3)} (95%: ${entry.impactLow.toFixed(3)} … ${entry.impactHigh.toFixed(3)})`,
        entry.insufficient ?? '', entry.unresolved ?? '', `profile: ${entry.profile}`].filter(Boolean).join('\n\n'),
    );
    item.iconPath = new vscode.ThemeIcon(entry.insufficient ? 'circle-outline' : 'flame');
    if (entry.uri && entry.line !== undefined) {
      item.command = { command: 'causalLens.revealLine', title: 'Reveal Line', arguments: [entry.uri, entry.line] };
      item.resourceUri = vscode.Uri.parse(entry.uri);
    }
    return item;
  }
}
