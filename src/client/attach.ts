// `castellan` with no command: attach this terminal to a session's server (moving to another one when the chooser picks it), restore the terminal on exit.
import { ApiClient, type Pushed } from '../api/client.js';
import type { Paths } from '../platform/paths.js';
import type { ClientApp, ClientConfig } from './app.js';
import type { SwitchTarget } from './chooser/index.js';
import { arrivalNotice, hopPlace, type Place } from './machine-hop.js';
import { reconnect } from './reconnect.js';
import { ENTER, LEAVE } from './terminal.js';
import { capYoungGeneration, skipOptimizingCompiler } from './young-generation.js';

export interface AttachOpts {
  paths: Paths;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  window?: string;
  /** Opens the first connection another way than this machine's socket (`attach --machine`: an ssh bridge). */
  open?: () => Promise<ApiClient>;
  /** `attach --machine`: a lost link is connected again (with `open`) instead of ending the client. */
  reconnect?: { machine: string };
}

/** A connection client.attach accepted, with what the server pushed before a client app took it over. */
interface Attached {
  api: ApiClient;
  cfg: ClientConfig;
  early: Pushed[];
  offEarly: () => void;
}

type Ended = { kind: 'exit'; code: number } | { kind: 'switch'; next: Attached; place: Place; pane?: string } | { kind: 'lost' } | { kind: 'home'; message: string };

/** Another session's server gets this long to take the client before the switch is given up (the client stays). */
const SWITCH_MS = 3000;

async function connect(socket: string, params: Record<string, unknown>, timeoutMs?: number, open?: () => Promise<ApiClient>): Promise<Attached> {
  const api = open ? await open() : await ApiClient.connect(socket, timeoutMs);
  // Buffer frames until the app exists (the first frame can arrive with the attach reply).
  const early: Pushed[] = [];
  const offEarly = api.onMessage((m) => early.push(m));
  try {
    const cfg = await api.request<ClientConfig>('client.attach', params, { timeoutMs: timeoutMs ?? 10_000 });
    // This terminal's SSH agent for the panes' SSH_AUTH_SOCK link; a path here means nothing to another machine's server.
    if (!open && process.env.SSH_AUTH_SOCK) api.request('client.ssh_agent', { path: process.env.SSH_AUTH_SOCK }).catch(() => undefined);
    return { api, cfg, early, offEarly };
  } catch (e) {
    api.close();
    throw e;
  }
}

/** Attaches until detached or the server goes away, following the chooser from session to session; resolves with the exit code. */
export async function attach(o: AttachOpts): Promise<number> {
  const { stdin, stdout } = o;
  if (!stdin.isTTY || !stdout.isTTY) {
    process.stderr.write('castellan: attaching needs a terminal (stdin and stdout must be a tty)\n');
    return 2;
  }
  const size = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  const params = (window?: string) => ({ ...size(), term: process.env.TERM, ...(window ? { window_id: window } : {}) });
  // Before the app is even loaded: loading it (and Ink, when an overlay first shows) is what would grow the young
  // generation.
  capYoungGeneration();
  skipOptimizingCompiler();
  const loading = import('./app.js');
  // Never an unhandled rejection while connecting: awaited (and thrown) below.
  loading.catch(() => {});
  let place: Place = { socket: o.paths.socket, ...(o.open ? { open: o.open } : {}), ...(o.reconnect ? { machine: o.reconnect.machine } : {}) };
  let conn = await connect(place.socket, params(o.window), undefined, place.open);
  const { ClientApp: App } = await loading;
  let focus: string | undefined;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  for (;;) {
    const r = await runClient(App, o, conn, place, focus, size, params);
    if (r.kind === 'exit') return r.code;
    focus = undefined;
    if (r.kind === 'switch') {
      conn = r.next;
      place = r.place;
      focus = r.pane;
      continue;
    }
    if (r.kind === 'lost') {
      // The link died: the last screen stays, marked stale, until a fresh connection redraws it (or the user quits).
      const at = place;
      const back = await reconnect({ stdin, stdout, machine: at.machine ?? '?', connect: () => connect(at.socket, params(), 10_000, at.open), discard: (c) => c.api.close() });
      if (back) {
        conn = back;
        continue;
      }
      if (!place.home) {
        restoreTerminal(o);
        stdout.write('[lost server]\n');
        return 1;
      }
    }
    // Leaving another machine's session that this client hopped to: back to the local session it came from.
    const home = place.home!;
    const why = r.kind === 'home' ? r.message : `[left machine ${place.machine}: link down]`;
    try {
      conn = await connect(home.socket, params(), SWITCH_MS);
    } catch (e) {
      restoreTerminal(o);
      stdout.write(`${why}\n[session ${home.session} here does not answer either: ${(e as Error).message}]\n`);
      return 1;
    }
    conn.early.push({ notice: { level: 'info', message: `back from machine ${place.machine} ${why}` } });
    place = { socket: home.socket };
  }
}

