// Immutable-update helpers the per-area reducers share.
import type { Draft } from './reducer.js';
import type { ClientState, PaneState, WindowState } from './types.js';

export function putPane(d: Draft, p: PaneState): void {
  d.state = { ...d.state, panes: { ...d.state.panes, [p.id]: p } };
}

export function putWindow(d: Draft, w: WindowState): void {
  d.state = { ...d.state, windows: { ...d.state.windows, [w.id]: w } };
}

export function putClient(d: Draft, c: ClientState): void {
  d.state = { ...d.state, clients: { ...d.state.clients, [c.id]: c } };
}

export function dropPane(d: Draft, id: string): void {
  const panes = { ...d.state.panes };
  delete panes[id];
  d.state = { ...d.state, panes };
}
