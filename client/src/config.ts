// The few settings the client itself reads; everything else is read by the server.

import * as vscode from 'vscode';

const SECTION = 'causalLens';

export function highlightsEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('highlights.enabled', true);
}

export async function setHighlightsEnabled(enabled: boolean): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('highlights.enabled', enabled, vscode.ConfigurationTarget.Global);
}

export function affectsHighlights(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SECTION}.highlights`);
}
