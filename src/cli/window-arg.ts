// The window a CLI command acts on: `--window w3` (an id) or `--window 2` (the bar number), else the caller's own.
import type { ApiClient } from '../api/client.js';
import { WINDOW_INDEX_MAX } from '../core/action-limits.js';
import { type CliContext, UsageError } from './define-command.js';

/** Checks the spelling only: a window id, a bar number (tmux's `-t 2`, `-t :2`), or undefined for the default. */
export function windowSpec(v: unknown): { id: string } | { index: number } | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim().replace(/^:/, '');
  if (/^w\d{1,9}$/.test(s)) return { id: s };
  if (/^\d{1,9}$/.test(s) && Number(s) <= WINDOW_INDEX_MAX) return { index: Number(s) };
  throw new UsageError(`--window ${JSON.stringify(String(v).slice(0, 40))} is not a window (an id like w2, or its number in the bar)`);
}

/** The window id: the one asked for, or the window of the pane this runs in, or the window clients see. */
export async function windowId(ctx: CliContext, api: ApiClient, v: unknown): Promise<string> {
  const spec = windowSpec(v);
  if (spec && 'id' in spec) return spec.id;
  const { windows } = await api.request<{ windows: Array<{ window_id: string; index: number; panes: string[] }> }>('window.list', {}, { timeoutMs: 5000 });
  if (spec) {
    const w = windows.find((x) => x.index === spec.index);
    if (!w) throw new UsageError(`no window ${spec.index} (castellan window list shows them)`);
    return w.window_id;
  }
  const mine = ctx.env.CASTELLAN_PANE_ID;
  const own = mine ? windows.find((x) => x.panes.includes(mine)) : undefined;
  if (own) return own.window_id;
  // Outside a pane: the window attached clients see (the focused pane's), as tmux takes the current window.
  const { panes } = await api.request<{ panes: Array<{ window_id: string; focused: boolean }> }>('pane.list', {}, { timeoutMs: 5000 });
  const shown = panes.find((p) => p.focused)?.window_id ?? windows[0]?.window_id;
  if (!shown) throw new UsageError('no window');
  return shown;
}