function restoreTerminal(o: AttachOpts): void {
  try {
    o.stdout.write(LEAVE);
  } catch {
    /* the terminal may be gone */
  }
  try {
    o.stdin.setRawMode(false);
  } catch {
    /* not a tty any more */
  }
  o.stdin.pause();
}

/** One server's turn at this terminal, until detach, exit or a switch; whatever it added (listeners, handlers, the socket) is gone when it resolves. */
function runClient(App: typeof ClientApp, o: AttachOpts, conn: Attached, place: Place, focus: string | undefined, size: () => { cols: number; rows: number }, params: (window?: string) => Record<string, unknown>): Promise<Ended> {
  const { stdin, stdout } = o;
  const { api } = conn;
  let ended = false;
  let resolveEnd!: (e: Ended) => void;
  const done = new Promise<Ended>((r) => (resolveEnd = r));
  const onData = (d: string) => app.input(d);
  const onResize = () => app.resized();
  // Closing the terminal detaches: the server and its panes stay.
  const onHup = () => exit('', 0);
  const onTerm = () => exit('[terminated]', 0);
  const release = () => {
    ended = true;
    stdin.off('data', onData);
    stdout.off('resize', onResize);
    process.off('SIGHUP', onHup);
    process.off('SIGTERM', onTerm);
    app.dispose();
    offSession();
    api.close();
  };
  const exit = (message: string, code: number) => {
    if (ended) return;
    release();
    restoreTerminal(o);
    if (message) stdout.write(message + '\n');
    resolveEnd({ kind: 'exit', code });
  };
  // The server (or the app) ends this client: a session on another machine that this one hopped to goes back home instead.
  const leave = (message: string, code: number) => {
    if (ended || !place.home) return exit(message, code);
    release();
    resolveEnd({ kind: 'home', message });
  };
  const switchTo = async (t: SwitchTarget) => {
    if (ended) throw new Error('this client is leaving');
    // Another machine's session: this client's terminal moves there over an ssh bridge opened here.
    const to: Place = t.machine ? hopPlace(o.paths, place, appSession(), t.machine, t.machineSession) : { socket: t.socket ?? '' };
    if (!to.open && !to.socket) throw new Error(`session ${t.session} has no socket`);
    // The other server takes the client before this one loses it: one that does not answer leaves it where it was.
    const next = await connect(to.socket, params(t.window), to.open ? 10_000 : SWITCH_MS, to.open);
    if (ended) {
      next.api.close();
      throw new Error('this client has left');
    }
    if (to.machine) next.early.push(arrivalNotice(to));
    release();
    resolveEnd({ kind: 'switch', next, place: to, ...(t.pane ? { pane: t.pane } : {}) });
  };
  let session = '';
  const appSession = () => session;
  stdout.write(ENTER);
  const app = new App(api, conn.cfg, { write: (s) => stdout.write(s), size, exit: leave, switchTo, ...(place.machine ? { machine: place.machine } : {}) });
  conn.offEarly();
  // Which session this is (for the way home from another machine): the first frame's view names it.
  const offSession = api.onMessage((m) => {
    const v = (m.frame as { view?: { session?: unknown } } | undefined)?.view;
    if (typeof v?.session === 'string') session = v.session;
  });
  for (const m of conn.early) {
    const v = (m.frame as { view?: { session?: unknown } } | undefined)?.view;
    if (typeof v?.session === 'string') session = v.session;
  }
  for (const m of conn.early) app.onMessage(m);
  if (ended) return done;
  stdin.on('data', onData);
  // After a switch the stream is still flowing; after a prompt before the first attach it may have been paused.
  stdin.resume();
  stdout.on('resize', onResize);
  api.onClosed(() => {
    if (!place.machine) return exit('[lost server]', 1);
    if (ended) return;
    release();
    resolveEnd({ kind: 'lost' });
  });
  process.on('SIGHUP', onHup);
  process.on('SIGTERM', onTerm);
  if (focus) api.request('client.action', { action: { type: 'pane.focus', pane: focus } }).catch(() => {});
  return done;
}
