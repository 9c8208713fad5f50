// The server's session: owns State, pane runtimes and client links; runs actions through the reducer and applies effects.
import type { ClientInput, Connection, EventFilter, PaneRuntimeInfo, SessionApi } from '../api/context.js';
import { ApiError } from '../api/protocol.js';
import type { AnyAction } from '../core/actions.js';
import type { Effect } from '../core/effects.js';
import type { CastellanEvent, StampedEvent } from '../core/events.js';
import { emptyState, reduce, type ReduceResult } from '../core/reducer.js';
import { paneSizes, syncedPanes } from '../core/select.js';
import type { EpisodeLimits, State } from '../core/types.js';
import { keyToBytes } from '../input/key-names.js';
import { defaultShell, paneEnv } from '../platform/env.js';
import type { Paths } from '../platform/paths.js';
import { AgentManager } from './agents.js';
import { ClientLink } from './client-link.js';
import { ConfigHolder } from './config-holder.js';
import { reloadNotes, watchConfigFiles } from './config-live.js';
import { copyStyles, type CopyOp } from './copy-controller.js';
import { DetectionLoop } from './detection-loop.js';
import { EpisodeManager } from './episodes.js';
import { governanceNotice } from './governance-notice.js';
import { SshAgentLink } from './ssh-agent-link.js';
import { StageWarnings } from './stage-warnings.js';
import { MouseRouter } from './mouse.js';
import { withNewPaneCwd } from './new-pane-cwd.js';
import { PaneRuntime } from './pane-runtime.js';
import { closesOnExit } from './remain-on-exit.js';
import { endSessions } from './terminate.js';
import { Asks } from './asks.js';
import { explainPane } from './explain-pane.js';
import { PopupManager, popupEnv } from '../popup/index.js';
import type { SessionSnapshots } from '../restore/index.js';
import { makeSnapshots, startFromSnapshot, type RestoreInput } from './session-snapshots.js';
import { WebControl, webSide } from './web-host.js';

export interface SessionOptions {
  paths: Paths;
  cwd: string;
  env: NodeJS.ProcessEnv;
  version: string;
  cols?: number;
  rows?: number;
  /** Command of the first pane (default: the user's shell). */
  command?: string[];
  /** A snapshot read before the session started (src/restore), and whether to use it. */
  restore?: RestoreInput;
  log(msg: string): void;
  /** `panesEnded` settles once every pane program is gone (bounded: see terminate.ts STOP_STEPS). */
  onShutdown(reason: string, panesEnded: Promise<unknown>): void;
}

interface Subscriber {
  filter: EventFilter;
  cb(e: StampedEvent): void;
}

export class ServerSession implements SessionApi {
  readonly version: string;
  readonly session: string;
  readonly startedAt = Date.now();
  readonly socketPath: string;
  readonly config: ConfigHolder;
  private st: State;
  private readonly runtimes = new Map<string, PaneRuntime>();
  private readonly links = new Map<string, ClientLink>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly mouse: MouseRouter;
  readonly detection: DetectionLoop;
  /** castellan's own paste buffers, newest first (copy mode fills them; `prefix ]` pastes the newest). */
  readonly buffers: string[] = [];
  private eventSeq = 0;
  private clientSeq = 0;
  private stopping = false;
  /** Extra listeners inside the server (detection loop, hooks engine). */
  readonly internalListeners = new Set<(e: StampedEvent) => void>();
  /** Agent definitions started in panes, and their per-agent hooks (the AgentHookRegistry lives here). */
  readonly agents: AgentManager;
  /** Recursive episodes: sub-harness splits behind SessionStart hooks, SessionEnd when a child ends. */
  readonly episodes: EpisodeManager;
  private readonly stageWarnings: StageWarnings;
  /** Snapshot writer and restorer; undefined with `[session] restore = "off"`. */
  readonly snapshots: SessionSnapshots | undefined;
  /** Shown to the next client that attaches (a snapshot that was refused). */
  private readonly pendingNotices: string[] = [];
  private readonly configWatch: { close(): void };
  /** Floating ptys over a client's layout (src/popup): not panes, so never in the layout or a snapshot. */
  readonly popups: PopupManager;
  /** The web view (src/web), started by `castellan web` (web.* methods). */
  readonly web = new WebControl(() => webSide(this, this.o));
  readonly sshAgent: SshAgentLink; // panes' SSH_AUTH_SOCK, pointed at each attaching client's agent (client.ssh_agent)

