// The Causal tab: the selected line's curves (program speedup against line speedup, one
// per progress point, with the 95% band). Selecting a line in the editor or the tree
// selects it here; clicking a point reveals the line.

import type { CurveResult } from '../../server/src/protocol/lspExt';
import { drawChart, seriesColor, SERIES, translucent } from './charts';
import { el } from './dom';
import { post } from './host';

export class CausalTab {
  readonly element: HTMLElement;
  private readonly heading = el('h2', { id: 'causal-line' }, 'No line selected');
  private readonly summary = el('div', { id: 'causal-summary' });
  private readonly canvas = el('canvas', { id: 'causal-chart', 'aria-label': 'Causal curve of the selected line' });

  constructor() {
    this.element = el(
      'section',
      { class: 'tab-body' },
      this.heading,
      el('p', { class: 'muted' }, 'Select a line with causal data in the editor or in "Lines by Impact". Click a point to go to the line.'),
      this.summary,
      el('div', { class: 'chart tall' }, this.canvas),
    );
  }

  show(result: CurveResult | null): void {
    if (!result || result.curves.length === 0) {
      this.heading.textContent = result ? `${result.label}: no causal experiments` : 'No line selected';
      this.summary.replaceChildren();
      drawChart(this.canvas, () => ({ type: 'scatter', data: { datasets: [] } }));
      return;
    }
    this.heading.textContent = result.label;
    this.summary.replaceChildren(
      ...result.curves.map((c) => el('p', { class: 'curve-summary' }, `${c.progressPoint}: ${c.summary}`)),
    );
    drawChart(this.canvas, () => ({
      type: 'line',
      data: {
        datasets: result.curves.flatMap((curve, i) => {
          const color = seriesColor(SERIES[i % SERIES.length]);
          const band = curve.points.filter((p) => p.low !== null && p.high !== null);
          return [
            { label: `${curve.progressPoint}`, data: curve.points.map((p) => ({ x: p.x * 100, y: p.y * 100 })), borderColor: color, backgroundColor: color, pointRadius: 4 },
            { label: `${curve.progressPoint} 95% high`, data: band.map((p) => ({ x: p.x * 100, y: (p.high as number) * 100 })), borderWidth: 0, pointRadius: 0, fill: '+1', backgroundColor: translucent(color, 0.18) },
            { label: `${curve.progressPoint} 95% low`, data: band.map((p) => ({ x: p.x * 100, y: (p.low as number) * 100 })), borderWidth: 0, pointRadius: 0 },
          ];
        }),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x: { type: 'linear', min: 0, max: 100, title: { display: true, text: 'line speedup, %' } },
          y: { type: 'linear', title: { display: true, text: 'program speedup, %' } },
        },
        plugins: { legend: { labels: { filter: (item) => !item.text.includes('95%') } } },
        onClick: () => post({ type: 'revealLine', uri: result.uri, line: result.line }),
      },
    }));
  }
}
