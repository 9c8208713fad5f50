// Client commands that are one request to the server and a notice about its answer (themes, config, the agent picker).
import type { Notice, Overlay, PickerAgent } from './ui-state.js';

export interface RequestHost {
  api: { request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T> };
  notify(n: Notice, ms: number): void;
  overlay(): Overlay | undefined;
  setOverlay(o: Overlay | undefined): void;
  render(): void;
}

const failed = (h: RequestHost, prefix = '') => (e: Error) => h.notify({ level: 'error', text: `${prefix}${e.message}` }, 5000);

export function nextTheme(h: RequestHost, themes: string[], current: string): void {
  const names = themes.length ? themes : ['default'];
  const next = names[(names.indexOf(current) + 1) % names.length];
  h.api
    .request<{ theme: string; diagnostics: string[] }>('theme.set', { name: next })
    .then((r) => h.notify({ level: r.diagnostics.length ? 'warning' : 'info', text: r.diagnostics.length ? `theme ${r.theme}: ${r.diagnostics[0]}` : `theme: ${r.theme}` }, 3000))
    .catch(failed(h));
}

export function reloadConfig(h: RequestHost): void {
  h.api
    .request<{ diagnostics: unknown[]; notes?: string[] }>('config.reload')
    .then((r) => h.notify({ level: r.diagnostics.length ? 'warning' : 'info', text: `config reloaded${r.diagnostics.length ? ` with ${r.diagnostics.length} problem(s)` : ''}${r.notes?.length ? `; ${r.notes.join('; ')}` : ''}` }, 6000))
    .catch(failed(h));
}

/** `prefix a`: the picker opens at once and fills in when agent.list answers. */
export function openAgentPicker(h: RequestHost, target: string | undefined): void {
  h.setOverlay({ kind: 'agents', items: [], index: 0, loading: true, target });
  h.render();
  h.api
    .request<{ agents: PickerAgent[] }>('agent.list', target ? { pane_id: target } : {}, { timeoutMs: 5000 })
    .then((r) => {
      const o = h.overlay();
      if (o?.kind !== 'agents') return;
      const items = r.agents.map((a) => ({ name: a.name, description: a.description, command: a.command, source: a.source, startable: a.startable, ...(a.reason ? { reason: a.reason } : {}) }));
      h.setOverlay({ ...o, items, loading: false, index: Math.max(0, items.findIndex((a) => a.startable)) });
      h.render();
    })
    .catch((e: Error) => {
      if (h.overlay()?.kind === 'agents') h.setOverlay(undefined);
      failed(h, 'agents: ')(e);
    });
}

/** Starts an agent definition in a new pane beside `target` (the pane focused when the picker opened). */
export function launchAgent(h: RequestHost, name: string, target: string | undefined): void {
  h.api
    .request<{ agent_id: string; pane_id: string }>('agent.start', { name, ...(target ? { pane: target } : {}) }, { timeoutMs: 15_000 })
    .then((r) => h.notify({ level: 'info', text: `started ${r.agent_id} in ${r.pane_id}` }, 4000))
    .catch((e: Error) => h.notify({ level: 'error', text: e.message }, 8000));
}
