// Reads the chooser's tree: this session through the client's own connection, other sessions through their sockets.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiClient } from '../../api/client.js';
import { resolvePaths } from '../../platform/paths.js';
import type { ChooserPane, ChooserSession, ChooserWindow } from './tree.js';

interface Requester {
  request<T>(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<T>;
}

/** Another session's server gets this long to answer; one that does not is listed as unreachable (and cannot be switched to). A stale socket refuses at once; this only waits on a busy or hung server. */
const OTHER_MS = 1500;
const MAX_OTHER_SESSIONS = 32;

async function readSession(api: Requester, name: string, current: boolean, currentWindow: string | undefined, timeoutMs: number, socket?: string): Promise<ChooserSession> {
  const [w, p] = await Promise.all([api.request('window.list', {}, { timeoutMs }), api.request('pane.list', {}, { timeoutMs })]);
  // zod comes in only when the chooser opens: the attached client's other input is its own server's frames.
  const { panesSchema, windowsSchema } = await import('./schemas.js');
  return { name, current, ...(socket ? { socket } : {}), windows: windowsOf(windowsSchema.parse(w).windows, panesSchema.parse(p).panes, current ? currentWindow : undefined) };
}

type ListedWindow = { window_id: string; index: number; name: string };
type ListedPane = { pane_id: string; window_id: string; title: string; active: boolean; exited?: unknown; agent: { name?: string; state: ChooserPane['state']; message?: string; hook_locked: boolean } };

/** window.list and pane.list answers (checked) as the chooser's windows. */
export function windowsOf(wins: ListedWindow[], panes: ListedPane[], currentWindow?: string): ChooserWindow[] {
  return wins.map((x) => ({
    id: x.window_id,
    index: x.index,
    name: x.name,
    current: x.window_id === currentWindow,
    panes: panes.filter((q) => q.window_id === x.window_id).map((q) => {
      // The same rule as the border: a badge is a claim about an agent, so a bare shell shows none.
      const agentish = !!q.agent.name || q.agent.hook_locked;
      return {
        id: q.pane_id,
        title: q.title,
        state: agentish ? q.agent.state : 'unknown',
        ...(q.agent.name ? { agent: q.agent.name } : {}),
        ...(agentish && q.agent.message ? { message: q.agent.message } : {}),
        ...(q.exited ? { exited: true } : {}),
        active: q.active,
      };
    }),
  }));
}

async function otherSessions(self: string | undefined, env: NodeJS.ProcessEnv): Promise<ChooserSession[]> {
  const dir = resolvePaths({ env }).socketDir;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.sock')).sort().slice(0, MAX_OTHER_SESSIONS);
  } catch {
    return [];
  }
  const out = await Promise.all(names.map(async (n): Promise<ChooserSession | undefined> => {
    const name = n === 'castellan.sock' ? 'default' : n.slice(0, -5);
    if (name === self) return undefined;
    let api: ApiClient | undefined;
    try {
      api = await ApiClient.connect(join(dir, n), OTHER_MS);
      return await readSession(api, name, false, undefined, OTHER_MS, join(dir, n));
    } catch {
      // A stale socket file (its server is gone) is not a session.
      return api ? { name, current: false, unreachable: true, windows: [] } : undefined;
    } finally {
      api?.close();
    }
  }));
  return out.filter((s): s is ChooserSession => !!s);
}

/**
 * This session first, then the others that answer. On another machine (`machine`: a client that moved there), this
 * session is named SESSION@MACHINE, and every session of this machine is another one, even one of the same name.
 */
export async function loadTree(api: Requester, o: { session: string; window?: string; env?: NodeJS.ProcessEnv; others?: boolean; machine?: string }): Promise<ChooserSession[]> {
  const [mine, others] = await Promise.all([readSession(api, o.session, true, o.window, 5000), o.others === false ? [] : otherSessions(o.machine ? undefined : o.session, o.env ?? process.env)]);
  return [o.machine ? { ...mine, name: `${mine.name}@${o.machine}` } : mine, ...others];
}

/** The highlighted pane's screen as plain text (the chooser's preview). */
export async function loadPreview(api: Requester, pane: string): Promise<string[]> {
  const r = await api.request<{ lines?: unknown }>('pane.read', { pane_id: pane }, { timeoutMs: 3000 });
  return Array.isArray(r.lines) ? r.lines.filter((l): l is string => typeof l === 'string').slice(-500) : [];
}
