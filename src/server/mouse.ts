// Mouse input from a client: focus by click, forward to programs that asked, wheel into copy mode, drag to select or resize.
import type { ClientInput } from '../api/context.js';
import type { AnyAction } from '../core/actions.js';
import { innerRect } from '../core/layout.js';
import { visibleRects } from '../core/select.js';
import type { Rect, State } from '../core/types.js';
import type { ClientLink } from './client-link.js';
import type { PaneRuntime } from './pane-runtime.js';

type Mouse = Extract<ClientInput, { kind: 'mouse' }>;

export interface MouseHost {
  state(): State;
  runtime(pane: string): PaneRuntime | undefined;
  dispatch(action: AnyAction, client: string): void;
  copied(client: string, pane: string, text: string): void;
}

interface Gesture {
  kind: 'pane' | 'border' | 'select';
  pane: string;
  /** Border drags: the pane across the border, the edge's axis and last pointer position. */
  other?: string;
  axis?: 'x' | 'y';
  last?: number;
}

const inside = (r: Rect, x: number, y: number) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;

/** A press on a border between two panes: the pane before it (left/above), the one after it, and the border's axis. */
function borderAt(rects: Map<string, Rect>, x: number, y: number): { pane: string; other: string; axis: 'x' | 'y' } | undefined {
  const at = (px: number, py: number) => [...rects.entries()].find(([, q]) => inside(q, px, py))?.[0];
  for (const [id, r] of rects) {
    if (!inside(r, x, y)) continue;
    // Each pane draws its own border, so a border between two panes is two cells wide: either cell grabs it.
    const right = x === r.x + r.w - 1 ? at(x + 1, y) : undefined;
    if (right) return { pane: id, other: right, axis: 'x' };
    const left = x === r.x ? at(x - 1, y) : undefined;
    if (left) return { pane: left, other: id, axis: 'x' };
    const below = y === r.y + r.h - 1 ? at(x, y + 1) : undefined;
    if (below) return { pane: id, other: below, axis: 'y' };
    const above = y === r.y ? at(x, y - 1) : undefined;
    if (above) return { pane: above, other: id, axis: 'y' };
    return undefined;
  }
  return undefined;
}

export class MouseRouter {
  private gestures = new Map<string, Gesture>();

  constructor(private readonly host: MouseHost) {}

  forget(client: string): void {
    this.gestures.delete(client);
  }

  handle(client: string, link: ClientLink | undefined, m: Mouse): void {
    const st = this.host.state();
    const c = st.clients[client];
    const w = c ? st.windows[c.window] : undefined;
    if (!w || !link) return;
    const rects = visibleRects(w);
    const g = this.gestures.get(client);
    if (m.action === 'press' && m.button === 0) {
      const border = w.zoomed ? undefined : borderAt(rects, m.x, m.y);
      if (border) {
        this.gestures.set(client, { kind: 'border', pane: border.pane, other: border.other, axis: border.axis, last: border.axis === 'x' ? m.x : m.y });
        return;
      }
    }
    if (g?.kind === 'border') {
      if (m.action === 'release') this.gestures.delete(client);
      else if (m.action === 'move') {
        const pos = g.axis === 'x' ? m.x : m.y;
        const delta = pos - (g.last ?? pos);
        if (delta !== 0) {
          const direction = g.axis === 'x' ? (delta > 0 ? 'right' : 'left') : delta > 0 ? 'down' : 'up';
          // The border grabbed moves, the outer one of a nested layout too (tmux's keys would pick the pane's own).
          this.host.dispatch({ type: 'pane.resize', pane: g.pane, ...(g.other ? { across: g.other } : {}), direction, cells: Math.abs(delta) }, client);
          g.last = pos;
        }
      }
      return;
    }
    let target = g ? g.pane : undefined;
    if (!target) for (const [id, r] of rects) if (inside(r, m.x, m.y)) target = id;
    if (!target || !rects.has(target)) return;
    if (m.action === 'press') {
      if (w.active !== target) {
        // A click on another pane focuses it (and is not passed to its program).
        this.host.dispatch({ type: 'pane.focus', pane: target }, client);
        this.gestures.delete(client);
        return;
      }
    }
    const rt = this.host.runtime(target);
    if (!rt || rt.exited) return;
    const inner = innerRect(rects.get(target)!);
    const local = { x: Math.max(0, Math.min(inner.w - 1, m.x - inner.x)), y: Math.max(0, Math.min(inner.h - 1, m.y - inner.y)) };
    const inCopy = !!link.copy.get(target);
    if (rt.wantsMouse() && !inCopy) {
      if (m.action === 'press') this.gestures.set(client, { kind: 'pane', pane: target });
      if (m.action === 'release') this.gestures.delete(client);
      if (inside(inner, m.x, m.y) || g) rt.input({ ...m, x: local.x + inner.x, y: local.y + inner.y }, { x: inner.x, y: inner.y });
      return;
    }
    if (m.action === 'wheel-up' || m.action === 'wheel-down') {
      if (rt.screen.modes.alternateScreen && !inCopy) {
        // Full-screen programs that did not ask for the mouse (less, man) scroll with arrow keys.
        rt.input({ kind: 'data', data: (m.action === 'wheel-up' ? '\x1b[A' : '\x1b[B').repeat(3) });
        return;
      }
      link.copy.apply(target, rt.screen, { op: 'scroll', lines: m.action === 'wheel-up' ? -3 : 3, fromWheel: true });
      link.schedule(true);
      return;
    }
    if (m.button !== 0 && m.action !== 'move') return;
    if (m.action === 'press') this.gestures.set(client, { kind: 'select', pane: target });
    const text = link.copy.mouse(target, rt.screen, m.action === 'press' ? 'press' : m.action === 'release' ? 'release' : 'move', local.x, local.y);
    if (m.action === 'release') this.gestures.delete(client);
    if (text) this.host.copied(client, target, text);
    link.schedule(true);
  }
}
