// Palette commands (category "Causal Lens"). Each asks the server and shows the answer.

import * as vscode from 'vscode';
import * as ext from '../../server/src/protocol/lspExt';
import { ServerConnection } from './serverConnection';
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
    filters: { 'Causal profiles': ['coz', 'jsonl'], 'All files': ['*'] },
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

export function registerCommands(server: ServerConnection): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('causalLens.loadProfile', () => loadProfile(server)),
    vscode.commands.registerCommand('causalLens.clearProfiles', () => server.request(ext.clearProfiles, undefined)),
    vscode.commands.registerCommand('causalLens.toggleHighlights', () => setHighlightsEnabled(!highlightsEnabled())),
    vscode.commands.registerCommand('causalLens.nextHotLine', () => jumpToHotLine(server, 'next')),
    vscode.commands.registerCommand('causalLens.previousHotLine', () => jumpToHotLine(server, 'previous')),
    vscode.commands.registerCommand('causalLens.showOutput', () => server.showOutput()),
    vscode.commands.registerCommand('causalLens.revealLine', revealLine),
  ];
}
