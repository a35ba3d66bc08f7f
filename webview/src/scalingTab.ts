// The Scaling tab (seed 003): fit a CSV of runs (x, y[, component]), show the model, the
// measured points per component, the summed fit with its prediction band, and predictions.

import type { FitResult } from '../../server/src/protocol/lspExt';
import { drawChart, seriesColor, SERIES, translucent } from './charts';
import { custom, el, table } from './dom';
import { post } from './host';

export class ScalingTab {
  readonly element: HTMLElement;
  private readonly csvSelect = custom('vscode-single-select', { id: 'scaling-csv', 'aria-label': 'Runs (CSV)' });
  private readonly predictField = custom('vscode-textfield', { id: 'scaling-predict', placeholder: 'predict at x, e.g. 512, 1024' });
  private readonly fitButton = custom('vscode-button', { id: 'scaling-fit' }, 'Fit');
  private readonly results = el('div', { id: 'scaling-results' });

  constructor(
    private readonly inputs: { csv: string; predictAt: string },
    private readonly save: () => void,
  ) {
    this.csvSelect.addEventListener('change', () => {
      this.inputs.csv = (this.csvSelect as HTMLInputElement).value;
      this.save();
    });
    this.predictField.addEventListener('change', () => {
      this.inputs.predictAt = (this.predictField as HTMLInputElement).value;
      this.save();
    });
    this.fitButton.addEventListener('click', () => this.fit());
    (this.predictField as HTMLInputElement).value = inputs.predictAt;
    this.element = el(
      'section',
      { class: 'tab-body' },
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Runs'), this.csvSelect),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Predict at'), this.predictField, this.fitButton),
      this.results,
    );
  }

  setFiles(files: { path: string; label: string }[]): void {
    this.csvSelect.replaceChildren(...files.map((f) => custom('vscode-option', { value: f.path, selected: f.path === this.inputs.csv }, f.label)));
    if (!files.some((f) => f.path === this.inputs.csv)) this.inputs.csv = files[0]?.path ?? '';
    (this.csvSelect as HTMLInputElement).value = this.inputs.csv;
    if (files.length === 0) this.results.replaceChildren(el('p', { class: 'muted' }, 'No scaling CSVs (x,y[,component]) in the workspace.'));
  }

  private fit(): void {
    const words = this.inputs.predictAt.split(/[\s,;]+/).filter((p) => p !== '');
    const bad = words.filter((word) => !(Number(word) > 0 && Number.isFinite(Number(word))));
    if (bad.length > 0) {
      this.results.replaceChildren(el('p', { class: 'error', id: 'scaling-input-error' }, `Predict at: ${bad.map((word) => `"${word}"`).join(', ')} ${bad.length === 1 ? 'is not a positive number' : 'are not positive numbers'}.`));
      return;
    }
    const predictAt = words.map(Number);
    if (!this.inputs.csv) {
      this.results.replaceChildren(el('p', { class: 'error' }, 'Pick a CSV of runs first.'));
      return;
    }
    this.fitButton.toggleAttribute('disabled', true);
    post({ type: 'fit', csv: this.inputs.csv, predictAt });
  }

  show(result: FitResult): void {
    this.fitButton.toggleAttribute('disabled', false);
    if (!result.ok) {
      this.results.replaceChildren(el('p', { class: 'error', id: 'scaling-error' }, result.message));
      return;
    }
    const canvas = el('canvas', { id: 'scaling-chart', 'aria-label': 'Measured runs and the fitted model' });
    this.results.replaceChildren(
      el('p', { id: 'scaling-model' }, el('code', {}, result.model)),
      ...result.components
        .filter(() => result.components.length > 1)
        .map((c) => el('p', { class: 'component-model' }, `${c.component}: `, el('code', {}, c.model))),
      ...result.problems.map((p) => el('p', { class: 'warning' }, p)),
      el('div', { class: 'chart tall' }, canvas),
      table(
        'scaling-predictions',
        ['x', 'predicted', '95% low', '95% high'],
        result.predictions.map((p) => [String(p.x), precise(p.y), precise(p.low), precise(p.high)]),
      ),
    );
    const fitColor = seriesColor('orange');
    drawChart(canvas, () => ({
      type: 'line',
      data: {
        datasets: [
          {
            type: 'scatter' as const,
            label: result.components.length > 1 ? 'runs (sum of components)' : 'runs',
            data: summedRuns(result.components),
            borderColor: seriesColor(SERIES[0]),
            backgroundColor: seriesColor(SERIES[0]),
          },
          { label: 'model', data: result.curve.map((p) => ({ x: p.x, y: p.y })), borderColor: fitColor, pointRadius: 0 },
          { label: 'band high', data: result.curve.map((p) => ({ x: p.x, y: p.high })), borderWidth: 0, pointRadius: 0, fill: '+1', backgroundColor: translucent(fitColor, 0.18) },
          { label: 'band low', data: result.curve.map((p) => ({ x: p.x, y: p.low })), borderWidth: 0, pointRadius: 0 },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        scales: { x: { type: 'logarithmic', title: { display: true, text: 'x' } }, y: { type: 'linear', title: { display: true, text: 'y' } } },
        plugins: { legend: { labels: { filter: (item) => !item.text.startsWith('band') } } },
      },
    }));
  }
}

/**
 * The model is the sum of the components' models: chart it against the runs summed the same
 * way, each component's repetitions at one x averaged first.
 */
export function summedRuns(components: { points: { x: number; y: number }[] }[]): { x: number; y: number }[] {
  const byX = new Map<number, number>();
  for (const c of components) {
    const reps = new Map<number, { sum: number; n: number }>();
    for (const p of c.points) {
      const r = reps.get(p.x) ?? { sum: 0, n: 0 };
      reps.set(p.x, { sum: r.sum + p.y, n: r.n + 1 });
    }
    for (const [x, r] of reps) byX.set(x, (byX.get(x) ?? 0) + r.sum / r.n);
  }
  return [...byX].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x, y }));
}

/**
 * Six significant digits, or a dash: JSON carries ∞ and NaN as null, and a result remembered by an
 * older version may hold them; one cell must not keep the panel from drawing.
 */
function precise(value: number | null): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toPrecision(6) : '—';
}
