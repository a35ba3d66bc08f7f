// The panel's side of the webview API: typed messages out, and the state VS Code keeps
// while the panel is hidden or the window reloads (getState/setState, no retained context).

import type { ToHost } from './messages';
import type { PanelState } from './state';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(message: ToHost): void {
  api.postMessage(message);
}

export function savedState(): unknown {
  return api.getState();
}

export function saveState(state: PanelState): void {
  api.setState(state);
}
