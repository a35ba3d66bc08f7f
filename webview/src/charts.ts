// chart.js, registered once, coloured from the workbench theme (--vscode-charts-* for
// series, the editor's foreground and borders for text and grid) and recoloured when the
// theme changes (VS Code swaps the body's vscode-light/-dark/-high-contrast class).

import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  ChartConfiguration,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, ScatterController, Tooltip);

export const SERIES = ['blue', 'orange', 'green', 'purple', 'red', 'yellow'] as const;
export type SeriesColor = (typeof SERIES)[number];

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export function seriesColor(color: SeriesColor): string {
  const fallbacks: Record<SeriesColor, string> = {
    blue: '#3794ff',
    orange: '#d18616',
    green: '#89d185',
    purple: '#b180d7',
    red: '#f14c4c',
    yellow: '#cca700',
  };
  return cssVar(`--vscode-charts-${color}`, fallbacks[color]);
}

/** The same colour with an alpha, for confidence bands. */
export function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (!hex) return color;
  const n = parseInt(hex[1], 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

function applyTheme(): void {
  Chart.defaults.color = cssVar('--vscode-foreground', '#cccccc');
  Chart.defaults.borderColor = cssVar('--vscode-charts-lines', 'rgba(128, 128, 128, 0.35)');
  Chart.defaults.font.family = cssVar('--vscode-font-family', 'sans-serif');
  Chart.defaults.font.size = Number.parseFloat(cssVar('--vscode-font-size', '13')) || 13;
  Chart.defaults.animation = false;
}

const live = new Set<{ chart: Chart; rebuild: () => ChartConfiguration }>();

/** Replaces whatever chart `canvas` holds; `build` runs again when the theme changes. */
export function drawChart(canvas: HTMLCanvasElement, build: () => ChartConfiguration): Chart {
  for (const entry of live) {
    if (entry.chart.canvas === canvas) {
      entry.chart.destroy();
      live.delete(entry);
    }
  }
  applyTheme();
  const chart = new Chart(canvas, build());
  live.add({ chart, rebuild: build });
  return chart;
}

new MutationObserver(() => {
  applyTheme();
  for (const entry of [...live]) {
    const canvas = entry.chart.canvas;
    entry.chart.destroy();
    live.delete(entry);
    drawChart(canvas, entry.rebuild);
  }
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
