// Other machines in the chooser and for `prefix j` (issue 31): every enabled profile's session, read in the background
// over ssh (a key never waits on a host), shown meanwhile from its last known listing, dimmed and marked stale.
import { windowsOf } from './load.js';
import type { SwitchTarget } from './controller.js';
import type { ChooserSession, ChooserWindow } from './tree.js';
import { needsMe } from './tree.js';

interface Remote {
  request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T>;
  close(): void;
  /** Lines the server pushes (events after events.subscribe). Without it, a machine is read once per opening. */
  onMessage?(cb: (m: { event?: unknown }) => void): () => void;
  onClosed?(cb: () => void): void;
}

/** What the chooser needs of src/machines (tests give their own). */
export interface MachineLister {
  machines(): Array<{ name: string; session?: string }>;
  /** The machine's last pane.list answer (the same cache `herd list` keeps), or undefined. */
  lastKnown(name: string): { at: number; panes: unknown[] } | undefined;
  remember(name: string, panes: unknown[]): void;
  open(name: string): Promise<Remote>;
}

/** From spawning ssh to the listing: a machine that takes longer is shown stale, from its last known state. */
const MACHINE_MS = 15_000;
/** While the chooser is open, a machine that answered is read again on these events (its badges, panes, windows). */
const LIVE_EVENTS = ['pane_agent_status_changed', 'pane_agent_turn_ended', 'pane_created', 'pane_closed', 'pane_exited', 'pane_renamed', 'pane_moved', 'pane_respawned', 'window_created', 'window_closed', 'window_renamed'];
/** Events in a burst are read once, this long after the first. */
const LIVE_COALESCE_MS = 30;
const MAX_SHOWN = 16;

/** Why a machine gave no listing, without the "machine NAME:" its row already says. */
const why = (e: unknown): string => String((e as Error)?.message ?? e).replace(/^machine \S+:? ?/, '').slice(0, 160);

const ago = (ms: number): string => (ms < 60_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);

/** A cached listing (its file may hold anything): panes that do not check out are left out. */
async function fromCache(l: MachineLister, name: string): Promise<{ windows: ChooserWindow[]; at?: number }> {
  const last = l.lastKnown(name);
  if (!last) return { windows: [] };
  const { panesSchema } = await import('./schemas.js');
  const one = panesSchema.shape.panes.element;
  const panes = last.panes.flatMap((p) => {
    const r = one.safeParse(p);
    return r.success ? [r.data] : [];
  });
  const ids = [...new Set(panes.map((p) => p.window_id))];
  return { at: last.at, windows: windowsOf(ids.map((id, i) => ({ window_id: id, index: i + 1, name: id })), panes) };
}

/** One machine's windows and panes, checked (a listing that is not castellan's is an error), and remembered. */
async function readListing(l: MachineLister, name: string, remote: Remote, deadlineMs: number): Promise<ChooserWindow[]> {
  const [w, p] = await Promise.all([remote.request('window.list', {}, { timeoutMs: deadlineMs }), remote.request('pane.list', {}, { timeoutMs: deadlineMs })]);
  const { panesSchema, windowsSchema } = await import('./schemas.js');
  const wr = windowsSchema.safeParse(w);
  const pr = panesSchema.safeParse(p);
  if (!wr.success || !pr.success) throw new Error('it answered something that is not a castellan listing');
  l.remember(name, (p as { panes: unknown[] }).panes);
  return windowsOf(wr.data.windows, pr.data.panes);
}

