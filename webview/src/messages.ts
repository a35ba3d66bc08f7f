// The messages between the panel (webview/src, in the browser) and its host
// (client/src/panel.ts, in the extension host). Both sides import this file and validate
// what they receive with it: a webview is a separate origin, so nothing it sends is trusted
// by shape alone, and the panel must not break on a host from another version.

import type {
  CurveResult,
  FitResult,
  NetworkEntry,
  TraceEntry,
  WhatIfResult,
  WhatIfScenarioSpec,
} from '../../server/src/protocol/lspExt';

export type PanelTab = 'whatif' | 'causal' | 'scaling';
export const PANEL_TABS: readonly PanelTab[] = ['whatif', 'causal', 'scaling'];

/** Host → panel. */
export type ToPanel =
  | { type: 'options'; traces: TraceEntry[]; networks: NetworkEntry[]; assumedTracedNetwork: string; scalingFiles: { path: string; label: string }[] }
  | { type: 'whatIfProgress'; fraction: number; message: string }
  | { type: 'whatIfResult'; trace: string; result: WhatIfResult }
  | { type: 'curve'; result: CurveResult | null }
  | { type: 'fitResult'; csv: string; result: FitResult }
  | { type: 'showTab'; tab: PanelTab };

/** Panel → host. */
export type ToHost =
  | { type: 'ready' }
  | { type: 'refreshOptions' }
  | { type: 'runWhatIf'; trace: string; scenarios: WhatIfScenarioSpec[]; coresPerNode?: number; tracedNetwork?: string; tableSpread?: boolean }
  | { type: 'cancelWhatIf' }
  | { type: 'revealLine'; uri: string; line: number }
  | { type: 'fit'; csv: string; predictAt: number[] }
  | { type: 'export'; format: 'csv' | 'json'; suggestedName: string; content: string };

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf =
  (item: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(item);
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);
const shape =
  (fields: Record<string, Check>): Check =>
  (v) =>
    isObject(v) && Object.entries(fields).every(([key, check]) => check(v[key]));

const entry = shape({ path: isString, label: isString });
const traceEntry = shape({ path: isString, label: isString, ranks: optional(isNumber), recordedWith: optional(isString) });
const network = shape({ id: isString, label: isString, description: isString });
const customNetwork = shape({ latencySeconds: isNumber, bandwidthBytesPerSecond: isNumber });
const scenario = shape({
  nodes: optional((v) => Number.isInteger(v) && (v as number) > 0),
  cyclic: optional((v) => typeof v === 'boolean'),
  map: optional(arrayOf((v) => Number.isSafeInteger(v) && (v as number) >= 0)),
  mapSource: optional(isString),
  network: optional((v) => isString(v) || customNetwork(v)),
});

/** The fields each message type must have; the results from the server are checked for their discriminant only. */
const TO_PANEL: Record<ToPanel['type'], Check> = {
  options: shape({ traces: arrayOf(traceEntry), networks: arrayOf(network), assumedTracedNetwork: isString, scalingFiles: arrayOf(entry) }),
  whatIfProgress: shape({ fraction: isNumber, message: isString }),
  whatIfResult: shape({ trace: isString, result: shape({ ok: (v) => typeof v === 'boolean' }) }),
  curve: shape({ result: (v) => v === null || shape({ uri: isString, line: isNumber, curves: Array.isArray })(v) }),
  fitResult: shape({ csv: isString, result: shape({ ok: (v) => typeof v === 'boolean' }) }),
  showTab: shape({ tab: oneOf(...PANEL_TABS) }),
};

const TO_HOST: Record<ToHost['type'], Check> = {
  ready: () => true,
  refreshOptions: () => true,
  runWhatIf: shape({
    trace: isString,
    scenarios: arrayOf(scenario),
    coresPerNode: optional((v) => Number.isInteger(v) && (v as number) > 0),
    tracedNetwork: optional(isString),
    tableSpread: optional((v) => typeof v === 'boolean'),
  }),
  cancelWhatIf: () => true,
  revealLine: shape({ uri: isString, line: (v) => Number.isInteger(v) && (v as number) >= 0 }),
  fit: shape({ csv: isString, predictAt: arrayOf(isNumber) }),
  export: shape({ format: oneOf('csv', 'json'), suggestedName: isString, content: isString }),
};

function parse<T extends { type: string }>(table: Record<string, Check>, message: unknown): T | string {
  if (!isObject(message) || typeof message.type !== 'string') return 'a message without a type';
  const check = Object.prototype.hasOwnProperty.call(table, message.type) ? table[message.type] : undefined;
  if (!check) return `an unknown message type "${message.type.slice(0, 40)}"`;
  return check(message) ? (message as unknown as T) : `a malformed "${message.type}" message`;
}

/** The message if it is a well-formed ToPanel, else why not. */
export function parseToPanel(message: unknown): ToPanel | string {
  return parse<ToPanel>(TO_PANEL, message);
}

/** The message if it is a well-formed ToHost, else why not. */
export function parseToHost(message: unknown): ToHost | string {
  return parse<ToHost>(TO_HOST, message);
}