  constructor(private readonly o: SessionOptions) {
    this.version = o.version;
    this.session = o.paths.session;
    this.socketPath = o.paths.socket;
    this.sshAgent = new SshAgentLink(`${o.paths.socket}.ssh-agent`, o.env.SSH_AUTH_SOCK);
    this.config = new ConfigHolder({ cwd: o.cwd, paths: o.paths, log: o.log });
    this.detection = new DetectionLoop({
      state: () => this.st,
      runtime: (id) => this.runtimes.get(id),
      dispatch: (a) => this.safeDispatch(a),
      log: o.log,
      userRulesDir: o.paths.userDetect,
    });
    this.mouse = new MouseRouter({
      state: () => this.st,
      runtime: (id) => this.runtimes.get(id),
      dispatch: (action, client) => this.safeDispatch(action, client),
      copied: (client, pane, text) => this.copied(client, pane, text),
    });
    const listen = (fn: (e: StampedEvent) => void) => {
      this.internalListeners.add(fn);
      return () => this.internalListeners.delete(fn);
    };
    this.episodes = new EpisodeManager({
      paths: o.paths,
      env: o.env,
      state: () => this.st,
      dispatch: (a) => this.dispatch(a),
      preview: (a) => this.preview(a),
      emit: (e) => this.emit(e),
      listen,
      log: o.log,
    });
    this.stageWarnings = new StageWarnings({ config: () => this.config.value, emit: (e) => this.emit(e), listen });
    this.agents = new AgentManager({
      paths: o.paths,
      cwd: o.cwd,
      env: o.env,
      state: () => this.st,
      dispatch: (a) => this.dispatch(a),
      subHarness: (a, plugin) => this.episodes.split(a, { plugin }),
      writePane: (pane, data, opts) => this.writePane(pane, data, opts),
      paneCwd: (pane) => this.paneInfo(pane)?.cwd,
      emit: (e) => this.emit(e),
      listen,
      log: o.log,
    });
    this.popups = new PopupManager({
      state: () => this.st, sink: (c) => this.links.get(c)?.conn, paneCwd: (pane) => this.paneInfo(pane)?.cwd, serverCwd: o.cwd, defaultCommand: () => this.defaultCommand(),
      env: (id) => popupEnv(paneEnv({ base: this.paneBase, socket: this.socketPath, paneId: id, session: this.session }), id),
      scrollback: () => this.config.value.ui.scrollback, frameMs: () => this.config.value.ui.frame_ms, emit: (e) => this.emit(e), log: o.log,
    });
    this.configWatch = watchConfigFiles(this.config.loaded.files.map((f) => f.path), () => this.stopping || this.reloadConfig('file changed'));
    this.st = emptyState(this.session, { cols: o.cols ?? 80, rows: o.rows ?? 24 });
    this.snapshots = makeSnapshots({ ...o, config: this.config, state: () => this.st, runtime: (id) => this.runtimes.get(id), dispatch: (a) => this.dispatch(a), listen, emit: (e) => this.emit(e), shell: () => this.defaultCommand(), agents: this.agents }, o.restore?.choice === true);
    if (o.restore?.message) this.pendingNotices.push(o.restore.message);
    if (startFromSnapshot(this.snapshots, o.restore, { cols: o.cols, rows: o.rows }, o.log)) return;
    this.dispatch({
      type: 'server.init',
      cols: o.cols ?? 80,
      rows: o.rows ?? 24,
      command: o.command ?? this.defaultCommand(),
      cwd: o.cwd,
    });
  }

