// Palette commands (category "Causal Lens"). Each asks the server and shows the answer.

import * as vscode from 'vscode';
import * as ext from '../../server/src/protocol/lspExt';
import { ServerConnection } from './serverConnection';
import { PanelHost } from './panel';
import { calibrateNetwork } from './calibrateNetwork';
import { recordTrace } from './recordTrace';
import { StatusItem } from './statusBar';
import { runVirtualSpeedup } from './virtualSpeedup';
import { highlightsEnabled, setHighlightsEnabled } from './config';

async function revealLine(uri: string | vscode.Uri, line: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(typeof uri === 'string' ? vscode.Uri.parse(uri) : uri);
  const editor = await vscode.window.showTextDocument(document);
  const position = new vscode.Position(line, 0);
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function loadProfile(server: ServerConnection): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: true,
    openLabel: 'Load Profile',
    filters: { 'Profiles': ['coz', 'jsonl', 'data', 'txt'], 'All files': ['*'] },
  });
  for (const uri of picked ?? []) {
    const result = await server.request(ext.loadProfile, { path: uri.fsPath });
    void vscode.window.showInformationMessage(
      `Causal Lens: ${vscode.workspace.asRelativePath(uri)}: ${result.experiments} experiments, ${result.lines} lines` +
        (result.problems > 0 ? `, ${result.problems} problems (see Output)` : ''),
    );
  }
}

async function jumpToHotLine(server: ServerConnection, direction: 'next' | 'previous'): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const target = await server.request(ext.hotLine, {
    uri: editor?.document.uri.toString() ?? '',
    line: editor?.selection.active.line ?? -1,
    direction,
  });
  if (target) await revealLine(target.uri, target.line);
  else void vscode.window.showInformationMessage('Causal Lens: no hot lines in the loaded profiles.');
}

/** From a lens (uri, line), the tree (its row) or the palette (the cursor). */
function speedupTarget(first?: unknown, line?: unknown): { uri: string | vscode.Uri; line: number } | undefined {
  if (typeof first === 'string' && typeof line === 'number') return { uri: first, line };
  const entry = first && typeof first === 'object' && 'curves' in first ? (first as { curves: ext.RankedLine[] }).curves[0] : (first as ext.RankedLine | undefined);
  if (entry?.uri && entry.line !== undefined) return { uri: entry.uri, line: entry.line };
  const editor = vscode.window.activeTextEditor;
  return editor ? { uri: editor.document.uri, line: editor.selection.active.line } : undefined;
}

const PANEL_TABS = new Set(['whatif', 'causal', 'scaling']);

export function registerCommands(server: ServerConnection, status: StatusItem, panel: PanelHost, cliPath: string): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('causalLens.recordTrace', () => recordTrace(cliPath, panel)),
    vscode.commands.registerCommand('causalLens.calibrateNetwork', () => calibrateNetwork(cliPath, panel)),
    vscode.commands.registerCommand('causalLens.openPanel', (tab?: unknown) =>
      panel.show(typeof tab === 'string' && PANEL_TABS.has(tab) ? (tab as 'whatif' | 'causal' | 'scaling') : undefined),
    ),
    vscode.commands.registerCommand('causalLens.runVirtualSpeedup', (first?: unknown, line?: unknown) => {
      const target = speedupTarget(first, line);
      if (target) return runVirtualSpeedup(server, status, target.uri, target.line);
      void vscode.window.showInformationMessage('Causal Lens: put the cursor on a source line to speed it up.');
      return undefined;
    }),
    vscode.commands.registerCommand('causalLens.loadProfile', () => loadProfile(server)),
    vscode.commands.registerCommand('causalLens.clearProfiles', () => server.request(ext.clearProfiles, undefined)),
    vscode.commands.registerCommand('causalLens.toggleHighlights', () => setHighlightsEnabled(!highlightsEnabled())),
    vscode.commands.registerCommand('causalLens.nextHotLine', () => jumpToHotLine(server, 'next')),
    vscode.commands.registerCommand('causalLens.previousHotLine', () => jumpToHotLine(server, 'previous')),
    vscode.commands.registerCommand('causalLens.showOutput', () => server.showOutput()),
    vscode.commands.registerCommand('causalLens.revealLine', revealLine),
  ];
}
