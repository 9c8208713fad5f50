// The attached client: routes keys, draws the chrome (ui/chrome-lines) and pane rows with the painter, runs client-side commands.
import type { ApiClient, Pushed } from '../api/client.js';
import type { Theme } from '../config/themes.js';
import { parseCommand, type BoundCommand } from '../core/commands.js';
import { innerRect } from '../core/layout.js';
import type { ViewModel } from '../core/view.js';
import { DEFAULT_BINDINGS } from '../input/default-keymap.js';
import { KeyParser, keyToBytes, type InputEvent } from '../input/keys.js';
import { buildKeymap, type Keymap } from '../input/keymap.js';
import { Router, type RouterOutput } from '../input/router.js';
import { typedKeys } from '../input/typed-text.js';
import { launchAgent, nextTheme, openAgentPicker, reloadConfig, type RequestHost } from './server-requests.js';
import { parsePopupArgs } from '../core/popup-spec.js';
import { ChooserController, jumpElsewhere, type SwitchTarget, watchMachinesAway } from './chooser/index.js';
import { chunks, PART, pasteParts } from './chunks.js';
import { overlayFor, overlayInput } from './overlays.js';
import { Painter, type PaintCursor } from './painter.js';
import { PopupLayer, type PopupMessage } from './popup/layer.js';
import { alertBytes, clipboard, mouseModes, setTitle } from './terminal.js';
import { tabAt } from './ui/bar-segments.js';
import { areaTop } from './ui/chrome-props.js';
import { chromeLines } from './ui/chrome-lines.js';
import { forgetInk } from './ui/ink-door.js';
import { helpRows } from './ui/help-rows.js';
import { runTmuxCommand, submitTmuxPrompt, type TmuxHost } from './tmux-commands.js';
import type { LocalUi, Notice } from './ui-state.js';

export interface ClientConfig {
  ui: { mouse: boolean; status_position: string; pane_borders: string; notify: string; theme: string; copy_mode_keys?: string };
  keys: Record<string, string>;
  theme: Theme;
  themes: string[];
  notices: Array<{ level: Notice['level']; message: string }>;
}

export interface AppIO {
  write(s: string): void;
  size(): { cols: number; rows: number };
  /** Leave: restore the terminal and exit with this message. */
  exit(message: string, code: number): void;
  /** Leave this server for another session's (the chooser); rejects, staying here, when that one does not answer. */
  switchTo?(t: SwitchTarget): Promise<void>;
  /** The machine this client moved to (its server is there), if it did. */
  machine?: string;
}

export class ClientApp {
  private view: ViewModel | undefined;
  private local: LocalUi = { prefix: false };
  private readonly painter: Painter;
  private readonly parser = new KeyParser();
  private router: Router;
  private keymap: Keymap;
  private flushTimer: NodeJS.Timeout | undefined;
  private noticeTimer: NodeJS.Timeout | undefined;
  private cursor: PaintCursor | null = null;
  private allMotion = false;
  private title = '';
  /** Panes that alerted (blocked, done, a wait mark), most recent last: `prefix j` jumps to the newest. */
  private alerts: string[] = [];
  /** The focused pane is in copy mode (keys go to the server's copy mode instead of the program). */
  private copyMode: { pane: string; keys: 'vi' | 'emacs'; prompt: boolean } | null = null;
  /** A popup over the layout (src/popup): while it is up, keys and pastes go to its program. */
  private readonly popup = new PopupLayer(() => this.cfg.theme);
  private readonly chooser: ChooserController;
  private readonly requests: RequestHost;
  private readonly tmux: TmuxHost;