  private defaultCommand(): string[] {
    return [defaultShell(this.config.value.session.shell, this.o.env)];
  }

  state(): State { return this.st; }

  stats(): { clients: number; subscribers: number; panes: number } {
    return { clients: this.links.size, subscribers: this.subscribers.size, panes: this.runtimes.size };
  }

  pane(id: string): PaneRuntime | undefined { return this.runtimes.get(id); }

  private limits(): EpisodeLimits {
    const l = this.config.value.limits;
    return { maxDepth: l.max_depth, maxChildren: l.max_children, keepChildren: l.keep_children };
  }

  private ctx(client?: string) {
    return { client, now: Date.now(), defaultCommand: this.defaultCommand(), defaultCwd: this.o.cwd, limits: this.limits() };
  }

  /** What the reducer would do, with nothing committed. */
  preview(action: AnyAction, opts: { client?: string } = {}): ReduceResult {
    if (this.stopping) throw new ApiError('shutting_down', 'the server is stopping');
    return reduce(this.st, action, this.ctx(opts.client));
  }

  dispatch(action: AnyAction, opts: { client?: string } = {}): ReduceResult {
    if (this.stopping) throw new ApiError('shutting_down', 'the server is stopping');
    // Sub-harness panes open only through EpisodeManager.split, which runs their SessionStart hooks first.
    if (action.type === 'pane.split' && action.subHarness && !('reserved' in action && action.reserved)) {
      throw new ApiError('invalid_params', 'sub-harness panes are opened with the pane.split method (sub_harness: true) or agent.start with parent');
    }
    const r = reduce(this.st, action, this.ctx(opts.client));
    if (r.error) throw new ApiError(r.error.code, r.error.message);
    this.st = r.state;
    for (const e of r.effects) this.applyEffect(e);
    // A pane that exited gets no kill effect (nothing left to kill), but its screen and scrollback must go with it.
    for (const id of this.runtimes.keys()) if (!this.st.panes[id]) this.dropRuntime(id);
    this.syncSizes();
    for (const e of r.events) this.publish(e);
    for (const l of this.links.values()) l.schedule();
    return { ...r, state: this.st };
  }

  private applyEffect(e: Effect): void {
    switch (e.type) {
      case 'spawn':
        return this.spawn(e.pane, e.command, e.cwd, e.env);
      case 'kill':
        return this.dropRuntime(e.pane);
      case 'notify':
        this.broadcast({ alert: { pane: e.pane, state: e.state, agent: e.agent, reason: e.reason } });
        return;
      case 'shutdown':
        setImmediate(() => this.shutdown(e.reason));
        return;
    }
  }

  /** Ends a pane's program (if still running) and frees everything the server kept for it. */
  private dropRuntime(id: string): void {
    const rt = this.runtimes.get(id);
    this.runtimes.delete(id);
    this.detection.forget(id);
    for (const l of this.links.values()) l.copy.forget(id);
    rt?.dispose();
  }

  private spawn(id: string, command: string[], cwd: string, env?: Record<string, string>): void {
    const size = paneSizes(this.st).get(id) ?? { cols: 80, rows: 24 };
    const rt = new PaneRuntime({
      id,
      command,
      cwd,
      env: paneEnv({ base: this.paneBase, socket: this.socketPath, paneId: id, session: this.session, extra: env }),
      cols: size.cols,
      rows: size.rows,
      scrollback: this.config.value.ui.scrollback,
      onDirty: () => this.paneDirty(id),
      onExit: (x) => {
        const close = closesOnExit(this.config.value.session.remain_on_exit, x);
        if (this.st.panes[id] && this.runtimes.get(id) === rt) this.safeDispatch({ type: 'pane.exited', pane: id, code: x.code, signal: x.signal, close });
      },
      onTitle: (title) => this.safeDispatch({ type: 'pane.title', pane: id, title }),
      onBell: () => this.toViewers(id, { bell: { pane: id } }),
      onNotify: (n) => this.toViewers(id, { notify: { pane: id, ...n } }),
      onError: (err) => this.o.log(`pane ${id}: listener error: ${(err as Error)?.stack ?? err}`),
    });
    this.runtimes.set(id, rt);
  }

