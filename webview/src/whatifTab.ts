// The What-if tab: pick a trace, placements and networks; run PEM; chart and tabulate the
// predicted times beside the measured one, the critical path split and each rank's finish.

import type { NetworkEntry, TraceEntry, WhatIfResult, WhatIfScenarioResult, WhatIfScenarioSpec } from '../../server/src/protocol/lspExt';
import { drawChart, seriesColor, SERIES } from './charts';
import { custom, el, table } from './dom';
import { formatSeconds, formatSecondsRange } from './format';
import { post } from './host';
import { scenariosCsv } from './exportFormats';
import type { WhatIfInputs } from './state';

const NODE_CHOICES = [1, 2, 4, 8, 16];

/** Scenario specs for every chosen placement × network. */
export function scenarioSpecs(inputs: WhatIfInputs): WhatIfScenarioSpec[] {
  const placements: Pick<WhatIfScenarioSpec, 'nodes' | 'cyclic' | 'map' | 'mapSource'>[] = [
    ...inputs.nodes.map((nodes) => ({ nodes, cyclic: inputs.cyclic || undefined })),
    ...inputs.maps.flatMap((map) => {
      const parsed = parseMap(map);
      return parsed ? [{ map: parsed, mapSource: `the custom map "${map}"` }] : [];
    }),
  ];
  if (placements.length === 0) placements.push({});
  const networks: WhatIfScenarioSpec['network'][] = [
    ...inputs.networks.map((id) => (id === '' ? undefined : id)),
    ...inputs.customNetworks,
  ];
  if (networks.length === 0) networks.push(undefined);
  return placements.flatMap((placement) => networks.map((network) => ({ ...placement, network })));
}

/** "0,0,1,1" → [0, 0, 1, 1]; undefined unless every entry is a node index. */
export function parseMap(text: string): number[] | undefined {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  // As a map file's words (parseMapText): decimal digits, not "1e3" or "0x1".
  const map = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : NaN));
  return map.length > 0 && map.every((n) => Number.isSafeInteger(n)) ? map : undefined;
}

export class WhatIfTab {
  readonly element: HTMLElement;
  private readonly traceSelect = custom('vscode-single-select', { id: 'whatif-trace', 'aria-label': 'Trace' });
  private readonly nodesBox = el('div', { class: 'choices', id: 'whatif-nodes' });
  private readonly networksBox = el('div', { class: 'choices', id: 'whatif-networks' });
  private readonly mapsField = custom('vscode-textfield', { id: 'whatif-maps', placeholder: 'custom maps, e.g. 0,0,1,1; 0,1,0,1' });
  private readonly coresField = custom('vscode-textfield', { id: 'whatif-cores', type: 'number', min: 1, placeholder: 'as traced' });
  private readonly tracedNetworkSelect = custom('vscode-single-select', { id: 'whatif-traced-network', 'aria-label': 'Recorded with' });
  private readonly latencyField = custom('vscode-textfield', { id: 'whatif-latency', placeholder: 'latency µs' });
  private readonly bandwidthField = custom('vscode-textfield', { id: 'whatif-bandwidth', placeholder: 'bandwidth Gb/s' });
  /** A calibration measured several times gives each prediction a range: its points at their fastest and slowest. */
  private readonly spreadBox: HTMLElement;
  private readonly runButton = custom('vscode-button', { id: 'whatif-run' }, 'Predict');
  private readonly cancelButton = custom('vscode-button', { id: 'whatif-cancel', secondary: true, disabled: true }, 'Cancel');
  private readonly progressBar = el('div', { class: 'progress', id: 'whatif-progress', role: 'progressbar', hidden: true }, el('div', { class: 'progress-fill' }));
  private readonly progressText = el('span', { class: 'muted', id: 'whatif-progress-text' });
  private readonly results = el('div', { id: 'whatif-results' });
  private traces: TraceEntry[] = [];
  private networks: NetworkEntry[] = [];
  /** "Recorded with"'s choices: the assumed table, then the presets and the workspace's tables. */
  private recordedWith: { id: string; label: string }[] = [];

