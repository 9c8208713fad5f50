// Overlays: the ones client commands open, and keys while one is open (help, prompts, confirmations) as pure state transitions plus what to do.
import type { ViewModel } from '../core/view.js';
import type { InputEvent } from '../input/keys.js';
import { complete, recall, remember } from './prompt-line.js';
import type { Overlay } from './ui-state.js';

type Opener = (focused: ViewModel['window']['panes'][number] | undefined, w: ViewModel['windows'][number] | undefined) => Overlay;

/** The overlays client commands open, by command name (the agent picker and the chooser load data first: server-requests.ts, chooser/). */
const OPENERS = new Map<string, Opener>(Object.entries({
  'client.help': () => ({ kind: 'help', filter: '', scroll: 0, filtering: false }),
  'client.command-prompt': () => ({ kind: 'prompt', label: ':', text: '', purpose: 'command' }),
  'client.prompt-rename-pane': (p) => ({ kind: 'prompt', label: `rename pane ${p?.id ?? ''}:`, text: p?.title ?? '', purpose: 'rename-pane' }),
  'client.prompt-rename-window': (_, w) => ({ kind: 'prompt', label: `rename window ${w?.index ?? ''}:`, text: w?.name ?? '', purpose: 'rename-window' }),
  'client.confirm-close-pane': (p) => ({ kind: 'confirm', label: `close pane ${p?.id ?? ''}?`, purpose: 'close-pane', target: p?.id }),
  'client.confirm-close-window': (_, w) => ({ kind: 'confirm', label: `close window ${w?.index ?? ''} and its ${w?.panes ?? 0} pane(s)?`, purpose: 'close-window', target: w?.id }),
} satisfies Record<string, Opener>));

/** The overlay client command `name` opens over this view, or undefined when it opens none. */
export function overlayFor(name: string, view: ViewModel | undefined): Overlay | undefined {
  return OPENERS.get(name)?.(view?.window.panes.find((p) => p.focused), view?.windows.find((x) => x.current));
}

export type OverlayOutcome =
  | { kind: 'update'; overlay: Overlay | undefined }
  | { kind: 'submit-prompt'; overlay: Extract<Overlay, { kind: 'prompt' }> }
  | { kind: 'confirm'; overlay: Extract<Overlay, { kind: 'confirm' }> }
  | { kind: 'answer'; overlay: Extract<Overlay, { kind: 'ask' }>; answer: 'allow' | 'deny' }
  | { kind: 'launch-agent'; overlay: Extract<Overlay, { kind: 'agents' }>; name: string };

/** Keys typed right as a question appears were meant for something else: they never answer it. */
export const ASK_GRACE_MS = 300;

/**
 * The longest line of typed text kept (code points). A paste can be any size; string-width, which measures the line
 * wherever it is drawn, is superlinear: a 20 000-character help filter took 0.45 s to draw and 100 000 took 35 s,
 * the client frozen meanwhile; 512 costs ~2-4 ms, and no filter or command line is that long.
 */
export const MAX_LINE = 512;

/** One line of typed text (a filter, the command prompt): the edit a key or a paste makes, or undefined. */
export function editLine(text: string, e: InputEvent): string | undefined {
  if (e.type === 'paste') return capLine(text + e.text.replace(/[\r\n]+/g, ' '));
  if (e.type !== 'key') return undefined;
  if (e.key === 'BSpace' || e.key === 'C-h') return [...text].slice(0, -1).join('');
  if (e.key === 'C-u') return '';
  if (e.key === 'C-w') return text.replace(/\S*\s*$/, '');
  if (e.key === 'Space') return capLine(text + ' ');
  if ([...e.key].length === 1) return capLine(text + e.key);
  return undefined;
}

const capLine = (s: string): string => (s.length <= MAX_LINE ? s : [...s].slice(0, MAX_LINE).join(''));