/** `keep`: offered the connection after a good listing; when it takes it (true), it is the one to close it. */
async function listOne(l: MachineLister, name: string, deadlineMs: number, alive: () => boolean, keep?: (r: Remote) => boolean): Promise<ChooserWindow[]> {
  let remote: Remote | undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(deadlineMs / 1000)} s`)), deadlineMs);
  });
  const work = (async () => {
    remote = await l.open(name);
    if (!alive()) throw new Error('closed');
    const windows = await readListing(l, name, remote, deadlineMs);
    if (alive() && keep?.(remote)) remote = undefined;
    return windows;
  })();
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    let closed = false;
    const close = () => {
      if (closed || !remote) return;
      closed = true;
      remote.close();
    };
    close();
    // A connection that comes up after the deadline is closed as soon as it does.
    void work.finally(close).catch(() => undefined);
  }
}

/** The last sessions read from other machines: what `prefix j` names when no pane here waits. */
let lastRemote: ChooserSession[] = [];

/** Keeps a look made elsewhere (the machines thread) as the last one. */
export function rememberLook(sessions: ChooserSession[]): void {
  lastRemote = sessions;
}

/**
 * Follows a machine that answered, while the chooser is open: its events make it read again (a burst once), so a
 * remote agent turning blocked shows in the open chooser; a lost link leaves the last listing, marked stale.
 * Returns false (the caller closes the connection) when the connection cannot push events.
 */
function follow(l: MachineLister, name: string, remote: Remote, show: (windows: ChooserWindow[] | undefined, why?: string) => void, alive: () => boolean): boolean {
  if (!remote.onMessage) return false;
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let again = false;
  const read = (): void => {
    timer = undefined;
    if (!alive()) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    readListing(l, name, remote, MACHINE_MS)
      .then((windows) => alive() && show(windows))
      .catch((e: unknown) => alive() && show(undefined, why(e)))
      .finally(() => {
        reading = false;
        if (again) {
          again = false;
          read();
        }
      });
  };
  remote.onMessage((m) => {
    if (m.event && !timer) timer = setTimeout(read, LIVE_COALESCE_MS);
  });
  remote.onClosed?.(() => {
    if (timer) clearTimeout(timer);
    if (alive()) show(undefined, 'link lost');
  });
  remote.request('events.subscribe', { types: LIVE_EVENTS }, { timeoutMs: MACHINE_MS }).catch(() => remote.close());
  return true;
}

/**
 * Reads every enabled machine at once, each on its own deadline; `onUpdate` gets the whole list each time one changes
 * (first the cached listings, marked stale, then each answer or failure, then each change while it is followed).
 * Returns a stop (in-flight reads are dropped, followed links closed).
 */
export function watchMachines(lister: () => Promise<MachineLister>, onUpdate: (sessions: ChooserSession[]) => void, o: { deadlineMs?: number; now?: () => number } = {}): () => void {
  let alive = true;
  const now = o.now ?? Date.now;
  const followed: Remote[] = [];
  void (async () => {
    let l: MachineLister;
    let list: Array<{ name: string; session?: string }>;
    try {
      l = await lister();
      list = l.machines().slice(0, MAX_SHOWN);
    } catch {
      return;
    }
    if (!list.length || !alive) return;
    const out: ChooserSession[] = [];
    const put = (i: number, s: ChooserSession) => {
      out[i] = s;
      lastRemote = out.filter(Boolean);
      if (alive) onUpdate(lastRemote);
    };
    const label = (m: { name: string; session?: string }) => `${m.session ?? 'default'}@${m.name}`;
    await Promise.all(list.map(async (m, i) => {
      let last: { windows: ChooserWindow[]; at?: number } = await fromCache(l, m.name).catch(() => ({ windows: [] }));
      const seen = () => (last.at !== undefined ? `last seen ${ago(now() - last.at)} ago` : 'never listed');
      put(i, { name: label(m), current: false, machine: m.name, stale: `connecting…, ${seen()}`, windows: last.windows });
      /** A fresh listing, or (windows undefined) why there is none: the last one stays, marked stale. */
      const show = (windows: ChooserWindow[] | undefined, reason?: string) => {
        if (windows) last = { windows, at: now() };
        put(i, { name: label(m), current: false, machine: m.name, ...(reason ? { stale: `${seen()} · ${reason}` } : {}), windows: last.windows });
      };
      const keep = (r: Remote): boolean => {
        if (!follow(l, m.name, r, show, () => alive)) return false;
        followed.push(r);
        return true;
      };
      try {
        const windows = await listOne(l, m.name, o.deadlineMs ?? MACHINE_MS, () => alive, keep);
        show(windows);
      } catch (e) {
        show(undefined, why(e));
      }
    }));
  })();
  return () => {
    alive = false;
    for (const r of followed.splice(0)) r.close();
  };
}

/** The real lister: this user's machine profiles, the ssh bridge, and `herd list`'s cache (src/machines, loaded lazily). */
export async function machineLister(env: NodeJS.ProcessEnv = process.env): Promise<MachineLister> {
  const [{ resolvePaths }, m] = await Promise.all([import('../../platform/paths.js'), import('../../machines/index.js')]);
  const paths = resolvePaths({ env });
  const profiles = () => {
    try {
      return m.readProfiles(paths.machinesFile).filter((p) => !p.disabled);
    } catch {
      return [];
    }
  };
  return {
    machines: () => profiles().map((p) => ({ name: p.name, ...(p.session ? { session: p.session } : {}) })),
    lastKnown: (name) => m.lastKnown(paths, name),
    remember: (name, panes) => m.rememberPanes(paths, name, panes),
    open: async (name) => {
      const p = profiles().find((x) => x.name === name);
      if (!p) throw new Error(`no machine named ${name}`);
      return (await m.openMachine({ paths, env, connect: () => Promise.reject(new Error('local')) }, p)).client;
    },
  };
}

/** Agents on other machines that need the user, as one line (`prefix j` when no pane here waits), or undefined. */
export function waitingElsewhere(sessions: ChooserSession[] = lastRemote): string | undefined {
  const hits: string[] = [];
  for (const s of sessions) {
    for (const w of s.windows) for (const p of w.panes) if (needsMe(p)) hits.push(`${p.id}@${s.machine} ${p.agent ?? 'agent'} ${p.state}${s.stale ? ' (stale)' : ''}`);
  }
  if (!hits.length) return undefined;
  const machines = [...new Set(sessions.filter((s) => s.windows.some((w) => w.panes.some(needsMe))).map((s) => s.machine))];
  return `waiting on other machines: ${hits.slice(0, 3).join(', ')}${hits.length > 3 ? ` (+${hits.length - 3})` : ''} — prefix j jumps there (or castellan attach --machine ${machines[0]})`;
}

/** The first agent on another machine that needs the user (the last look), as the place a client jumps to. */
export function firstWaitingElsewhere(sessions: ChooserSession[] = lastRemote): SwitchTarget | undefined {
  for (const s of sessions) {
    for (const w of s.windows) {
      const p = w.panes.find(needsMe);
      if (p && s.machine) return { session: s.name, machine: s.machine, window: w.id, pane: p.id };
    }
  }
  return undefined;
}

/**
 * `prefix j` with no pane here waiting. An agent on another machine known to wait (the last look): the client moves to
 * it (`jump`, as the chooser's Enter does). None known: says so and looks again in the background, naming what that
 * finds (the next `prefix j` goes there).
 */
export function jumpElsewhere(say: (text: string) => void, watch: (onUpdate: (sessions: ChooserSession[]) => void) => () => void, jump?: (t: SwitchTarget) => Promise<void>): void {
  const target = firstWaitingElsewhere();
  if (target && jump) {
    say(`jumping to ${target.pane}@${target.machine}…`);
    jump(target).catch((e: Error) => say(`machine ${target.machine} does not answer: staying here (${String(e.message).slice(0, 200)})`));
    return;
  }
  const before = waitingElsewhere();
  say(before ? `no pane here is waiting for you; ${before}` : 'no pane is waiting for you');
  let stop: (() => void) | undefined = undefined;
  let done = false;
  const timer = setTimeout(() => stop?.(), MACHINE_MS + 1000);
  timer.unref?.();
  stop = watch((sessions) => {
    if (done || sessions.some((s) => s.stale?.startsWith('connecting'))) return;
    done = true;
    clearTimeout(timer);
    // One look is all prefix j needs: the links a look keeps for an open chooser are closed at once.
    stop?.();
    const now = waitingElsewhere(sessions);
    if (now && now !== before) say(`no pane here is waiting for you; ${now}`);
  });
}
