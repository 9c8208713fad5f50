// Window, client and server-lifecycle actions.
import type { AnyAction } from './actions.js';
import { putClient, putWindow } from './draft.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { closeWindow, createWindow, renumber, showWindow } from './reduce-common.js';
import { equalize, panesOf, rotatePanes } from './layout.js';
import { cycleLayout, presetLayout } from './layout-presets.js';
import { targetWindowId } from './select.js';
import { cleanName } from './text.js';
import { reduceRestore } from './reduce-restore.js';

function clampSize(cols: number, rows: number) {
  return { cols: Math.max(10, Math.min(2000, Math.floor(cols) || 80)), rows: Math.max(4, Math.min(1000, Math.floor(rows) || 24)) };
}

export function reduceWindowAction(d: Draft, a: AnyAction): void {
  switch (a.type) {
    case 'server.init': {
      if (d.state.windowOrder.length) return;
      d.state = { ...d.state, defaultSize: clampSize(a.cols, a.rows) };
      const w = createWindow(d, { command: a.command, cwd: a.cwd, env: a.env });
      d.state = { ...d.state, currentWindow: w.id };
      d.result = { window: w.id, pane: w.active };
      return;
    }
    case 'server.restore':
      return reduceRestore(d, a);
    case 'window.new': {
      const w = createWindow(d, { command: a.command, cwd: a.cwd, env: a.env, windowName: a.name ? cleanName(a.name) : undefined });
      if (!a.detached) showWindow(d, w.id, d.ctx.client);
      d.result = { window: w.id, pane: w.active };
      return;
    }
    case 'window.select': {
      const cur = targetWindowId(d.state, d.ctx.client);
      const order = d.state.windowOrder;
      let to: string | undefined;
      if (a.window) to = d.state.windows[a.window] ? a.window : undefined;
      else if (a.index !== undefined) to = order.find((id) => d.state.windows[id].index === a.index);
      else if (a.relative === 'last') {
        const c = d.ctx.client ? d.state.clients[d.ctx.client] : undefined;
        to = c?.lastWindow && d.state.windows[c.lastWindow] ? c.lastWindow : undefined;
        if (!to) return;
      } else if (a.relative && cur) {
        const i = order.indexOf(cur);
        to = order[(i + (a.relative === 'next' ? 1 : order.length - 1)) % order.length];
      }
      if (!to) {
        fail(d, 'window_not_found', a.window ? `no window ${a.window}` : a.index !== undefined ? `no window ${a.index}` : 'no window to select');
        return;
      }
      showWindow(d, to, d.ctx.client);
      d.result = { window: to };
      return;
    }
    case 'window.rename': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      const w = id ? d.state.windows[id] : undefined;
      if (!w) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      const name = cleanName(a.name);
      putWindow(d, { ...w, name: name || undefined });
      d.events.push({ type: 'window_renamed', window: w.id, name });
      return;
    }
    case 'window.synchronize': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      const w = id ? d.state.windows[id] : undefined;
      if (!w) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      const on = a.mode === 'on' ? true : a.mode === 'off' ? false : !w.synchronized;
      putWindow(d, { ...w, synchronized: on || undefined });
      d.events.push({ type: 'window_synchronized', window: w.id, on });
      d.result = { window: w.id, synchronized: on };
      return;
    }
    case 'window.layout': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      const w = id ? d.state.windows[id] : undefined;
      if (!w) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      const name = a.name ?? cycleLayout(w.layoutName, a.cycle === 'prev' ? -1 : 1);
      // As in tmux, choosing a layout unzooms: the point is to see the panes arranged.
      putWindow(d, { ...w, layout: presetLayout(name, w.layout), layoutName: name, zoomed: undefined });
      d.events.push({ type: 'layout_changed', window: w.id });
      d.result = { window: w.id, layout: name };
      return;
    }
    case 'window.rotate': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      const w = id ? d.state.windows[id] : undefined;
      if (!w) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      const before = panesOf(w.layout);
      if (before.length < 2) return;
      const layout = rotatePanes(w.layout, a.direction ?? 'down');
      // tmux keeps the focus where it was on screen: the pane that moved into the active one's place takes it.
      const active = panesOf(layout)[before.indexOf(w.active)] ?? w.active;
      putWindow(d, { ...w, layout, active, zoomed: undefined });
      d.events.push({ type: 'layout_changed', window: w.id });
      return;
    }
    case 'window.spread': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      const w = id ? d.state.windows[id] : undefined;
      if (!w) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      putWindow(d, { ...w, layout: equalize(w.layout), zoomed: undefined });
      d.events.push({ type: 'layout_changed', window: w.id });
      return;
    }
    case 'window.move': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      if (!id || !d.state.windows[id]) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      const order = d.state.windowOrder.filter((x) => x !== id);
      const at = Math.min(order.length, a.index - 1);
      d.state = { ...d.state, windowOrder: [...order.slice(0, at), id, ...order.slice(at)] };
      renumber(d);
      d.result = { window: id, index: at + 1 };
      return;
    }
    case 'window.close': {
      const id = a.window ?? targetWindowId(d.state, d.ctx.client);
      if (!id || !d.state.windows[id]) return fail(d, 'window_not_found', `no window ${a.window ?? ''}`.trim());
      closeWindow(d, id);
      return;
    }
    case 'client.attach': {
      const window = a.window && d.state.windows[a.window] ? a.window : targetWindowId(d.state);
      if (!window) return fail(d, 'window_not_found', 'the session has no windows');
      putClient(d, { id: a.client, size: clampSize(a.cols, a.rows), window, attachedAt: d.ctx.now });
      d.events.push({ type: 'client_attached', client: a.client });
      return;
    }
    case 'client.resize': {
      const c = d.state.clients[a.client];
      if (c) putClient(d, { ...c, size: clampSize(a.cols, a.rows) });
      return;
    }
    case 'client.detach': {
      if (!d.state.clients[a.client]) return;
      const clients = { ...d.state.clients };
      const last = clients[a.client];
      delete clients[a.client];
      d.state = { ...d.state, clients, currentWindow: last.window && d.state.windows[last.window] ? last.window : d.state.currentWindow };
      d.events.push({ type: 'client_detached', client: a.client });
      return;
    }
    default:
      fail(d, 'invalid_params', `unknown action ${a.type}`);
  }
}
