// Client commands a tmux user's keys and words reach (send-keys, display-panes, find-window, prefix ' and ., session
// switching, messages): kept out of app.ts, which routes them here.
import type { BoundCommand } from '../core/commands.js';
import { clip } from '../core/tmux-commands.js';
import { stripControls } from '../core/text.js';
import type { ViewModel } from '../core/view.js';
import type { SwitchTarget } from './chooser/index.js';
import { loadTree } from './chooser/load.js';
import type { LocalUi, Notice, PromptPurpose } from './ui-state.js';

export interface TmuxHost {
  api: { request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T> };
  view(): ViewModel | undefined;
  notify(n: Notice, ms: number): void;
  setOverlay(o: LocalUi['overlay']): void;
  render(): void;
  serverAction(a: Record<string, unknown>): void;
  openChooser(level: 'sessions' | 'windows', filter?: string): void;
  switchTo?(t: SwitchTarget): Promise<void>;
}

type ClientCmd = Extract<BoundCommand, { scope: 'client' }>;

/** The session this client came from by (, ) or L: `prefix L` goes back to it (tmux switch-client -l). */
let lastSession: string | undefined;

/** Text from a command line shown in the bar: one line, no control characters, not longer than the bar. */
const oneLine = (s: string): string => stripControls(s, ' ').slice(0, 300);

const prompt = (label: string, purpose: PromptPurpose): LocalUi['overlay'] => ({ kind: 'prompt', label, text: '', purpose });

/** Runs a client command app.ts does not know itself; false when nobody here knows it either. */
export function runTmuxCommand(h: TmuxHost, cmd: ClientCmd): boolean {
  const view = h.view();
  switch (cmd.name) {
    case 'client.send-keys': {
      const [pane, mode, ...keys] = cmd.args;
      const id = pane || view?.window.panes.find((p) => p.focused)?.id;
      if (!id) return true;
      h.api.request('pane.send_keys', { pane_id: id, keys, ...(mode === 'literal' ? { literal: true } : { unknown: 'text' }) }, { timeoutMs: 5000 })
        .catch((e: Error) => h.notify({ level: 'error', text: `send-keys: ${e.message}` }, 5000));
      return true;
    }
    case 'client.display-message':
    case 'client.not-here':
      h.notify({ level: 'info', text: oneLine(cmd.args.join(' ')) || ' ' }, cmd.name === 'client.not-here' ? 6000 : 4000);
      return true;
    case 'client.display-panes': {
      const panes = view?.window.panes ?? [];
      // tmux numbers the panes of the window from 0; a digit picks one. The numbers show in the bar.
      const list = panes.slice(0, 10).map((p, i) => `${i} ${p.id}${p.focused ? '*' : ''}`).join('  ');
      h.setOverlay(prompt(`pane? ${list}`, 'pane-number'));
      h.render();
      return true;
    }
    case 'client.find-window':
      if (!cmd.args.length) {
        h.setOverlay(prompt('find-window:', 'find-window'));
        h.render();
      } else h.openChooser('windows', cmd.args[0]);
      return true;
    case 'client.prompt-window-index':
      h.setOverlay(prompt('index:', 'window-index'));
      h.render();
      return true;
    case 'client.prompt-move-window':
      h.setOverlay(prompt('move window to:', 'move-window'));
      h.render();
      return true;
    case 'client.switch-session':
      switchSession(h, cmd.args[0] as 'next' | 'prev' | 'last');
      return true;
    default:
      return false;
  }
}

/** A prompt of one of the purposes above was answered. */
export function submitTmuxPrompt(h: TmuxHost, purpose: PromptPurpose, text: string): void {
  if (!text) return;
  if (purpose === 'find-window') return h.openChooser('windows', text);
  if (purpose === 'pane-number') {
    const p = h.view()?.window.panes[Number(text)];
    if (!/^\d$/.test(text) || !p) return h.notify({ level: 'info', text: `no pane ${clip(text)}` }, 3000);
    return h.serverAction({ type: 'pane.focus', pane: p.id });
  }
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(n >= (purpose === 'move-window' ? 1 : 0))) return h.notify({ level: 'error', text: `"${clip(text)}" is not a window number` }, 4000);
  h.serverAction(purpose === 'move-window' ? { type: 'window.move', index: n } : { type: 'window.select', index: n });
}

/** tmux's ( ) L: sessions are servers here; the client moves to the next one by name, as the chooser's switch does. */
function switchSession(h: TmuxHost, which: 'next' | 'prev' | 'last'): void {
  const here = h.view()?.session ?? '';
  if (!h.switchTo) return h.notify({ level: 'info', text: 'this client cannot switch sessions' }, 4000);
  loadTree(h.api, { session: here, others: true })
    .then((sessions) => {
      const names = sessions.filter((s) => s.current || (s.socket && !s.unreachable)).sort((a, b) => a.name.localeCompare(b.name));
      const at = names.findIndex((s) => s.current);
      const to = which === 'last' ? names.find((s) => s.name === lastSession && !s.current) : names.length > 1 ? names[(at + (which === 'next' ? 1 : names.length - 1)) % names.length] : undefined;
      if (!to?.socket) {
        return h.notify({ level: 'info', text: which === 'last' ? 'no last session' : `no other session (castellan --session NAME starts one)` }, 4000);
      }
      h.notify({ level: 'info', text: `switching to session ${to.name}…` }, 3000);
      const from = here;
      return h.switchTo!({ session: to.name, socket: to.socket }).then(() => {
        lastSession = from;
      });
    })
    .catch((e: Error) => h.notify({ level: 'error', text: `switch session: ${e.message}` }, 5000));
}
