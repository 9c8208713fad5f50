// Socket API helpers for tests: list, read and wait on panes of a TempEnv's server.
import type { TempEnv } from './temp-env.js';
import { waitFor } from './wait-for.js';

/** The public pane shape (see src/api/pane-info.ts); only what tests look at is typed. */
export interface PaneInfo {
  pane_id: string;
  window_id: string;
  title: string;
  command: string[];
  cols: number;
  rows: number;
  pid?: number;
  foreground?: string;
  focused: boolean;
  active: boolean;
  exited?: { code: number | null; signal?: number | null };
  agent: { name?: string; state: string; source?: string; message?: string; since: number; hook_locked: boolean; waiting: boolean };
}

export async function listPanes(env: TempEnv, windowId?: string): Promise<PaneInfo[]> {
  const r = await env.call<{ panes: PaneInfo[] }>('pane.list', windowId ? { window_id: windowId } : {});
  return r.panes;
}

export async function paneById(env: TempEnv, id: string): Promise<PaneInfo | undefined> {
  return (await listPanes(env)).find((p) => p.pane_id === id);
}

/** Lines of a pane: `screen` (visible) or `scrollback` (history plus screen). */
export async function readPane(env: TempEnv, paneId: string, o: { source?: 'screen' | 'scrollback'; lines?: number } = {}): Promise<string[]> {
  const r = await env.call<{ lines: string[] }>('pane.read', { pane_id: paneId, source: o.source ?? 'screen', ...(o.lines ? { lines: o.lines } : {}) });
  return r.lines;
}

/** Polls pane.list until `pred` holds for the pane; resolves with the pane. */
export async function waitForPane(env: TempEnv, paneId: string, pred: (p: PaneInfo) => boolean, o: { timeoutMs?: number; message?: string } = {}): Promise<PaneInfo> {
  let last: PaneInfo | undefined;
  return waitFor(
    async () => {
      last = await paneById(env, paneId);
      return last && pred(last) ? last : undefined;
    },
    { timeoutMs: o.timeoutMs ?? 5000, intervalMs: 30, message: o.message ?? `pane ${paneId} condition`, observe: () => last ?? `no pane ${paneId}` },
  );
}
