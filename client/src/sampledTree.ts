// The "Sampled Time" tree (perf, bperf): per profile, time by class (CPU, I/O, lock, sched,
// other), then by thread, then by line, as bperf report groups it. A line row reveals the line.

import * as vscode from 'vscode';
import { SampledClassRow, SampledLineRow, SampledThreadRow, SampledTreeResult, sampledTree } from '../../server/src/protocol/lspExt';
import { ServerConnection } from './serverConnection';

type ProfileRow = SampledTreeResult['profiles'][number];
type Row = ProfileRow | SampledClassRow | SampledThreadRow | SampledLineRow;

const CLASS_ICONS: Record<string, string> = { onCpu: 'flame', io: 'database', sync: 'lock', sched: 'watch', other: 'debug-pause' };

function describe(ms: number, share: number): string {
  const time = ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
  return `${(share * 100).toFixed(1)}% · ${time}`;
}

export class SampledTree implements vscode.TreeDataProvider<Row> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly server: ServerConnection) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(element?: Row): Promise<Row[]> {
    if (!element) {
      const { profiles } = await this.server.request(sampledTree, undefined);
      // One profile: its classes are the top level.
      return profiles.length === 1 ? profiles[0].classes : profiles;
    }
    if ('classes' in element) return element.classes;
    if ('threads' in element) return element.threads;
    if ('lines' in element) return element.lines;
    return [];
  }

  getTreeItem(element: Row): vscode.TreeItem {
    const collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    if ('classes' in element) {
      const item = new vscode.TreeItem(element.label, vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${(element.totalMs / 1000).toFixed(2)} s sampled`;
      item.tooltip = element.profile;
      item.iconPath = new vscode.ThemeIcon('file');
      return item;
    }
    if ('threads' in element) {
      const item = new vscode.TreeItem(element.label, collapsed);
      item.description = describe(element.ms, element.share);
      item.iconPath = new vscode.ThemeIcon(CLASS_ICONS[element.cls] ?? 'circle-outline');
      item.tooltip = element.meaning;
      return item;
    }
    if ('lines' in element) {
      const item = new vscode.TreeItem(element.thread, collapsed);
      item.description = describe(element.ms, element.share);
      item.iconPath = new vscode.ThemeIcon('symbol-event');
      return item;
    }
    const item = new vscode.TreeItem(element.label, vscode.TreeItemCollapsibleState.None);
    item.description = describe(element.ms, element.share);
    if (element.uri && element.line !== undefined) {
      item.contextValue = 'sourceLine';
      item.command = { command: 'causalLens.revealLine', title: 'Reveal Line', arguments: [element.uri, element.line] };
    } else {
      item.tooltip = 'This source file is not in the workspace (add a causalLens.pathMappings entry to open it).';
    }
    return item;
  }
}
