// `castellan session list`: the named sessions whose servers answer on their sockets.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '../../api/client.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export interface SessionRow {
  session: string;
  socket: string;
  running: boolean;
  pid?: number;
  windows?: number;
  panes?: number;
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
      const ping = await api.request<{ pid: number }>('ping', {}, { timeoutMs: 1000 });
      const w = await api.request<{ windows: unknown[] }>('window.list', {}, { timeoutMs: 1000 });
      const p = await api.request<{ panes: unknown[] }>('pane.list', {}, { timeoutMs: 1000 });
      api.close();
      rows.push({ session, socket, running: true, pid: ping.pid, windows: w.windows.length, panes: p.panes.length });
    } catch {
      rows.push({ session, socket, running: false });
    }
  }
  return rows;
}

export default defineCommand({
  name: 'session list',
  usage: 'castellan session list [--all] [--json]',
  summary: 'List named sessions with a running server (--all also shows stale sockets).',
  options: { all: { type: 'boolean' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const rows = (await listSessions(ctx.paths.socketDir)).filter((r) => values.all || r.running);
    if (values.json) ctx.out(JSON.stringify(rows));
    else if (!rows.length) ctx.out('castellan: no sessions running');
    else ctx.out(table([['SESSION', 'PID', 'WINDOWS', 'PANES', 'SOCKET'], ...rows.map((r) => [r.session, r.running ? String(r.pid) : '(dead)', String(r.windows ?? '-'), String(r.panes ?? '-'), r.socket])]));
    return EXIT.ok;
  },
});
