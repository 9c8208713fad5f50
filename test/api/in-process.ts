// Starts a real server session on a real Unix socket inside the test process (fast; panes are real ptys).
import { mkdtempSync, rmSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { resolvePaths, type Paths } from '../../src/platform/paths.js';
import { ServerSession } from '../../src/server/session.js';
import { listen } from '../../src/server/socket-server.js';

export interface InProcessServer {
  session: ServerSession;
  paths: Paths;
  home: string;
  server: net.Server;
  connect(): Promise<ApiClient>;
  stop(): Promise<void>;
}

export async function startInProcess(opts: { command?: string[]; cols?: number; rows?: number; env?: Record<string, string> } = {}): Promise<InProcessServer> {
  const home = mkdtempSync(join(tmpdir(), 'cst-'));
  const paths = resolvePaths({ env: { HOME: home } });
  let server: net.Server | undefined;
  const session = new ServerSession({
    paths,
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PS1: '$ ', SHELL: '/bin/sh', LANG: 'C.UTF-8', ...opts.env },
    version: 'test',
    cols: opts.cols ?? 80,
    rows: opts.rows ?? 24,
    command: opts.command ?? ['/bin/sh'],
    log: () => {},
    onShutdown: () => server?.close(),
  });
  server = await listen(paths.socket, session, () => {});
  const clients: ApiClient[] = [];
  return {
    session,
    paths,
    home,
    server,
    async connect() {
      const c = await ApiClient.connect(paths.socket);
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.close();
      session.shutdown('test done');
      await new Promise<void>((r) => server!.close(() => r()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Polls until cond() is truthy or the deadline passes (then throws with the last value seen). */
export async function waitFor<T>(cond: () => T | Promise<T>, opts: { timeoutMs?: number; message?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  let last: T | undefined;
  for (;;) {
    last = await cond();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out: ${opts.message ?? 'condition'} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
