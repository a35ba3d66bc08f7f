// The panel's entry point: three tabs, messages from the host dispatched to them, state
// saved on every change so the panel comes back as it was.

import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { CausalTab } from './causalTab';
import { custom, el } from './dom';
import { post, savedState, saveState } from './host';
import { PANEL_TABS, parseToPanel } from './messages';
import { ScalingTab } from './scalingTab';
import { restoreState } from './state';
import { WhatIfTab } from './whatifTab';

const state = restoreState(savedState());
const save = () => saveState(state);

const whatIf = new WhatIfTab(state.whatIf.inputs, save, (trace, result) => {
  state.whatIf.last = { trace, result };
  save();
});
const causal = new CausalTab();
const scaling = new ScalingTab(state.scaling, save);

const titles = { whatif: 'What-if', causal: 'Causal', scaling: 'Scaling' };
const bodies = { whatif: whatIf.element, causal: causal.element, scaling: scaling.element };
const tabs = custom(
  'vscode-tabs',
  { id: 'tabs', 'selected-index': PANEL_TABS.indexOf(state.tab) },
  ...PANEL_TABS.flatMap((tab) => [
    custom('vscode-tab-header', { slot: 'header', 'data-tab': tab }, titles[tab]),
    custom('vscode-tab-panel', { 'data-tab': tab }, bodies[tab]),
  ]),
);
tabs.addEventListener('vsc-tabs-select', (event) => {
  state.tab = PANEL_TABS[(event as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex] ?? 'whatif';
  save();
});
const problems = el('p', { class: 'error', id: 'panel-problem', hidden: true });
document.body.append(problems, tabs);

if (state.whatIf.last?.result.ok) whatIf.renderResult(state.whatIf.last.trace, state.whatIf.last.result);
if (state.causal.last) causal.show(state.causal.last);
if (state.scaling.last) scaling.show(state.scaling.last.result);

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseToPanel(event.data);
  if (typeof message === 'string') {
    problems.hidden = false;
    problems.textContent = `Causal Lens panel: ignored ${message} from the extension.`;
    return;
  }
  switch (message.type) {
    case 'options':
      whatIf.setOptions(message.traces, message.networks, message.assumedTracedNetwork);
      scaling.setFiles(message.scalingFiles);
      break;
    case 'whatIfProgress':
      whatIf.progress(message.fraction, message.message);
      break;
    case 'whatIfResult':
      whatIf.showResult(message.trace, message.result);
      break;
    case 'curve':
      state.causal.last = message.result ?? undefined;
      save();
      causal.show(message.result);
      break;
    case 'fitResult':
      state.scaling.last = { csv: message.csv, result: message.result };
      save();
      scaling.show(message.result);
      break;
    case 'showTab':
      state.tab = message.tab;
      (tabs as HTMLElement & { selectedIndex: number }).selectedIndex = PANEL_TABS.indexOf(message.tab);
      save();
      break;
  }
});

post({ type: 'ready' });