  constructor(
    private readonly api: ApiClient,
    private cfg: ClientConfig,
    private readonly io: AppIO,
  ) {
    this.painter = new Painter((s) => io.write(s));
    const km = buildKeymap(DEFAULT_BINDINGS, cfg.keys ?? {});
    this.keymap = km.keymap;
    this.router = new Router(this.keymap);
    const problems = [...cfg.notices.map((n) => n.message), ...km.diagnostics.map((d) => `keys: ${d.key ? d.key + ': ' : ''}${d.message}`)];
    if (problems.length) this.notify({ level: 'warning', text: `${problems[0]}${problems.length > 1 ? ` (+${problems.length - 1} more: castellan config check)` : ''}` }, 10_000);
    const ui = { api, render: () => this.render(), setOverlay: (o: LocalUi['overlay']) => this.setOverlay(o) };
    this.requests = { ...ui, notify: (n, ms) => this.notify(n, ms), overlay: () => this.local.overlay };
    this.chooser = new ChooserController({ ...ui, get: () => (this.local.overlay?.kind === 'chooser' ? this.local.overlay : undefined), notify: (level, text) => this.notify({ level, text }, 5000),
      where: () => ({ session: this.view?.session ?? '', window: this.view?.window.id, machine: io.machine }), focus: (pane) => this.serverAction({ type: 'pane.focus', pane }), switchTo: io.switchTo?.bind(io) });
    this.tmux = { ...this.requests, view: () => this.view, serverAction: (a) => this.serverAction(a), openChooser: (l, f) => this.chooser.open(l, f), switchTo: io.switchTo?.bind(io) };
    api.onMessage((m) => this.onMessage(m));
    this.applyMouse();
  }

  private get barAtTop(): boolean { return this.cfg.ui.status_position === 'top'; }

  // ---- server messages ----
  onMessage(m: Pushed): void {
    if (m.frame) return this.onFrame(m.frame as Record<string, unknown>);
    if (m.popup) return this.onPopup(m.popup as PopupMessage);
    if (m.alert) return this.onAlert(m.alert as { pane: string; state: string; agent?: string; reason: string });
    if (m.bell) return this.io.write('\x07');
    const n = m.notify as { pane: string; title?: string; body: string } | undefined;
    if (n) return this.notify({ level: 'info', text: `${n.pane}: ${n.title ? n.title + ': ' : ''}${n.body}` }, 5000);
    if (m.ask) {
      const a = m.ask as { id: string; title: string; message: string; timeout_ms: number; pane?: string };
      const now = Date.now();
      this.setOverlay({ kind: 'ask', id: a.id, label: `${a.title}: ${a.message}`, shownAt: now, deadline: now + a.timeout_ms });
      this.io.write('\x07');
      this.render();
      // Tick the countdown in the bar while the question is up.
      const tick = setInterval(() => {
        if (this.local.overlay?.kind !== 'ask' || this.local.overlay.id !== a.id) return clearInterval(tick);
        this.render();
      }, 1000);
      tick.unref?.();
      return;
    }
    if (m.ask_done) {
      const d = m.ask_done as { id: string; answer: string };
      if (this.local.overlay?.kind === 'ask' && this.local.overlay.id === d.id) {
        this.setOverlay(undefined);
        this.render();
      }
      return;
    }
    if (m.error && m.id === null) {
      // A notification the server refused (it has no id to answer to): say so instead of losing it silently.
      const err = m.error as { code: string; message: string };
      return this.notify({ level: 'error', text: `castellan: ${err.message}` }, 6000);
    }
    if (m.copied) {
      const c = m.copied as { pane: string; text: string };
      this.io.write(clipboard(c.text));
      return this.notify({ level: 'info', text: `copied ${[...c.text].length} characters (${this.keymap.prefix} ] pastes)` }, 3000);
    }
    if (m.notice) {
      const n = m.notice as { level: Notice['level']; message: string };
      return this.notify({ level: n.level, text: n.message }, 5000);
    }
    if (m.config) {
      this.cfg = { ...this.cfg, ...(m.config as ClientConfig) };
      this.applyMouse();
      this.rebuildKeymap();
      // [ui] status_position may have moved the bar: every pane's rows move with it.
      this.layoutSlots();
      this.render();
      return;
    }
    if (m.detached) return this.io.exit(`[detached (from session ${this.view?.session ?? ''})]`, 0);
    if (m.exit) return this.io.exit(`[server exited: ${(m.exit as { reason: string }).reason}]`, 0);
  }

  private onFrame(f: Record<string, unknown>): void {
    if (f.reset) this.painter.reset();
    if (f.view) {
      this.view = { ...(f.view as ViewModel), ...(this.io.machine ? { machine: this.io.machine } : {}) };
      this.layoutSlots();
    }
    const panes = (f.panes ?? {}) as Record<string, { lines: Array<[number, string]> }>;
    for (const [id, p] of Object.entries(panes)) this.painter.updateRows(id, p.lines);
    this.cursor = (f.cursor as PaintCursor | null) ?? null;
    this.copyMode = (f.copy as ClientApp['copyMode']) ?? null;
    this.painter.setCursor(this.popup.cursor ?? this.cursor);
    const wantsMouse = !!f.mouse;
    if (wantsMouse !== this.allMotion) {
      this.allMotion = wantsMouse;
      this.applyMouse();
    }
    if (f.view || f.reset) this.renderChrome();
    this.painter.paint();
    this.updateTitle();
  }

