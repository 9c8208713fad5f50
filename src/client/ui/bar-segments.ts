// The bar's texts: session, window tabs with their agent roll-up, then prompts, notices and the session-wide roll-up (no Ink: the hand-drawn chrome uses them).
import type { Theme } from '../../config/themes.js';
import type { AgentState } from '../../core/types.js';
import type { ViewModel } from '../../core/view.js';
import type { LocalUi } from '../ui-state.js';
import { BADGE_GLYPH } from './AgentBadge.js';
import { fit, pad, width } from './text-width.js';
import { role, type Segment } from './theme-style.js';

const ROLLUP_ORDER: AgentState[] = ['blocked', 'done', 'working', 'idle'];

/** The tab text of a window; also used to map mouse clicks on the bar to windows. */
export function tabText(w: ViewModel['windows'][number]): string {
  const glyph = w.rollup && w.rollup !== 'unknown' ? ` ${BADGE_GLYPH[w.rollup]}` : '';
  // tmux marks the current window with * and a zoomed one with Z; S: typing goes to all its panes.
  return ` ${w.index}:${fit(w.name, 20)}${w.current ? '*' : ''}${w.zoomed ? 'Z' : ''}${w.synchronized ? 'S' : ''}${glyph} `;
}

export const sessionText = (view: ViewModel) => ` ${fit(view.machine ? `${view.session}@${view.machine}` : view.session, 24)} `;

/** The window whose tab is at column x of the bar (a click on it selects it). */
export function tabAt(view: ViewModel, x: number): string | undefined {
  let pos = width(sessionText(view));
  for (const w of view.windows) {
    const tw = width(tabText(w));
    if (x >= pos && x < pos + tw) return w.id;
    pos += tw;
  }
  return undefined;
}

export interface BarProps {
  view: ViewModel;
  local: LocalUi;
  theme: Theme;
  cols: number;
  prefixKey: string;
}

/** The bar's texts from left to right (they fill at most `cols`), for StatusBar (Ink) and chrome-lines alike. */
export function barSegments({ view, local, theme, cols, prefixKey }: BarProps): Segment[] {
  const bar = role(theme, 'bar');
  const o = local.overlay;
  if (o?.kind === 'prompt' || o?.kind === 'confirm' || o?.kind === 'ask') {
    const text =
      o.kind === 'prompt' ? `${o.label} ${o.text}█` : o.kind === 'ask' ? `⚠ ${o.label} — allow? (y/n, ${Math.max(0, Math.ceil((o.deadline - Date.now()) / 1000))}s)` : `${o.label} (y/n)`;
    return [{ key: 'prompt', text: pad(text, cols), style: role(theme, 'prompt') }];
  }
  const left: Segment[] = [{ key: 'session', text: sessionText(view), style: role(theme, 'bar.session') }];
  for (const w of view.windows) {
    const style = w.alert && !w.current ? role(theme, 'bar.window.alert') : w.current ? role(theme, 'bar.window.active') : role(theme, 'bar.window');
    left.push({ key: w.id, text: tabText(w), style });
  }
  const right: Segment[] = [];
  if (local.prefix) right.push({ key: 'prefix', text: ` ${prefixKey} `, style: role(theme, 'bar.prefix') });
  const rollup = ROLLUP_ORDER.filter((s) => view.counts[s] > 0).map((s) => `${BADGE_GLYPH[s]}${view.counts[s]}`).join(' ');
  if (rollup) right.push({ key: 'rollup', text: ` ${rollup} `, style: role(theme, 'bar.status') });
  // On a very narrow terminal the roll-up goes before the prefix indicator; the bar never overflows.
  let rightW = right.reduce((n, s) => n + width(s.text), 0);
  while (rightW > cols) rightW -= width(right.pop()!.text);
  // Tabs that do not fit are dropped from the end (the current one is kept).
  let used = rightW;
  const shown: Segment[] = [];
  for (const s of left) {
    const w = width(s.text);
    if (used + w > cols) {
      if (s.key === view.window.id) {
        const cut = fit(s.text, Math.max(0, cols - used));
        shown.push({ ...s, text: cut });
        used += width(cut);
      }
      break;
    }
    shown.push(s);
    used += w;
  }
  const free = Math.max(0, cols - used);
  const notice = local.notice && free > 4 ? { text: fit(` ${local.notice.text} `, free), level: local.notice.level } : undefined;
  const gap = free - (notice ? width(notice.text) : 0);
  const out = [...shown];
  if (gap > 0) out.push({ key: 'gap', text: ' '.repeat(gap), style: bar });
  if (notice) out.push({ key: 'notice', text: notice.text, style: { ...role(theme, `notice.${notice.level}`), backgroundColor: bar.backgroundColor } });
  return [...out, ...right];
}
