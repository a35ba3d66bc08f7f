// What the panel remembers across hiding and reloads: each tab's inputs and last result.

import type { CurveResult, FitResult, WhatIfResult } from '../../server/src/protocol/lspExt';
import { PANEL_TABS, PanelTab } from './messages';

export interface WhatIfInputs {
  trace: string;
  /** Chosen node counts (the trace's ranks spread over M nodes). */
  nodes: number[];
  cyclic: boolean;
  /** Custom rank→node maps, as typed ("0,0,1,1"). */
  maps: string[];
  /** Chosen network ids; "" is the traced network. */
  networks: string[];
  customNetworks: { latencySeconds: number; bandwidthBytesPerSecond: number }[];
  /** Undefined: as the trace says each node had. */
  coresPerNode?: number;
  /** The network id of the table the trace was recorded with; "": an assumed shared memory. */
  tracedNetwork: string;
  /** Also predict with the tables' points at their fastest and slowest measurements. */
  tableSpread: boolean;
}

export interface PanelState {
  tab: PanelTab;
  whatIf: { inputs: WhatIfInputs; last?: { trace: string; result: WhatIfResult } };
  causal: { last?: CurveResult };
  scaling: { csv: string; predictAt: string; last?: { csv: string; result: FitResult } };
}

export function initialState(): PanelState {
  return {
    tab: 'whatif',
    whatIf: {
      inputs: { trace: '', nodes: [1, 2], cyclic: false, maps: [], networks: [''], customNetworks: [], tracedNetwork: '', tableSpread: true },
    },
    causal: {},
    scaling: { csv: '', predictAt: '' },
  };
}

/** A saved state from an older or damaged panel falls back to the defaults field by field. */
export function restoreState(saved: unknown): PanelState {
  const fresh = initialState();
  if (typeof saved !== 'object' || saved === null) return fresh;
  const s = saved as Partial<PanelState>;
  return {
    tab: PANEL_TABS.includes(s.tab as PanelTab) ? (s.tab as PanelTab) : fresh.tab,
    whatIf: { inputs: { ...fresh.whatIf.inputs, ...(s.whatIf?.inputs ?? {}) }, last: s.whatIf?.last },
    causal: { last: s.causal?.last },
    scaling: { ...fresh.scaling, ...(s.scaling ?? {}) },
  };
}
