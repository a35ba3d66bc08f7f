// Draws what the server computed: hot-line backgrounds by heat, overview-ruler marks and
// the one-line causal claim after the line. Colors come from contributes.colors.

import * as vscode from 'vscode';
import { LineHeat, fileHeat } from '../../server/src/protocol/lspExt';
import { highlightsEnabled } from './config';
import { ServerConnection } from './serverConnection';

interface Shade {
  minHeat: number;
  type: vscode.TextEditorDecorationType;
}

function shade(minHeat: number, background: string): Shade {
  return {
    minHeat,
    type: vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(background),
      overviewRulerColor: new vscode.ThemeColor('causalLens.hotLineRuler'),
      overviewRulerLane: vscode.OverviewRulerLane.Right,
    }),
  };
}

export class HeatDecorations implements vscode.Disposable {
  // Hottest first: a line takes the first shade its heat reaches.
  private readonly shades: Shade[] = [
    shade(0.66, 'causalLens.hotLineBackground'),
    shade(0.33, 'causalLens.warmLineBackground'),
    shade(Number.MIN_VALUE, 'causalLens.coolLineBackground'),
  ];
  /** Lines with a claim but too few samples to shade still get their annotation. */
  private readonly annotationOnly = vscode.window.createTextEditorDecorationType({});
  private readonly applied = new Map<string, LineHeat[]>();
  private generation = 0;

  constructor(private readonly server: ServerConnection) {}

  /** What was last drawn in the editor showing `uri`; the extension's test API reads it. */
  appliedTo(uri: string): LineHeat[] {
    return this.applied.get(uri) ?? [];
  }

  async refresh(editors: readonly vscode.TextEditor[] = vscode.window.visibleTextEditors): Promise<void> {
    const generation = ++this.generation;
    await Promise.all(editors.map((editor) => this.refreshEditor(editor, generation)));
  }

  private async refreshEditor(editor: vscode.TextEditor, generation: number): Promise<void> {
    if (editor.document.uri.scheme !== 'file') return;
    const uri = editor.document.uri.toString();
    let lines: LineHeat[] = [];
    if (highlightsEnabled()) {
      try {
        lines = (await this.server.request(fileHeat, { uri })).lines;
      } catch {
        return; // the server is restarting; the next status notification redraws
      }
    }
    if (generation !== this.generation) return;
    const byType = new Map<vscode.TextEditorDecorationType, vscode.DecorationOptions[]>();
    for (const type of [...this.shades.map((s) => s.type), this.annotationOnly]) byType.set(type, []);
    for (const line of lines) {
      if (line.line >= editor.document.lineCount) continue;
      const type = this.shades.find((s) => line.heat >= s.minHeat)?.type ?? this.annotationOnly;
      const range = editor.document.lineAt(line.line).range;
      byType.get(type)!.push({
        range,
        hoverMessage: line.annotationTooltip,
        renderOptions: line.annotation
          ? { after: { contentText: `  ${line.annotation}`, color: new vscode.ThemeColor('causalLens.annotationForeground'), fontStyle: 'italic' } }
          : undefined,
      });
    }
    for (const [type, options] of byType) editor.setDecorations(type, options);
    this.applied.set(uri, lines);
  }

  dispose(): void {
    for (const s of this.shades) s.type.dispose();
    this.annotationOnly.dispose();
  }
}
