// Installs a restored session shape (windows, layouts, panes) in an empty state, asking the runtime to spawn every pane.
import type { AnyAction } from './actions.js';
import { initialAgentInfo } from './agent-state.js';
import { panesOf } from './layout.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { areaForTerminal } from './select.js';
import type { EpisodeInfo, LayoutNode, PaneId, PaneState, WindowId, WindowState } from './types.js';

export interface RestoredPane {
  id: PaneId;
  name?: string;
  command: string[];
  cwd: string;
  env?: Record<string, string>;
  parent?: PaneId;
  episode?: EpisodeInfo;
  /** The directory the snapshot recorded, gone at restore (`cwd` is where the pane opened instead). */
  cwdGone?: string;
}

export interface RestoredWindow {
  id: WindowId;
  name?: string;
  layout: LayoutNode;
  active: PaneId;
  zoomed?: PaneId;
  panes: RestoredPane[];
}

export type RestoreAction = { type: 'server.restore'; cols: number; rows: number; windows: RestoredWindow[]; current?: WindowId };

const num = (id: string, re: RegExp): number => Number(re.exec(id)?.[1] ?? NaN);

/** Every id must be well formed and used once, every leaf a listed pane of its own window: otherwise nothing is installed. */
function check(windows: RestoredWindow[]): string | undefined {
  const seenW = new Set<string>();
  const seenP = new Set<string>();
  for (const w of windows) {
    if (!/^w\d+$/.test(w.id) || seenW.has(w.id)) return `bad window id ${w.id}`;
    seenW.add(w.id);
    const leaves = panesOf(w.layout);
    const listed = new Set(w.panes.map((p) => p.id));
    if (leaves.length !== listed.size || leaves.some((l) => !listed.has(l))) return `window ${w.id}: layout and panes disagree`;
    for (const p of w.panes) {
      // A pane keeps its id for life, also when break-pane/join-pane moved it to another window: unique is what counts.
      if (!/^w\d+:p\d+$/.test(p.id) || seenP.has(p.id)) return `bad pane id ${p.id}`;
      if (!p.command.length) return `pane ${p.id}: empty command`;
      seenP.add(p.id);
    }
    if (!listed.has(w.active)) return `window ${w.id}: active pane ${w.active} is not in it`;
    if (w.zoomed && !listed.has(w.zoomed)) return `window ${w.id}: zoomed pane ${w.zoomed} is not in it`;
  }
  return windows.length ? undefined : 'no windows';
}

export function reduceRestore(d: Draft, a: Extract<AnyAction, { type: 'server.restore' }>): void {
  if (d.state.windowOrder.length) return fail(d, 'not_allowed', 'the session already has windows');
  const why = check(a.windows);
  if (why) return fail(d, 'invalid_params', `restore: ${why}`);
  const size = { cols: Math.max(10, Math.min(2000, a.cols)), rows: Math.max(4, Math.min(1000, a.rows)) };
  const windows: Record<string, WindowState> = {};
  const panes: Record<string, PaneState> = {};
  // Numbers already taken, by windows and by the panes named after a window (which may now live in another):
  // a new window or pane must never reuse an id a restored pane still carries.
  const allPanes = a.windows.flatMap((w) => w.panes.map((p) => p.id));
  const nextWindowNo = 1 + Math.max(0, ...a.windows.map((w) => num(w.id, /^w(\d+)$/)), ...allPanes.map((id) => num(id, /^w(\d+):/)));
  a.windows.forEach((w, i) => {
    const nextPaneNo = 1 + Math.max(0, ...allPanes.filter((id) => id.startsWith(`${w.id}:p`)).map((id) => num(id, /:p(\d+)$/)));
    windows[w.id] = { id: w.id, index: i + 1, name: w.name || undefined, layout: w.layout, active: w.active, zoomed: w.zoomed, nextPaneNo, size: areaForTerminal(size) };
    for (const p of w.panes) {
      panes[p.id] = { id: p.id, window: w.id, name: p.name || undefined, command: p.command, cwd: p.cwd, agent: initialAgentInfo(d.ctx.now), createdAt: d.ctx.now, env: p.env, parent: p.parent, ...(p.episode ? { episode: p.episode } : {}), ...(p.cwdGone ? { cwdGone: p.cwdGone } : {}) };
    }
  });
  const windowOrder = a.windows.map((w) => w.id);
  const current = a.current && windows[a.current] ? a.current : windowOrder[0];
  d.state = { ...d.state, defaultSize: size, windows, windowOrder, panes, nextWindowNo, currentWindow: current };
  for (const w of a.windows) {
    d.events.push({ type: 'window_created', window: w.id, index: windows[w.id].index, ...(w.name ? { name: w.name } : {}) });
    for (const p of w.panes) {
      d.effects.push({ type: 'spawn', pane: p.id, command: p.command, cwd: p.cwd, env: p.env });
      d.events.push({ type: 'pane_created', pane: p.id, window: w.id, command: p.command, cwd: p.cwd, ...(p.parent ? { parent: p.parent } : {}) });
    }
  }
  d.result = { windows: windowOrder.length, panes: Object.keys(panes).length };
}