/** pageRows: rows an overlay shows at once; lastRow: the help list's last scroll position (its length less a page). */
export function overlayInput(o: Overlay, e: InputEvent, pageRows: number, now = Date.now(), lastRow = Number.MAX_SAFE_INTEGER): OverlayOutcome {
  if (e.type !== 'key' && e.type !== 'paste') return { kind: 'update', overlay: o };
  const key = e.type === 'key' ? e.key : '';
  if (o.kind === 'ask') {
    if (now - o.shownAt < ASK_GRACE_MS) return { kind: 'update', overlay: o };
    if (key === 'y' || key === 'Y') return { kind: 'answer', overlay: o, answer: 'allow' };
    if (key === 'n' || key === 'N' || key === 'Escape') return { kind: 'answer', overlay: o, answer: 'deny' };
    return { kind: 'update', overlay: o };
  }
  if (o.kind === 'help') {
    if (o.filtering) {
      if (key === 'Escape') return { kind: 'update', overlay: { ...o, filtering: false, filter: '' } };
      if (key === 'Enter') return { kind: 'update', overlay: { ...o, filtering: false } };
      const t = editLine(o.filter, e);
      return { kind: 'update', overlay: t === undefined ? o : { ...o, filter: t, scroll: 0 } };
    }
    // Clamped here, not only when drawn, so Up right after End moves at once.
    const to = (n: number) => ({ kind: 'update' as const, overlay: { ...o, scroll: Math.max(0, Math.min(lastRow, n)) } });
    const at = Math.min(o.scroll, lastRow);
    switch (key) {
      case 'q':
      case 'Escape':
      case 'Enter':
        return { kind: 'update', overlay: undefined };
      case '/':
        return { kind: 'update', overlay: { ...o, filtering: true } };
      case 'Up':
      case 'k':
        return to(at - 1);
      case 'Down':
      case 'j':
        return to(at + 1);
      case 'PageUp':
      case 'C-b':
        return to(at - pageRows);
      case 'PageDown':
      case 'C-f':
      case 'Space':
        return to(at + pageRows);
      case 'Home':
      case 'g':
        return to(0);
      case 'End':
      case 'G':
        return to(lastRow);
      default:
        return { kind: 'update', overlay: o };
    }
  }
  if (o.kind === 'agents') {
    const last = Math.max(0, o.items.length - 1);
    switch (key) {
      case 'Escape':
      case 'q':
      case 'C-c':
      case 'C-g':
        return { kind: 'update', overlay: undefined };
      case 'Up':
      case 'k':
      case 'C-p':
        return { kind: 'update', overlay: { ...o, index: Math.max(0, o.index - 1), message: undefined } };
      case 'Down':
      case 'j':
      case 'C-n':
        return { kind: 'update', overlay: { ...o, index: Math.min(last, o.index + 1), message: undefined } };
      case 'Home':
        return { kind: 'update', overlay: { ...o, index: 0, message: undefined } };
      case 'End':
        return { kind: 'update', overlay: { ...o, index: last, message: undefined } };
      case 'Enter': {
        const a = o.items[o.index];
        if (!a || o.loading) return { kind: 'update', overlay: o };
        if (!a.startable) return { kind: 'update', overlay: { ...o, message: `${a.name} cannot start: ${a.reason ?? 'not trusted'}` } };
        return { kind: 'launch-agent', overlay: o, name: a.name };
      }
      default:
        return { kind: 'update', overlay: o };
    }
  }
  if (o.kind === 'prompt') {
    if (key === 'Escape' || key === 'C-c' || key === 'C-g') return { kind: 'update', overlay: undefined };
    if (key === 'Enter') {
      if (o.purpose === 'command') remember(o.text);
      return { kind: 'submit-prompt', overlay: o };
    }
    // tmux's display-panes: a digit picks the pane at once.
    if (o.purpose === 'pane-number') return /^\d$/.test(key) ? { kind: 'submit-prompt', overlay: { ...o, text: key } } : { kind: 'update', overlay: undefined };
    if (o.purpose === 'command' && key === 'Tab') return { kind: 'update', overlay: { ...o, text: capLine(complete(o.text)) } };
    if (o.purpose === 'command' && (key === 'Up' || key === 'Down' || key === 'C-p' || key === 'C-n')) {
      const r = recall(o.hist, key === 'Up' || key === 'C-p' ? -1 : 1, o.text);
      return { kind: 'update', overlay: r ? { ...o, text: r.text, hist: r.at } : o };
    }
    const t = editLine(o.text, e);
    return { kind: 'update', overlay: t === undefined ? o : { ...o, text: t } };
  }
  // The chooser has its own keys (src/client/chooser), driven by its controller.
  if (o.kind === 'chooser') return { kind: 'update', overlay: o };
  // confirm
  if (key === 'y' || key === 'Y') return { kind: 'confirm', overlay: o };
  return { kind: 'update', overlay: undefined };
}
