// What a pane's frame shows: its border, its title on the left and its agent badge on the right of the top edge (no Ink: the hand-drawn chrome uses it).
import type { Theme } from '../../config/themes.js';
import type { PaneView } from '../../core/view.js';
import { BADGE_GLYPH, badgeText } from './AgentBadge.js';
import { fit, width } from './text-width.js';
import { role, type Segment } from './theme-style.js';

const BORDER: Record<string, 'round' | 'single' | 'bold' | 'double'> = { rounded: 'round', single: 'single', heavy: 'bold', double: 'double' };

/**
 * The border names the pane by its full id (`w3:p1`), the string every CLI command and API method takes: window
 * numbers in the bar are positions (they renumber when a window closes), ids never change, so only the id can be
 * read off the screen and typed back. A sub-harness child in its parent's window is `w1:p1→p2`.
 */
function paneLabel(pane: PaneView): string {
  if (!pane.parent) return pane.id;
  const sameWindow = pane.parent.slice(0, pane.parent.indexOf(':')) === pane.id.slice(0, pane.id.indexOf(':'));
  return `${pane.parent}→${sameWindow ? pane.id.slice(pane.id.indexOf(':') + 1) : pane.id}`;
}

/** The delegation tree's roll-up after the badge: `⎇2 ▲1 ●1` = two sub-harness panes running, one blocked, one working. */
export function childrenText(c: PaneView['children']): string {
  if (!c || c.live === 0) return '';
  const parts = (['blocked', 'done', 'working', 'idle'] as const).filter((s) => c.counts[s] > 0).map((s) => `${BADGE_GLYPH[s]}${c.counts[s]}`);
  return `⎇${c.live}${parts.length ? ' ' + parts.join(' ') : ''} `;
}

/** The agent's worktree after the title: `castellan/claude-3f2a 2f +10 -3 ↑1` = 2 files differ from the base, 1 commit ahead. */
export function worktreeText(w: PaneView['worktree']): string {
  if (!w) return '';
  if (w.missing) return ` ${w.branch} (worktree gone) `;
  return ` ${w.branch} ${w.files}f +${w.added} -${w.removed}${w.ahead ? ` ↑${w.ahead}` : ''} `;
}

/** What a pane's frame shows, for PaneFrame (Ink) and chrome-lines (composed by hand) alike. */
export interface FrameParts {
  box: 'round' | 'single' | 'bold' | 'double';
  /** Ink colours a border with its colour alone (no bold or dim). */
  borderColor: string | undefined;
  /** Texts over the top edge: `left` from its first cell, `right` ending at its last; none when the pane is too narrow. */
  left: Segment[];
  right: Segment[];
}

export function frameParts(pane: PaneView, theme: Theme, borders: string, zoomed = false): FrameParts {
  const { rect } = pane;
  const border = role(theme, pane.focused ? 'pane.border.focused' : 'pane.border');
  const parts: FrameParts = { box: BORDER[borders] ?? 'round', borderColor: border.color, left: [], right: [] };
  if (rect.w <= 4) return parts;
  const showBadge = !!pane.agent || (pane.state !== 'unknown' && !pane.exited);
  const badge = pane.exited
    ? ` ${pane.exited.signal ? `killed (signal ${pane.exited.signal})` : `exited ${pane.exited.code}`} `
    : showBadge
      ? ` ${pane.waiting ? '◷ ' : ''}${badgeText(pane.state, pane.agent)} `
      : pane.waiting
        ? ' ◷ '
        : '';
  const inner = rect.w - 2;
  const kids = childrenText(pane.children);
  const badgeW = Math.min(width(badge), Math.max(0, inner - 6));
  const kidsW = Math.min(width(kids), Math.max(0, inner - 6 - badgeW));
  const label = `${paneLabel(pane)}${zoomed ? ' [Z]' : ''} ${pane.title}`;
  // Restored elsewhere (its directory was gone): said before the branch and the title, the agent's own redraw wiped the dim line.
  const wt = pane.cwdGone ? ` dir gone: ${pane.cwdGone.length > 40 ? `…${pane.cwdGone.slice(-39)}` : pane.cwdGone} ` : worktreeText(pane.worktree);
  // The branch outranks the title for room: it says where the agent's work goes, the title repeats the command.
  const wtW = Math.min(width(wt), Math.max(0, inner - badgeW - kidsW - 12));
  const title = fit(` ${label} `, Math.max(0, inner - badgeW - kidsW - wtW - 1));
  // The agent's own words for its state ("needs permission to rm -rf"), in the space the title leaves.
  const note = pane.message && !pane.exited ? ` ${pane.message.replace(/\s+/g, ' ')} ` : '';
  const noteW = Math.min(width(note), Math.max(0, inner - width(title) - wtW - badgeW - kidsW - 2));
  const badgeStyle = pane.exited ? role(theme, 'pane.exited') : role(theme, `badge.${pane.state}`);
  parts.left.push({ key: 'title', text: title, style: role(theme, pane.focused ? 'pane.title.focused' : 'pane.title') });
  if (wtW > 3) parts.left.push({ key: 'wt', text: fit(wt, wtW), style: role(theme, pane.cwdGone || pane.worktree?.missing ? 'badge.blocked' : 'pane.title') });
  if (noteW > 3) parts.right.push({ key: 'note', text: fit(note, noteW), style: badgeStyle });
  if (badgeW > 0) parts.right.push({ key: 'badge', text: fit(badge, badgeW), style: badgeStyle });
  if (kidsW > 0) parts.right.push({ key: 'kids', text: fit(kids, kidsW), style: role(theme, pane.children?.rollup ? `badge.${pane.children.rollup}` : 'badge.unknown') });
  return parts;
}