  private onPopup(m: PopupMessage): void {
    const what = this.popup.apply(m);
    if (what === 'opened') this.painter.setFloat(this.popup);
    if (what === 'closed') this.painter.setFloat(undefined);
    this.painter.setCursor(this.popup.cursor ?? this.cursor);
    this.painter.paint();
  }

  private onAlert(a: { pane: string; state: string; agent?: string; reason: string }): void {
    this.alerts = [...this.alerts.filter((p) => p !== a.pane), a.pane].slice(-20);
    const text = `${a.agent ?? 'agent'} in ${a.pane} is ${a.state}${a.reason === 'wait-mark' ? ' (prefix j jumps there)' : ''}`;
    this.notify({ level: a.state === 'blocked' ? 'warning' : 'info', text }, 8000);
    this.io.write(alertBytes(this.cfg.ui.notify, text));
  }

  private updateTitle(): void {
    const p = this.view?.window.panes.find((x) => x.focused);
    const t = `${p ? p.title : 'castellan'} — castellan:${this.view?.session ?? ''}`;
    if (t !== this.title) {
      this.title = t;
      this.io.write(setTitle(t));
    }
  }

  // ---- drawing ----
  private layoutSlots(): void {
    if (!this.view) return;
    // A pane under 2x2 still has a row inside (innerRect), which may lie past the window area: it never paints the bar.
    const top = areaTop(this.barAtTop), end = top + Math.min(this.view.area.rows, this.io.size().rows - 1);
    this.painter.setSlots(this.view.window.panes.map((p) => {
      const inner = innerRect(p.rect), y = inner.y + top;
      return { id: p.id, inner: { ...inner, y, h: Math.max(0, Math.min(inner.h, end - y)) } };
    }));
  }

  private renderChrome(): void {
    if (!this.view) return;
    const { cols, rows } = this.io.size();
    const c = chromeLines({
      view: this.view,
      local: this.local,
      theme: this.cfg.theme,
      cols,
      rows,
      barAtTop: this.barAtTop,
      borders: this.cfg.ui.pane_borders,
      bindings: this.keymap.bindings,
      prefixKey: this.keymap.prefix,
    }, this.inkIn);
    this.painter.setChrome(c.lines);
    this.painter.setCovered(c.covers);
  }

  /** Ink is in (a pane under 2x2 waits for it): draw. Could not be loaded: that layout keeps no chrome (nor a bar to say so in). */
  private readonly inkIn = (e?: Error): void => {
    if (!e) this.render();
  };

  private setOverlay(overlay: LocalUi['overlay']): void {
    this.local = { ...this.local, overlay };
  }

  /** Redraw chrome and paint (after a local UI change). */
  render(): void {
    this.renderChrome();
    this.painter.paint();
  }

  redraw(): void {
    this.io.write('\x1b[H\x1b[2J');
    this.painter.reset();
    this.render();
  }

  resized(): void {
    const { cols, rows } = this.io.size();
    this.api.request('client.resize', { cols, rows }).catch(() => {});
  }

