// The "Lines by Impact" tree: the server's ranking. A line measured against several
// progress points is one row, its best curve first, with one child per progress point.

import * as vscode from 'vscode';
import { RankedLine, ranking } from '../../server/src/protocol/lspExt';
import { ServerConnection } from './serverConnection';

function percent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}

/** A row: a line's curves, best first (the server's order). */
interface LineRow {
  curves: RankedLine[];
}

function describe(entry: RankedLine, withPoint: boolean): string {
  const summary = entry.insufficient ?? `impact ${entry.impact.toFixed(3)} · max ${percent(entry.maxSpeedup)}`;
  return summary + (withPoint ? ` · ${entry.progressPoint}` : '') + (entry.unresolved ? ' · not in workspace' : '');
}

function tooltip(entry: RankedLine): vscode.MarkdownString {
  return new vscode.MarkdownString(
    [
      `**${entry.location}**`,
      `progress point \`${entry.progressPoint}\``,
      `impact ${entry.impact.toFixed(3)} (95%: ${entry.impactLow.toFixed(3)} … ${entry.impactHigh.toFixed(3)})`,
      entry.insufficient ?? '',
      entry.unresolved ?? '',
      `profile: ${entry.profile}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  );
}

export class RankingTree implements vscode.TreeDataProvider<LineRow | RankedLine> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly server: ServerConnection) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(element?: LineRow | RankedLine): Promise<(LineRow | RankedLine)[]> {
    if (element) return 'curves' in element && element.curves.length > 1 ? element.curves : [];
    const rows = new Map<string, LineRow>();
    for (const entry of (await this.server.request(ranking, undefined)).lines) {
      const key = `${entry.profile}\u0000${entry.location}`;
      const row = rows.get(key);
      if (row) row.curves.push(entry);
      else rows.set(key, { curves: [entry] });
    }
    return [...rows.values()];
  }

  getTreeItem(element: LineRow | RankedLine): vscode.TreeItem {
    const isRow = 'curves' in element;
    const entry = isRow ? element.curves[0] : element;
    const several = isRow && element.curves.length > 1;
    const item = new vscode.TreeItem(
      isRow ? entry.label : entry.progressPoint,
      several ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.description = describe(entry, isRow && !several);
    item.tooltip = tooltip(entry);
    item.iconPath = new vscode.ThemeIcon(entry.insufficient ? 'circle-outline' : isRow ? 'flame' : 'graph-line');
    if (entry.uri && entry.line !== undefined) {
      item.contextValue = 'sourceLine';
      item.command = { command: 'causalLens.revealLine', title: 'Reveal Line', arguments: [entry.uri, entry.line] };
    }
    return item;
  }
}
