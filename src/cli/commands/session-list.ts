// `castellan session list` (tmux: ls): running sessions with their attached clients, and saved ones a start brings back.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '../../api/client.js';
import { peekSnapshot } from '../../restore/peek.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export interface SessionRow {
  session: string;
  socket: string;
  running: boolean;
  pid?: number;
  windows?: number;
  panes?: number;
  /** Attached clients (tmux's "(attached)"). */
  attached?: number;
  /** Not running, but its snapshot brings it back at the next start (after a crash, a reboot, `server stop`). */
  saved?: boolean;
  /** When the saved snapshot was written. */
  saved_at?: string;
}

export async function listSessions(socketDir: string): Promise<SessionRow[]> {
  let names: string[] = [];
  try {
    names = readdirSync(socketDir).filter((n) => n.endsWith('.sock'));
  } catch {
    return [];
  }
  const rows: SessionRow[] = [];
  for (const n of names.sort()) {
    const socket = join(socketDir, n);
    const session = n === 'castellan.sock' ? 'default' : n.slice(0, -5);
    try {
      const api = await ApiClient.connect(socket, 500);
      // A server that was just started (`new -d` returns before it has loaded) answers once loaded: wait for it.
      const ping = await api.request<{ pid: number; clients: number }>('ping', {}, { timeoutMs: 5000 });
      const w = await api.request<{ windows: unknown[] }>('window.list', {}, { timeoutMs: 1000 });
      const p = await api.request<{ panes: unknown[] }>('pane.list', {}, { timeoutMs: 1000 });
      api.close();
      rows.push({ session, socket, running: true, pid: ping.pid, windows: w.windows.length, panes: p.panes.length, attached: ping.clients });
    } catch {
      rows.push({ session, socket, running: false });
    }
  }
  return rows;
}

/** Sessions with a snapshot of their own (`<session>.json`), sorted. */
function savedSessions(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'snapshots'))
      .map((n) => /^([A-Za-z0-9_.-]{1,64})\.json$/.exec(n)?.[1])
      .filter((n): n is string => !!n)
      .sort();
  } catch {
    return [];
  }
}

export default defineCommand({
  name: 'session list',
  usage: 'castellan session list [--all] [--json]   (tmux: ls, list-sessions)',
  summary: 'List running sessions (attached clients, windows, panes) and saved ones that a start brings back; exit 1 when there is neither (--all also shows stale sockets).',
  options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const live = await listSessions(ctx.paths.socketDir);
    const rows = live.filter((r) => values.all || r.running);
    // After a crash or a reboot nothing runs, but the snapshots wait: a session is not gone while one does. Only the
    // snapshots of sessions that do not run are read, and only what this lists (not the ones kept aside, not the schema).
    for (const session of savedSessions(ctx.paths.stateDir)) {
      if (live.some((r) => r.running && r.session === session)) continue;
      const s = peekSnapshot(ctx.paths, session);
      if (!s) continue;
      const row: SessionRow = { session, socket: join(ctx.paths.socketDir, session === 'default' ? 'castellan.sock' : `${session}.sock`), running: false, saved: true, windows: s.windows, panes: s.panes };
      row.saved_at = new Date(s.savedAt).toISOString();
      const at = rows.findIndex((r) => r.session === session);
      if (at >= 0) rows[at] = row;
      else rows.push(row);
    }
    if (values.json) {
      ctx.out(JSON.stringify(rows));
      return rows.length ? EXIT.ok : EXIT.error;
    }
    if (!rows.length) {
      ctx.err(`castellan: no sessions (castellan new starts one)`);
      return EXIT.error;
    }
    const state = (r: SessionRow) => (r.running ? (r.attached ? `attached (${r.attached})` : 'detached') : r.saved ? 'saved' : '(dead)');
    ctx.out(table([['SESSION', 'STATE', 'PID', 'WINDOWS', 'PANES', 'SOCKET'], ...rows.map((r) => [r.session, state(r), r.running ? String(r.pid) : '-', String(r.windows ?? '-'), String(r.panes ?? '-'), r.socket])]));
    const saved = rows.filter((r) => r.saved);
    if (saved.length) ctx.out(`saved sessions come back with: ${saved.map((r) => `castellan a -t ${r.session}`).join(', ')}`);
    return EXIT.ok;
  },
});