  private notify(n: Notice, ms: number): void {
    this.local = { ...this.local, notice: n };
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.local = { ...this.local, notice: undefined };
      this.render();
    }, ms);
    this.noticeTimer.unref?.();
    if (this.view) this.render();
  }

  private applyMouse(): void {
    const on = this.cfg.ui.mouse || this.allMotion;
    this.io.write(mouseModes({ mouse: on, allMotion: this.allMotion }));
  }

  private rebuildKeymap(): void {
    const km = buildKeymap(DEFAULT_BINDINGS, this.cfg.keys ?? {});
    this.keymap = km.keymap;
    this.router.setKeymap(this.keymap);
    if (km.diagnostics.length) this.notify({ level: 'warning', text: `keys: ${km.diagnostics[0].message}` }, 8000);
  }

  // ---- input ----
  input(data: string): void {
    // Typing skips the key parser and the router: the bytes they would send, ~0.1 ms of cold JS less per echo.
    const typed = this.parser.pending || this.local.overlay || this.copyMode ? undefined : typedKeys(data);
    if (typed?.every((k) => this.router.passesThrough(k))) return this.api.notify('client.input', { kind: 'data', data });
    const events = this.parser.feed(data);
    this.handleEvents(events);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.parser.pending) {
      // A lone ESC is a key only after a short silence (an escape sequence's bytes arrive together).
      this.flushTimer = setTimeout(() => this.handleEvents(this.parser.flush()), 15);
    }
  }

  private handleEvents(events: InputEvent[]): void {
    if (!events.length) return;
    if (this.local.overlay) {
      for (let i = 0; i < events.length; i++) {
        if (!this.local.overlay) return this.handleEvents(events.slice(i));
        this.overlayEvent(events[i]);
      }
      return;
    }
    // One event at a time: a command (prefix [, an overlay) changes how the very next key in the same chunk is routed.
    let pending = '';
    const flush = () => {
      // A huge burst (a paste into a terminal without bracketed paste) goes in parts under the socket's line limit.
      for (const data of chunks(pending, PART)) this.api.notify('client.input', { kind: 'data', data });
      pending = '';
    };
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (this.local.overlay) {
        flush();
        return this.handleEvents(events.slice(i));
      }
      if (this.copyMode && !this.popup.active && e.type === 'key' && !this.router.prefixActive && e.key !== this.keymap.prefix) {
        // In copy mode keys drive the copy cursor; the prefix (and what follows it) still works.
        flush();
        this.api.notify('client.copy', { op: 'key', key: e.key });
        continue;
      }
      for (const o of this.router.feed([e], Date.now())) {
        if (o.kind === 'send') pending += o.data;
        else {
          flush();
          this.routerOutput(o);
        }
      }
    }
    flush();
  }

  private overlayEvent(e: InputEvent): void {
    const o = this.local.overlay!;
    const { rows } = this.io.size();
    if (o.kind === 'chooser') return this.chooser.input(e.type === 'mouse' ? { ...e, y: e.y - areaTop(this.barAtTop) } : e, rows - 1);
    const page = Math.max(1, rows - 4);
    const last = o.kind === 'help' ? Math.max(0, helpRows(this.keymap.bindings, this.keymap.prefix, o.filter).length - page) : undefined;
    const r = overlayInput(o, e, page, Date.now(), last);
    if (r.kind === 'update') {
      this.setOverlay(r.overlay);
    } else if (r.kind === 'answer') {
      this.setOverlay(undefined);
      this.api.request('client.answer', { id: r.overlay.id, answer: r.answer }).catch(() => {});
    } else if (r.kind === 'submit-prompt') {
      this.setOverlay(undefined);
      const text = r.overlay.text.trim();
      if (r.overlay.purpose === 'rename-pane') this.serverAction({ type: 'pane.rename', name: text });
      else if (r.overlay.purpose === 'rename-window') this.serverAction({ type: 'window.rename', name: text });
      else if (r.overlay.purpose !== 'command') submitTmuxPrompt(this.tmux, r.overlay.purpose, text);
      else if (text) {
        const p = parseCommand(text);
        if (p.ok) this.run(p.command);
        else this.notify({ level: 'error', text: p.error }, 5000);
      }
    } else if (r.kind === 'launch-agent') {
      this.setOverlay(undefined);
      launchAgent(this.requests, r.name, r.overlay.target);
    } else {
      this.setOverlay(undefined);
      if (r.overlay.purpose === 'close-pane') this.serverAction({ type: 'pane.close', ...(r.overlay.target ? { pane: r.overlay.target } : {}) });
      else this.serverAction({ type: 'window.close', ...(r.overlay.target ? { window: r.overlay.target } : {}) });
    }
    this.render();
  }

  private routerOutput(o: RouterOutput): void {
    switch (o.kind) {
      case 'send':
        this.api.notify('client.input', { kind: 'data', data: o.data });
        return;
      case 'paste':
        return this.paste(o.text);
      case 'focus':
        this.api.notify('client.input', { kind: 'focus', focused: o.focused });
        return;
      case 'mouse':
        return this.mouse(o.event);
      case 'prefix':
        this.local = { ...this.local, prefix: o.active };
        this.render();
        return;
      case 'unbound':
        this.notify({ level: 'info', text: `${this.keymap.prefix} ${o.key} is not bound — ${this.keymap.prefix} ? lists the keys` }, 3000);
        return;
      case 'command':
        this.run(o.command);
        return;
    }
  }

  private paste(text: string): void {
    for (const p of pasteParts(text)) this.api.notify('client.input', p);
  }

  private mouse(e: Extract<InputEvent, { type: 'mouse' }>): void {
    if (this.popup.active) {
      const m = this.popup.mouse(e);
      return void (m && this.api.notify('client.input', m));
    }
    const { rows } = this.io.size();
    const barRow = this.barAtTop ? 0 : rows - 1;
    if (e.y === barRow) {
      const tab = e.action === 'press' && this.view ? tabAt(this.view, e.x) : undefined;
      if (tab) this.serverAction({ type: 'window.select', window: tab });
      return;
    }
    const y = e.y - areaTop(this.barAtTop);
    this.api.notify('client.input', { kind: 'mouse', action: e.action, button: e.button, x: e.x, y, shift: e.shift, meta: e.meta, ctrl: e.ctrl });
  }

  private serverAction(action: Record<string, unknown>): void {
    this.api.request('client.action', { action }).catch((e: Error) => this.notify({ level: 'error', text: e.message }, 5000));
  }

  private run(cmd: BoundCommand): void {
    if (this.popup.active && !(cmd.scope === 'client' && ['client.popup', 'client.detach', 'client.send-prefix', 'client.redraw'].includes(cmd.name))) {
      return this.notify({ level: 'info', text: `a popup is open: its program has the keys (${this.keymap.prefix} u closes it)` }, 3000);
    }
    if (cmd.scope === 'server') return this.serverAction(cmd.action as Record<string, unknown>);
    const focused = this.view?.window.panes.find((p) => p.focused);
    const opens = overlayFor(cmd.name, this.view);
    if (opens) {
      this.setOverlay(opens);
      return this.render();
    }
    switch (cmd.name) {
      case 'client.detach':
        this.api.request('client.detach').catch(() => this.io.exit('[detached]', 0));
        return;
      case 'client.send-prefix':
        return void (keyToBytes(this.keymap.prefix) && this.api.notify('client.input', { kind: 'data', data: keyToBytes(this.keymap.prefix) }));
      case 'client.redraw':
        return this.redraw();
      case 'client.choose-tree':
        return this.chooser.open(cmd.args[0] === 'sessions' ? 'sessions' : 'windows');
      case 'client.popup': {
        // The same key closes the popup it opened (its program is killed), as a toggle.
        if (this.popup.active) return void this.api.request('popup.close', {}).catch(() => {});
        const a = parsePopupArgs(cmd.args);
        if (!a.ok) return this.notify({ level: 'error', text: a.error }, 5000);
        this.api.request('popup.open', a.value, { timeoutMs: 10_000 }).catch((e: Error) => this.notify({ level: 'error', text: `popup: ${e.message}` }, 6000));
        return;
      }
      case 'client.theme-next':
        return nextTheme(this.requests, this.cfg.themes, this.cfg.theme.name);
      case 'client.copy-mode': {
        // Keys typed right after the prefix must already go to copy mode, before the server's frame confirms it.
        this.api.notify('client.copy', { op: 'enter' });
        if (focused) this.copyMode = { pane: focused.id, keys: this.cfg.ui.copy_mode_keys === 'emacs' ? 'emacs' : 'vi', prompt: false };
        // tmux's copy-mode -u (prefix PgUp): in and a page up at once.
        return void (cmd.args[0] === 'page-up' && this.api.notify('client.copy', { op: 'key', key: 'PageUp' }));
      }
      case 'client.paste':
        this.api.notify('client.copy', { op: 'paste' });
        return;
      case 'client.jump-waiting': {
        const target = this.alerts.pop();
        if (!target) return jumpElsewhere((text) => this.notify({ level: 'info', text }, 6000), watchMachinesAway, this.io.switchTo?.bind(this.io));
        // A pane that is gone by now is skipped: try the next one.
        this.api.request('client.action', { action: { type: 'pane.focus', pane: target } }).catch(() => this.run(cmd));
        return;
      }
      case 'client.agent-picker':
        return openAgentPicker(this.requests, focused?.id);
      case 'client.reload-config':
        return reloadConfig(this.requests);
      default:
        if (!runTmuxCommand(this.tmux, cmd)) this.notify({ level: 'info', text: `${cmd.text}: not available yet` }, 3000);
    }
  }

  dispose(): void {
    forgetInk(this.inkIn);
    this.chooser.stop();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
  }
}
