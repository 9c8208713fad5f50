// Drives an open chooser for the client: loads the tree (and refreshes it while open), the preview, and carries out a choice.
import type { InputEvent } from '../../input/keys.js';
import { chooserInput, openChooser, rowsOf, withData, type ChooserState, type ChooserTarget } from './input.js';
import { loadPreview, loadTree } from './load.js';
import { type MachineLister, watchMachines } from './machines.js';
import { watchMachinesAway } from './machine-thread.js';
import { type ChooserSession, initialCollapsed } from './tree.js';

export interface ChooserHost {
  api: { request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T> };
  /** The chooser's state, while it is the open overlay. */
  get(): ChooserState | undefined;
  setOverlay(s: ChooserState | undefined): void;
  render(): void;
  notify(level: 'info' | 'error', text: string): void;
  /** This client's session and window (the chooser opens on them), and the machine it is on when it moved to one. */
  where(): { session: string; window?: string; machine?: string };
  /** Show a pane of this session (its window comes to the front). */
  focus(pane: string): void;
  /** Move this client to another session's server; rejects (the client stays here) when that server does not answer. */
  switchTo?(t: SwitchTarget): Promise<void>;
  /** Where other machines are read from (default: this user's profiles over ssh). */
  machines?: () => Promise<MachineLister>;
}

/** A pane (or window) of another session, and the socket of the server that owns it (or the machine it is on). */
export interface SwitchTarget {
  session: string;
  socket?: string;
  /** A session of another machine (its profile's session unless `machineSession` names another): reached over ssh from this client. */
  machine?: string;
  machineSession?: string;
  window?: string;
  pane?: string;
}

/** Badges and messages change while the chooser is up: it reads the tree again this often. */
const REFRESH_MS = 1000;

export class ChooserController {
  private timer: NodeJS.Timeout | undefined;
  private previewFor: string | undefined;
  private switching = false;
  /** Other machines' sessions as last read (stale ones from their cache), and the stop of that read. */
  private remote: ChooserSession[] = [];
  private stopMachines: (() => void) | undefined;

  constructor(private readonly h: ChooserHost) {}

  /** `filter`: find-window's text, as if typed after `/`. */
  open(level: 'sessions' | 'windows', filter = ''): void {
    this.h.setOverlay({ ...openChooser(level), filter: filter.slice(0, 200) });
    this.h.render();
    this.reload(true);
    this.stopMachines?.();
    this.remote = [];
    // In the background, one ssh login per machine per opening, followed while open: one slow or down is shown stale.
    // Off the thread that echoes keys (machine-thread.ts), unless a test gives its own lister.
    const lister = this.h.machines;
    const watch = lister ? (cb: (all: ChooserSession[]) => void) => watchMachines(lister, cb) : watchMachinesAway;
    this.stopMachines = watch((all) => {
      // On another machine, its session there is this client's own: listed once, live, as the attached session.
      const w = this.h.where();
      const remote = w.machine ? all.filter((x) => !(x.machine === w.machine && x.name === `${w.session}@${w.machine}`)) : all;
      this.remote = remote;
      const s = this.h.get();
      if (!s || s.loading) return;
      // A machine's session arrives folded as this session's did (`prefix s`: sessions folded), once; then the user's folds stay.
      const fresh = remote.filter((x) => !s.sessions.some((y) => y.name === x.name));
      const collapsed = new Set([...s.collapsed, ...initialCollapsed(fresh, s.level)]);
      this.h.setOverlay(withData({ ...s, collapsed }, [...s.sessions.filter((x) => !x.machine), ...remote]));
      this.h.render();
    });
    if (this.timer) clearInterval(this.timer);
    // A refresh before the first load (slow under load: other sessions' sockets) would land the cursor on the wrong row.
    this.timer = setInterval(() => {
      const s = this.h.get();
      if (!s) this.stop();
      else if (!s.loading) this.reload(false);
    }, REFRESH_MS);
    this.timer.unref?.();
  }