  constructor(
    private readonly inputs: WhatIfInputs,
    private readonly save: () => void,
    private readonly remember: (trace: string, result: WhatIfResult) => void,
  ) {
    this.traceSelect.addEventListener('change', () => {
      this.selectTrace((this.traceSelect as HTMLInputElement).value);
      this.renderNodeChoices();
      this.renderRecordedWith();
      this.save();
    });
    this.mapsField.addEventListener('change', () => {
      this.inputs.maps = (this.mapsField as HTMLInputElement).value.split(';').map((m) => m.trim()).filter((m) => m !== '');
      this.save();
    });
    this.coresField.addEventListener('change', () => {
      const text = (this.coresField as HTMLInputElement).value.trim();
      const cores = Number(text);
      this.inputs.coresPerNode = text !== '' && Number.isInteger(cores) && cores > 0 ? cores : undefined;
      this.save();
    });
    this.tracedNetworkSelect.addEventListener('change', () => {
      this.inputs.tracedNetwork = (this.tracedNetworkSelect as HTMLInputElement).value;
      this.save();
    });
    const addNetwork = custom('vscode-button', { id: 'whatif-add-network', secondary: true }, 'Add network');
    addNetwork.addEventListener('click', () => this.addCustomNetwork());
    this.spreadBox = this.checkbox('whatif-spread', "also with the tables' fastest and slowest measurements", inputs.tableSpread, (on) => (this.inputs.tableSpread = on));
    this.spreadBox.title = 'A table calibrated with --repeat keeps each point\'s fastest and slowest measurement: each scenario is predicted with both too, three replays instead of one.';
    this.runButton.addEventListener('click', () => this.run());
    this.cancelButton.addEventListener('click', () => post({ type: 'cancelWhatIf' }));
    (this.mapsField as HTMLInputElement).value = inputs.maps.join('; ');
    (this.coresField as HTMLInputElement).value = inputs.coresPerNode === undefined ? '' : String(inputs.coresPerNode);

    this.element = el(
      'section',
      { class: 'tab-body' },
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Trace'), this.traceSelect),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Recorded with'), this.tracedNetworkSelect),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Placements'), this.nodesBox, this.mapsField),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Networks'), this.networksBox),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Custom network'), this.latencyField, this.bandwidthField, addNetwork),
      el('div', { class: 'form-row' }, custom('vscode-label', {}, 'Cores per node'), this.coresField),
      el('div', { class: 'form-row' }, this.spreadBox),
      el('div', { class: 'form-row' }, this.runButton, this.cancelButton, this.progressBar, this.progressText),
      this.results,
    );
  }

  setOptions(traces: TraceEntry[], networks: NetworkEntry[], assumedTracedNetwork: string): void {
    // A table for the current trace's host that appeared since the last options (a calibration just written) is taken up.
    const known = this.traces.length > 0;
    const recordedWithBefore = this.traces.find((t) => t.path === this.inputs.trace)?.recordedWith;
    this.traces = traces;
    this.traceSelect.replaceChildren(
      ...traces.map((trace) => custom('vscode-option', { value: trace.path, selected: trace.path === this.inputs.trace }, trace.label)),
    );
    this.networks = [{ id: '', label: 'as traced', description: 'the network the trace was recorded on' }, ...networks];
    // The table the trace was recorded with: this machine's calibration says how its ranks shared cores and the network.
    this.recordedWith = [{ id: '', label: assumedTracedNetwork }, ...networks];
    const current = traces.find((t) => t.path === this.inputs.trace);
    if (!current) this.selectTrace(traces[0]?.path ?? '');
    else if (known && current.recordedWith !== recordedWithBefore) this.selectTrace(current.path);
    (this.traceSelect as HTMLInputElement).value = this.inputs.trace;
    if (traces.length === 0) this.results.replaceChildren(el('p', { class: 'muted' }, 'No OTF2 traces in the workspace: record one with "Causal Lens: Record MPI Trace".'));
    this.renderNodeChoices();
    this.renderNetworkChoices();
    this.renderRecordedWith();
  }

  /** A newly picked trace is replayed with the table measured on its host, when the workspace has one (the user may pick another). */
  private selectTrace(trace: string): void {
    this.inputs.trace = trace;
    this.inputs.tracedNetwork = this.traces.find((t) => t.path === trace)?.recordedWith ?? '';
  }

  private renderRecordedWith(): void {
    if (!this.recordedWith.some((n) => n.id === this.inputs.tracedNetwork)) this.inputs.tracedNetwork = '';
    this.tracedNetworkSelect.replaceChildren(
      ...this.recordedWith.map((network) => custom('vscode-option', { value: network.id, selected: network.id === this.inputs.tracedNetwork }, network.label)),
    );
    (this.tracedNetworkSelect as HTMLInputElement).value = this.inputs.tracedNetwork;
  }

  private renderNodeChoices(): void {
    const ranks = this.traces.find((t) => t.path === this.inputs.trace)?.ranks;
    const boxes = NODE_CHOICES.filter((n) => ranks === undefined || n <= ranks).map((nodes) =>
      this.checkbox(`whatif-nodes-${nodes}`, `${ranks ?? 'N'}/${nodes}`, this.inputs.nodes.includes(nodes), (on) => {
        this.inputs.nodes = on ? [...this.inputs.nodes, nodes].sort((a, b) => a - b) : this.inputs.nodes.filter((n) => n !== nodes);
      }),
    );
    boxes.push(this.checkbox('whatif-cyclic', 'cyclic', this.inputs.cyclic, (on) => (this.inputs.cyclic = on)));
    this.nodesBox.replaceChildren(...boxes);
  }

  private renderNetworkChoices(): void {
    const boxes = this.networks.map((network) => {
      const box = this.checkbox(`whatif-network-${network.id || 'traced'}`, network.label, this.inputs.networks.includes(network.id), (on) => {
        this.inputs.networks = on ? [...this.inputs.networks, network.id] : this.inputs.networks.filter((id) => id !== network.id);
      });
      box.title = network.description;
      return box;
    });
    const custom = this.inputs.customNetworks.map((net, index) =>
      this.checkbox(`whatif-custom-${index}`, customNetworkLabel(net), true, (on) => {
        if (!on) this.inputs.customNetworks = this.inputs.customNetworks.filter((n) => n !== net);
        this.renderNetworkChoices();
      }),
    );
    this.networksBox.replaceChildren(...boxes, ...custom);
  }

  private checkbox(id: string, label: string, checked: boolean, toggle: (on: boolean) => void): HTMLElement {
    const box = custom('vscode-checkbox', { id, label, checked });
    box.addEventListener('change', () => {
      toggle((box as HTMLInputElement).checked);
      this.save();
    });
    return box;
  }

  private addCustomNetwork(): void {
    const latencyText = (this.latencyField as HTMLInputElement).value.trim();
    const bandwidthText = (this.bandwidthField as HTMLInputElement).value.trim();
    const latencyUs = latencyText === '' ? NaN : Number(latencyText);
    const gbps = bandwidthText === '' ? NaN : Number(bandwidthText);
    // Beyond these no network is meant (a second of latency, 100 kbit/s, a Pbit/s); the server's
    // own bound, a table's 16 MiB message within an hour, holds inside them.
    if (!(latencyUs >= 0 && latencyUs <= 1e6) || !(gbps >= 1e-4 && gbps <= 1e6)) {
      this.progressText.textContent = 'A custom network needs a latency from 0 to 1,000,000 µs and a bandwidth from 0.0001 to 1,000,000 Gb/s.';
      return;
    }
    this.inputs.customNetworks.push({ latencySeconds: latencyUs * 1e-6, bandwidthBytesPerSecond: (gbps * 1e9) / 8 });
    this.save();
    this.renderNetworkChoices();
  }

  private run(): void {
    if (!this.inputs.trace) {
      this.progressText.textContent = 'Pick a trace first.';
      return;
    }
    // What was typed and cannot be used is said, not dropped.
    const coresText = (this.coresField as HTMLInputElement).value.trim();
    if (coresText !== '' && this.inputs.coresPerNode === undefined) {
      this.progressText.textContent = `Cores per node: "${coresText}" is not a whole number ≥ 1 (empty: as traced).`;
      return;
    }
    const badMap = this.inputs.maps.find((map) => parseMap(map) === undefined);
    if (badMap !== undefined) {
      this.progressText.textContent = `The custom map "${badMap}" is not node indices, rank 0 first (e.g. 0,0,1,1).`;
      return;
    }
    const scenarios = scenarioSpecs(this.inputs);
    this.setRunning(true);
    this.progress(0, `predicting ${scenarios.length} scenario${scenarios.length === 1 ? '' : 's'}…`);
    post({ type: 'runWhatIf', trace: this.inputs.trace, scenarios, coresPerNode: this.inputs.coresPerNode, tracedNetwork: this.inputs.tracedNetwork || undefined, tableSpread: this.inputs.tableSpread });
  }

  private setRunning(running: boolean): void {
    this.runButton.toggleAttribute('disabled', running);
    this.cancelButton.toggleAttribute('disabled', !running);
    this.progressBar.hidden = !running;
  }

  progress(fraction: number, message: string): void {
    const fill = this.progressBar.firstElementChild as HTMLElement;
    fill.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
    this.progressBar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    this.progressText.textContent = message;
  }

  showResult(trace: string, result: WhatIfResult): void {
    this.setRunning(false);
    if (!result.ok) {
      this.progressText.textContent = '';
      this.results.replaceChildren(el('p', { class: 'error', id: 'whatif-error' }, result.message));
      return;
    }
    this.remember(trace, result);
    this.progressText.textContent = '';
    this.renderResult(trace, result);
  }

  /** Draws a result (also the remembered one when the panel comes back). */
  renderResult(trace: string, result: Extract<WhatIfResult, { ok: true }>): void {
    const names = result.scenarios.map(scenarioName);
    const best = bestScenario(result.scenarios);
    const timeCanvas = el('canvas', { id: 'whatif-time-chart', 'aria-label': 'Predicted time per scenario' });
    const pathCanvas = el('canvas', { id: 'whatif-path-chart', 'aria-label': 'Critical path split' });
    const rankCanvas = el('canvas', { id: 'whatif-rank-chart', 'aria-label': 'Finish time per rank' });
    const rows = result.scenarios.map((s, i) => [
      i === best ? `★ ${names[i]}` : names[i],
      formatSeconds(s.predictedSeconds),
      s.tableSpread ? formatSecondsRange(s.tableSpread.lowSeconds, s.tableSpread.highSeconds) : '—',
      `${(((s.predictedSeconds - result.measuredSeconds) / result.measuredSeconds) * 100).toFixed(1)}%`,
      formatSeconds(s.criticalPath.computeSeconds),
      formatSeconds(s.criticalPath.commSeconds),
      formatSeconds(s.criticalPath.waitSeconds),
    ]);
    const exportCsv = custom('vscode-button', { id: 'whatif-export-csv', secondary: true }, 'Export CSV');
    const exportJson = custom('vscode-button', { id: 'whatif-export-json', secondary: true }, 'Export JSON');
    const base = trace.replace(/^.*[\\/]/, '').replace(/\.otf2$/, '');
    exportCsv.addEventListener('click', () => post({ type: 'export', format: 'csv', suggestedName: `${base}-whatif.csv`, content: scenariosCsv(result) }));
    exportJson.addEventListener('click', () => post({ type: 'export', format: 'json', suggestedName: `${base}-whatif.json`, content: JSON.stringify(result, null, 2) }));
    // How the trace was replayed (notes) and why it may be far off (warnings); a result remembered by an older version has neither.
    const notes = result.notes ?? [];
    const warnings = result.warnings ?? [];
    const problems = result.problems ?? [];
    this.results.replaceChildren(
      el('p', { id: 'whatif-measured' }, `Measured: ${formatSeconds(result.measuredSeconds)} · best: ${names[best] ?? '—'}`),
      ...(problems.length > 0 ? [problemList(problems)] : []),
      ...(warnings.length > 0 ? [el('ul', { id: 'whatif-warnings', class: 'warning', role: 'status' }, ...warnings.map((warning) => el('li', {}, warning)))] : []),
      ...(notes.length > 0 ? [el('ul', { id: 'whatif-notes' }, ...notes.map((note) => el('li', {}, note)))] : []),
      el('div', { class: 'charts' }, el('div', { class: 'chart' }, timeCanvas), el('div', { class: 'chart' }, pathCanvas), el('div', { class: 'chart' }, rankCanvas)),
      table('whatif-table', ['scenario', 'predicted', 'spread', 'vs measured', 'compute', 'communication', 'waiting'], rows, (i) => (i === best ? 'best' : undefined)),
      el('div', { class: 'form-row' }, exportCsv, exportJson),
    );
    drawChart(timeCanvas, () => ({
      type: 'bar',
      data: {
        labels: names,
        datasets: [
          { type: 'bar', label: 'predicted', data: result.scenarios.map((s) => s.predictedSeconds), backgroundColor: result.scenarios.map((_, i) => seriesColor(i === best ? 'green' : 'blue')) },
          // A thin floating bar over each prediction: its range over the tables' spread.
          ...(result.scenarios.some((s) => s.tableSpread)
            ? [{ type: 'bar' as const, label: "tables' spread", data: result.scenarios.map((s): [number, number] | null => (s.tableSpread ? [s.tableSpread.lowSeconds, s.tableSpread.highSeconds] : null)), backgroundColor: seriesColor('purple'), grouped: false, barPercentage: 0.15 }]
            : []),
          { type: 'line', label: 'measured', data: names.map(() => result.measuredSeconds), borderColor: seriesColor('orange'), pointRadius: 0, borderDash: [6, 4] },
        ],
      },
      options: { responsive: true, maintainAspectRatio: false, scales: { y: { beginAtZero: true, title: { display: true, text: 'seconds' } } } },
    }));
    drawChart(pathCanvas, () => ({
      type: 'bar',
      data: {
        labels: names,
        datasets: [
          { label: 'compute', data: result.scenarios.map((s) => s.criticalPath.computeSeconds), backgroundColor: seriesColor('blue') },
          { label: 'communication', data: result.scenarios.map((s) => s.criticalPath.commSeconds), backgroundColor: seriesColor('purple') },
          { label: 'waiting', data: result.scenarios.map((s) => s.criticalPath.waitSeconds), backgroundColor: seriesColor('red') },
        ],
      },
      options: { responsive: true, maintainAspectRatio: false, scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'critical path, s' } } } },
    }));
    drawChart(rankCanvas, () => ({
      type: 'line',
      data: {
        labels: (result.scenarios[0]?.perRank ?? []).map((r) => String(r.rank)),
        datasets: result.scenarios.map((s, i) => ({
          label: names[i],
          data: s.perRank.map((r) => r.finishSeconds),
          borderColor: seriesColor(SERIES[i % SERIES.length]),
          backgroundColor: seriesColor(SERIES[i % SERIES.length]),
          // Thousands of ranks make a line; a dot each would hide it.
          pointRadius: s.perRank.length > RANKS_WITH_DOTS ? 0 : 3,
        })),
      },
      options: { responsive: true, maintainAspectRatio: false, scales: { x: { title: { display: true, text: 'rank' } }, y: { title: { display: true, text: 'finish, s' } } } },
    }));
  }
}