  /** The server's environment for panes (paneEnv drops what must not reach them), SSH_AUTH_SOCK the agent link. */
  private get paneBase(): NodeJS.ProcessEnv { return this.sshAgent.forPanes(this.o.env); }

  /** Runs an internal action; a refusal is logged, never thrown into an event callback. */
  safeDispatch(action: AnyAction, client?: string): void {
    try {
      this.dispatch(action, client ? { client } : undefined);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'shutting_down')) this.o.log(`${action.type}: ${(err as Error).message}`);
    }
  }

  /** One message to every attached client. */
  private broadcast(msg: unknown): void {
    for (const l of this.links.values()) l.conn.send(msg);
  }

  private toViewers(pane: string, msg: unknown): void {
    const w = this.st.panes[pane]?.window;
    for (const l of this.links.values()) if (this.st.clients[l.id]?.window === w) l.conn.send(msg);
  }

  private paneDirty(id: string): void {
    const w = this.st.panes[id]?.window;
    if (!w) return;
    if (!this.runtimes.get(id)?.showing) this.detection.paneDirty(id);
    this.snapshots?.content();
    for (const l of this.links.values()) if (this.st.clients[l.id]?.window === w) l.schedule(false, id);
  }

  private syncSizes(): void {
    for (const [id, size] of paneSizes(this.st)) {
      const rt = this.runtimes.get(id);
      if (!rt) continue;
      const before = rt.size;
      if (before.cols === size.cols && before.rows === size.rows) continue;
      // A resize redraw is not the agent working.
      this.detection.noteInput(id);
      rt.resize(size.cols, size.rows);
    }
  }

  private publish(e: CastellanEvent): void {
    const stamped = { ...e, seq: ++this.eventSeq, ts: Date.now() } as StampedEvent;
    for (const fn of this.internalListeners) {
      try {
        fn(stamped);
      } catch (err) {
        this.o.log(`internal listener: ${(err as Error).stack}`);
      }
    }
    const pane = (e as { pane?: string }).pane;
    for (const s of [...this.subscribers]) {
      if (s.filter.types && !s.filter.types.includes(e.type)) continue;
      if (s.filter.panes && (!pane || !s.filter.panes.includes(pane))) continue;
      s.cb(stamped);
    }
  }

  emit(e: { type: string; [k: string]: unknown }): void {
    this.publish(e as CastellanEvent);
    const notice = governanceNotice(e);
    if (notice) this.broadcast({ notice });
  }

  subscribe(filter: EventFilter, cb: (e: StampedEvent) => void): () => void {
    const s: Subscriber = { filter, cb };
    this.subscribers.add(s);
    return () => this.subscribers.delete(s);
  }

  paneInfo(pane: string): PaneRuntimeInfo | undefined {
    const rt = this.runtimes.get(pane);
    if (!rt) return undefined;
    return { pid: rt.pty?.pid, foreground: rt.exited ? undefined : rt.pty?.foregroundName(), get cwd() { return rt.exited ? undefined : rt.pty?.cwd(); }, get cwdSoon() { return rt.exited ? undefined : rt.pty?.cwdSoon(); }, freshCwd: async () => (rt.exited ? undefined : rt.pty?.cwdFresh()), ...rt.size };
  }

  async explainPane(pane: string): Promise<Record<string, unknown>> {
    await this.detection.identifyNow(pane);
    return explainPane(this.st, this.detection, pane);
  }

  readPane(pane: string, opts: { lines?: number; ansi?: boolean; source: 'screen' | 'all' }): string[] {
    const rt = this.runtimes.get(pane);
    if (!rt || !this.st.panes[pane]) throw new ApiError('pane_not_found', `no pane ${pane}`);
    return rt.screen.readLines(opts);
  }

  writePane(pane: string, data: string, opts: { paste?: boolean } = {}): void {
    const rt = this.runtimes.get(pane);
    if (!rt || !this.st.panes[pane]) throw new ApiError('pane_not_found', `no pane ${pane}`);
    if (rt.exited) throw new ApiError('pane_gone', `pane ${pane} has exited`);
    this.detection.noteInput(pane, opts.paste ? undefined : data);
    rt.input(opts.paste ? { kind: 'paste', text: data } : { kind: 'data', data });
  }

  async attach(conn: Connection, p: { cols: number; rows: number; term?: string; window?: string }): Promise<Record<string, unknown>> {
    const id = `c${++this.clientSeq}`;
    const link = new ClientLink(id, conn as ConstructorParameters<typeof ClientLink>[1], () => this.config.value.ui.frame_ms, {
      state: () => this.st,
      pane: (x) => this.runtimes.get(x),
      copyStyles: () => copyStyles(this.config.theme),
      copyKeys: () => this.config.value.ui.copy_mode_keys,
    });
    this.dispatch({ type: 'client.attach', client: id, cols: p.cols, rows: p.rows, window: p.window });
    conn.clientId = id;
    this.links.set(id, link);
    conn.onClose(() => this.detach(id, 'connection closed'));
    link.reset();
    // After the attach reply, so the client is ready to show it.
    for (const message of this.pendingNotices.splice(0)) setImmediate(() => conn.send({ notice: { level: 'warning', message } }));
    return { client_id: id, session: this.session, version: this.version, ...this.config.clientConfig() };
  }

  detach(clientId: string, reason: string): void {
    const link = this.links.get(clientId);
    if (!link) return;
    this.links.delete(clientId);
    link.dispose();
    this.mouse.forget(clientId);
    this.popups.detached(clientId);
    if (!link.conn.closed) link.conn.send({ detached: { reason } });
    this.safeDispatch({ type: 'client.detach', client: clientId });
  }

  clientResize(clientId: string, cols: number, rows: number): void {
    this.dispatch({ type: 'client.resize', client: clientId, cols, rows });
    this.links.get(clientId)?.reset();
    this.popups.resized(clientId);
  }

  clientAction(clientId: string, action: AnyAction): ReduceResult {
    const focused = () => this.paneInfo(this.clientWindow(clientId)?.active ?? '')?.cwd;
    const where = { mode: this.config.value.session.new_pane_cwd, serverCwd: this.o.cwd, focusedCwd: focused };
    return this.dispatch(withNewPaneCwd(action, where), { client: clientId });
  }

  /** The window a client is looking at. */
  private clientWindow(clientId: string) {
    const c = this.st.clients[clientId];
    return c ? this.st.windows[c.window] : undefined;
  }

  clientInput(clientId: string, msg: ClientInput): void {
    const w = this.clientWindow(clientId);
    if (!w) return;
    this.links.get(clientId)?.noteInput();
    if (this.popups.input(clientId, msg)) return;
    if (msg.kind === 'mouse') return this.mouse.handle(clientId, this.links.get(clientId), msg);
    const rt = this.runtimes.get(w.active);
    if (!rt) return;
    if (rt.exited) {
      // An exited pane stays to show its last output and exit code; Enter (or q) closes it.
      if (msg.kind === 'data' && /[\rq]/.test(msg.data)) this.safeDispatch({ type: 'pane.close', pane: w.active });
      return;
    }
    this.detection.noteInput(w.active, msg.kind === 'data' ? msg.data : undefined);
    rt.input(msg);
    if (msg.kind === 'data' || msg.kind === 'paste') for (const id of syncedPanes(w)) this.runtimes.get(id)?.input(msg);
  }

  clientCopy(clientId: string, op: CopyOp | { op: 'paste' }): void {
    const w = this.clientWindow(clientId);
    const link = this.links.get(clientId);
    if (!w || !link) return;
    const rt = this.runtimes.get(w.active);
    if (!rt) return;
    if (op.op === 'paste') {
      if (!this.buffers.length) {
        link.conn.send({ notice: { level: 'info', message: 'the paste buffer is empty (copy something in copy mode first)' } });
        return;
      }
      if (!rt.exited) rt.input({ kind: 'paste', text: this.buffers[0] });
      return;
    }
    // A key typed after copy mode ended, before this client's next frame said so, is the pane's (as in tmux).
    if (op.op === 'key' && !link.copy.get(w.active)) return this.clientInput(clientId, { kind: 'data', data: keyToBytes(op.key) ?? '' });
    const text = link.copy.apply(w.active, rt.screen, op);
    if (text) this.copied(clientId, w.active, text);
    link.schedule(true);
  }

  private copied(clientId: string, pane: string, text: string): void {
    this.buffers.unshift(text);
    this.buffers.splice(50);
    this.links.get(clientId)?.conn.send({ copied: { pane, text } });
  }

  /** Reads the layers again and applies them live; `notes` name the settings that only apply to new panes. */
  reloadConfig(why: 'asked' | 'file changed' = 'asked'): { diagnostics: unknown[]; notes: string[] } {
    const before = this.config.value;
    this.detection.reload();
    const diagnostics = [...this.config.reload(), ...this.detection.diagnostics];
    const notes = reloadNotes(before, this.config.value);
    this.broadcast({ config: this.config.clientConfig() });
    if (why === 'file changed') {
      const message = `config reloaded (file changed)${diagnostics.length ? ` with ${diagnostics.length} problem(s): castellan config check` : ''}${notes.length ? `; ${notes.join('; ')}` : ''}`;
      this.broadcast({ notice: { level: diagnostics.length ? 'warning' : 'info', message } });
    }
    return { diagnostics, notes };
  }

  setTheme(name: string): { theme: string; diagnostics: string[] } {
    const r = this.config.setTheme(name);
    for (const l of this.links.values()) {
      l.conn.send({ config: this.config.clientConfig() });
      l.reset();
    }
    return r;
  }

  private readonly asks = new Asks({ clients: () => this.links.size + this.web.pages(), broadcast: (m) => (this.broadcast(m), this.web.asked(m)) });

  ask(q: { title: string; message: string; timeoutMs: number; paneId?: string }): Promise<'allow' | 'deny'> {
    return this.asks.ask(q);
  }

  answer(_clientId: string | undefined, id: string, answer: 'allow' | 'deny'): boolean {
    return this.asks.answer(id, answer);
  }

  shutdown(reason: string): void {
    this.asks.denyAll();
    if (this.stopping) return;
    this.stopping = true;
    this.o.log(`shutting down: ${reason}`);
    // The user ended the session by closing its last window: nothing to bring back. Any other end keeps the snapshot.
    if (reason === 'last window closed') void this.snapshots?.forget();
    else this.snapshots?.dispose();
    for (const l of this.links.values()) {
      l.conn.send({ exit: { reason } });
      l.dispose();
    }
    this.links.clear();
    this.popups.dispose();
    this.agents.dispose();
    this.episodes.dispose();
    this.stageWarnings.dispose();
    this.configWatch.close();
    this.sshAgent.remove();
    // One HUP, TERM, KILL sequence for all panes at once; the process exits once it is over (main.ts).
    const pids = [...this.runtimes.values()].flatMap((rt) => rt.runningPid ?? []);
    for (const rt of this.runtimes.values()) rt.dispose({ kill: false });
    this.runtimes.clear();
    this.detection.dispose();
    this.o.onShutdown(reason, endSessions(pids));
  }
}
