// Popups (tmux display-popup -E): one floating pty per client, drawn over its layout, outside the layout and snapshots.
import { statSync } from 'node:fs';
import type { ClientInput } from '../api/context.js';
import { ApiError } from '../api/errors.js';
import { DEFAULT_POPUP_SIZE, popupRect, type PopupArgs, type PopupSize } from '../core/popup-spec.js';
import { cleanName } from '../core/text.js';
import type { ClientId, PaneId, State } from '../core/types.js';
import { cannotRun, PaneRuntime } from '../server/pane-runtime.js';
import { PopupFrames, type PopupSink } from './frames.js';

export interface PopupHost {
  state(): State;
  /** The connection of an attached client. */
  sink(client: ClientId): PopupSink | undefined;
  /** Environment for a popup's program: the panes' one, with CASTELLAN_POPUP_ID instead of CASTELLAN_PANE_ID. */
  env(popup: string): Record<string, string>;
  defaultCommand(): string[];
  /** A pane's live directory (its foreground program's cwd). */
  paneCwd(pane: PaneId): string | undefined;
  serverCwd: string;
  scrollback(): number;
  frameMs(): number;
  emit(e: { type: string; [k: string]: unknown }): void;
  log(msg: string): void;
}

export interface PopupRequest extends PopupArgs {
  /** The client to show it on; default: one viewing `pane`'s window, else the most recently attached client. */
  client?: ClientId;
  /** The pane it is about: its directory is the default cwd, and a client viewing its window is chosen. */
  pane?: PaneId;
}

export interface PopupInfo {
  popup_id: string;
  client_id: string;
  command: string[];
  cwd: string;
  cols: number;
  rows: number;
}

interface Popup {
  id: string;
  client: ClientId;
  command: string[];
  cwd: string;
  title: string;
  width: PopupSize;
  height: PopupSize;
  rt: PaneRuntime;
  frames: PopupFrames;
  closing?: boolean;
}

export class PopupManager {
  private readonly byClient = new Map<ClientId, Popup>();
  private seq = 0;

  constructor(private readonly h: PopupHost) {}

  private pickClient(req: PopupRequest): ClientId {
    const st = this.h.state();
    if (req.client) {
      if (!st.clients[req.client]) throw new ApiError('not_attached', `no client ${req.client} is attached`);
      return req.client;
    }
    const clients = Object.values(st.clients).sort((a, b) => b.attachedAt - a.attachedAt);
    const w = req.pane ? st.panes[req.pane]?.window : undefined;
    const pick = clients.find((c) => c.window === w) ?? clients[0];
    if (!pick) throw new ApiError('not_attached', 'no client is attached to show a popup on (run `castellan` first)');
    return pick.id;
  }

  open(req: PopupRequest): PopupInfo {
    const st = this.h.state();
    if (req.pane && !st.panes[req.pane]) throw new ApiError('pane_not_found', `no pane ${req.pane}`);
    const client = this.pickClient(req);
    const open = this.byClient.get(client);
    if (open) throw new ApiError('not_allowed', `client ${client} already shows popup ${open.id} (${open.title}); it closes when its program exits, or with prefix u`);
    const width = req.width ?? DEFAULT_POPUP_SIZE.width;
    const height = req.height ?? DEFAULT_POPUP_SIZE.height;
    const place = popupRect(st.clients[client].size, width, height);
    if (!place) throw new ApiError('no_space', 'the terminal is too small for a popup');
    const focused = st.windows[st.clients[client].window]?.active;
    const cwd = req.cwd ?? this.h.paneCwd(req.pane ?? focused ?? '') ?? this.h.serverCwd;
    if (!isDir(cwd)) throw new ApiError('invalid_params', `cwd ${JSON.stringify(cwd)} is not a directory`);
    const command = req.command?.length ? req.command : this.h.defaultCommand();
    const id = `popup${++this.seq}`;
    const env = this.h.env(id);
    const why = cannotRun(command, cwd, env);
    if (why) throw new ApiError('invalid_params', `cannot run ${JSON.stringify(command[0] ?? '')}: ${why}`);
    const title = cleanName(req.title ?? command.join(' '), 120);
    const sink = this.h.sink(client);
    if (!sink) throw new ApiError('not_attached', `client ${client} has no connection`);
    let popup: Popup | undefined;
    const frames = new PopupFrames(id, sink, () => popup?.rt, () => this.h.frameMs());
    const rt = new PaneRuntime({
      id,
      command,
      cwd,
      env,
      cols: place.inner.cols,
      rows: place.inner.rows,
      scrollback: Math.min(this.h.scrollback(), 1000),
      onDirty: () => frames.schedule(),
      onExit: (x) => popup && this.finish(popup, { code: x.code, signal: x.signal ?? null, reason: 'exited' }),
      onTitle: () => {},
      onBell: () => sink.send({ bell: { pane: id } }),
      onNotify: () => {},
      onError: (err) => this.h.log(`popup ${id}: ${(err as Error)?.stack ?? err}`),
    });
    popup = { id, client, command, cwd, title, width, height, rt, frames };
    this.byClient.set(client, popup);
    frames.place(place.outer, title);
    this.h.emit({ type: 'popup_opened', popup: id, client, command });
    return { popup_id: id, client_id: client, command, cwd, ...place.inner };
  }