function customNetworkLabel(net: { latencySeconds: number; bandwidthBytesPerSecond: number }): string {
  return `${(net.latencySeconds * 1e6).toFixed(1)} µs, ${((net.bandwidthBytesPerSecond * 8) / 1e9).toPrecision(3)} Gb/s`;
}

/** Short enough for a chart axis: the network's name without its parenthesised details. */
export function scenarioName(s: WhatIfScenarioResult): string {
  return `${s.placement} · ${s.network.replace(/\s*\(.*\)\s*$/, '')}`;
}

/** Ranks up to which the finish chart marks each rank with a dot. */
const RANKS_WITH_DOTS = 64;

/** Problems listed one by one; a trace damaged throughout has thousands, which the CLI prints all of. */
const PROBLEMS_SHOWN = 20;

/** What the prediction could not use, above its figures: they stand on the rest of the trace. */
function problemList(problems: readonly string[]): HTMLElement {
  const more = problems.length - PROBLEMS_SHOWN;
  return el(
    'div',
    { id: 'whatif-problems', class: 'warning', role: 'status' },
    el('p', {}, `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}: the prediction uses what could be read and replayed.`),
    el('ul', {}, ...problems.slice(0, PROBLEMS_SHOWN).map((problem) => el('li', {}, problem)), ...(more > 0 ? [el('li', {}, `… and ${more} more (\`causal-lens whatif\` prints them all)`)] : [])),
  );
}

/** The scenario predicted fastest (first of equals). */
export function bestScenario(scenarios: WhatIfScenarioResult[]): number {
  let best = -1;
  scenarios.forEach((s, i) => {
    if (best < 0 || s.predictedSeconds < scenarios[best].predictedSeconds) best = i;
  });
  return best;
}