  private reload(first: boolean): void {
    const w = this.h.where();
    loadTree(this.h.api, { session: w.session, window: w.window, others: first, ...(w.machine ? { machine: w.machine } : {}) })
      .then((sessions) => {
        const s = this.h.get();
        if (!s) return;
        // Other sessions are read once on opening (their sockets cost a connection each); refreshes keep them.
        const others = first ? [] : s.sessions.filter((x) => !x.current && !x.machine);
        this.h.setOverlay(withData(s, [...(first ? sessions : [...sessions.filter((x) => x.current), ...others]), ...this.remote]));
        this.preview();
        this.h.render();
      })
      .catch((e: Error) => {
        if (!first) return;
        this.h.setOverlay(undefined);
        this.h.notify('error', `choose-tree: ${e.message}`);
      });
  }

  /** Loads the preview when the highlighted row names another pane of this session. */
  private preview(): void {
    const s = this.h.get();
    if (!s) return;
    const row = rowsOf(s).find((r) => r.key === s.cursor);
    const cur = s.sessions.find((x) => x.current);
    const pane = row?.session === cur?.name ? (row?.pane?.id ?? row?.window?.panes.find((p) => p.active)?.id ?? cur?.windows.find((w) => w.current)?.panes.find((p) => p.active)?.id) : undefined;
    if (!pane) {
      if (s.preview) this.h.setOverlay({ ...s, preview: undefined });
      this.previewFor = undefined;
      return;
    }
    this.previewFor = pane;
    loadPreview(this.h.api, pane)
      .then((lines) => {
        const now = this.h.get();
        if (!now || this.previewFor !== pane) return;
        this.h.setOverlay({ ...now, preview: { pane, lines } });
        this.h.render();
      })
      .catch(() => {});
  }

  input(e: InputEvent, rows: number): void {
    const s = this.h.get();
    if (!s) return;
    const before = s.cursor;
    const r = chooserInput(s, e, rows);
    if (r.kind === 'choose') return this.choose(r.target);
    this.h.setOverlay(r.state);
    if (!r.state) this.stop();
    else if (r.state.cursor !== before) this.preview();
    this.h.render();
  }

  private choose(t: ChooserTarget): void {
    if (t.current) {
      this.h.setOverlay(undefined);
      this.stop();
      if (t.pane) this.h.focus(t.pane);
      this.h.render();
      return;
    }
    if (this.switching) return;
    const say = (message: string) => {
      const s = this.h.get();
      if (s) this.h.setOverlay({ ...s, message });
      else this.h.notify('error', message);
      this.h.render();
    };
    const here = this.h.where().session;
    if (t.machine && !this.h.switchTo) return say(`${t.session} is on machine ${t.machine}: detach (prefix d) and run  castellan attach --machine ${t.machine}`);
    if ((!t.socket && !t.machine) || !this.h.switchTo) return say(`session ${t.session} did not answer: staying in session ${here}`);
    // As tmux's switch-client: the client leaves this server for the other session's, which owns the chosen pane; on
    // another machine that is an ssh bridge opened by this client, and detaching there comes back here.
    this.switching = true;
    say(t.machine ? `connecting to machine ${t.machine}…` : `switching to session ${t.session}…`);
    const where = t.machine ? { machine: t.machine } : { socket: t.socket };
    this.h
      .switchTo({ session: t.session, ...where, ...(t.window ? { window: t.window } : {}), ...(t.pane ? { pane: t.pane } : {}) })
      .then(() => this.stop())
      .catch((e: Error) => say(`${t.machine ? `machine ${t.machine}` : `session ${t.session}`} does not answer: staying in session ${here} (${e.message})`))
      .finally(() => (this.switching = false));
  }

  stop(): void {
    this.stopMachines?.();
    this.stopMachines = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.previewFor = undefined;
  }
}