  private finish(p: Popup, how: { code: number | null; signal: number | null; reason: 'exited' | 'closed' | 'detached' | 'shutdown' }): void {
    if (this.byClient.get(p.client) !== p) return;
    this.byClient.delete(p.client);
    p.frames.closed(how);
    p.rt.dispose({ kill: how.reason !== 'exited' });
    this.h.emit({ type: 'popup_closed', popup: p.id, client: p.client, code: how.code, signal: how.signal, reason: how.reason });
  }

  /** Closes a popup early (its program is killed): by popup id, or the one on a client. */
  close(sel: { popup?: string; client?: ClientId }): string | undefined {
    const p = sel.client ? this.byClient.get(sel.client) : [...this.byClient.values()].find((x) => x.id === sel.popup);
    if (!p || (sel.popup && p.id !== sel.popup)) return undefined;
    this.finish(p, { code: null, signal: null, reason: 'closed' });
    return p.id;
  }

  list(): PopupInfo[] {
    return [...this.byClient.values()].map((p) => ({ popup_id: p.id, client_id: p.client, command: p.command, cwd: p.cwd, ...p.rt.size }));
  }

  /** Keys, pastes and mouse (already in popup coordinates) of a client showing a popup go to it; false otherwise. */
  input(client: ClientId, msg: ClientInput): boolean {
    const p = this.byClient.get(client);
    if (!p) return false;
    p.rt.input(msg);
    p.frames.schedule(true);
    return true;
  }

  /** The client's terminal changed size: the popup is placed (and its pty sized) again. */
  resized(client: ClientId): void {
    const p = this.byClient.get(client);
    const size = this.h.state().clients[client]?.size;
    if (!p || !size) return;
    const place = popupRect(size, p.width, p.height);
    if (!place) return this.finish(p, { code: null, signal: null, reason: 'closed' });
    p.rt.resize(place.inner.cols, place.inner.rows);
    p.frames.place(place.outer, p.title);
  }

  /** The client left: its popup's program ends with it (tmux does the same). */
  detached(client: ClientId): void {
    const p = this.byClient.get(client);
    if (p) this.finish(p, { code: null, signal: null, reason: 'detached' });
  }

  dispose(): void {
    for (const p of [...this.byClient.values()]) this.finish(p, { code: null, signal: null, reason: 'shutdown' });
  }
}

/** A popup is not a pane: its program gets CASTELLAN_POPUP_ID, and no CASTELLAN_PANE_ID an agent would report its state under. */
export function popupEnv(paneEnv: Record<string, string>, id: string): Record<string, string> {
  const { CASTELLAN_PANE_ID: _pane, ...rest } = paneEnv;
  return { ...rest, CASTELLAN_POPUP_ID: id };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
