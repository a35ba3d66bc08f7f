// Draws what the server computed: hot-line backgrounds by heat (warm colours for time on the
// CPU, cool ones for lines whose sampled time is mostly off it: I/O, locks, waiting for a CPU),
// overview-ruler marks and the one-line annotation after the line. Colors come from
// contributes.colors.

import * as vscode from 'vscode';
import { LineHeat, fileHeat } from '../../server/src/protocol/lspExt';
import { highlightsEnabled } from './config';
import { ServerConnection } from './serverConnection';

interface Shade {
  minHeat: number;
  type: vscode.TextEditorDecorationType;
}

function shade(minHeat: number, background: string, ruler: string): Shade {
  return {
    minHeat,
    type: vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor(background),
      overviewRulerColor: new vscode.ThemeColor(ruler),
      overviewRulerLane: vscode.OverviewRulerLane.Right,
    }),
  };
}

/** Hottest first: a line takes the first shade its heat reaches. */
function shadeFamily(hot: string, warm: string, cool: string, ruler: string): Shade[] {
  return [shade(0.66, hot, ruler), shade(0.33, warm, ruler), shade(Number.MIN_VALUE, cool, ruler)];
}

export class HeatDecorations implements vscode.Disposable {
  private readonly onCpuShades = shadeFamily(
    'causalLens.hotLineBackground',
    'causalLens.warmLineBackground',
    'causalLens.coolLineBackground',
    'causalLens.hotLineRuler',
  );
  private readonly offCpuShades = shadeFamily(
    'causalLens.offCpuHotLineBackground',
    'causalLens.offCpuWarmLineBackground',
    'causalLens.offCpuCoolLineBackground',
    'causalLens.offCpuLineRuler',
  );
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
    for (const type of [...this.onCpuShades, ...this.offCpuShades].map((s) => s.type)) byType.set(type, []);
    byType.set(this.annotationOnly, []);
    for (const line of lines) {
      if (line.line >= editor.document.lineCount) continue;
      const family = (line.offCpu ?? 0) > 0.5 ? this.offCpuShades : this.onCpuShades;
      const type = family.find((s) => line.heat >= s.minHeat)?.type ?? this.annotationOnly;
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
    for (const s of [...this.onCpuShades, ...this.offCpuShades]) s.type.dispose();
    this.annotationOnly.dispose();
  }
}
