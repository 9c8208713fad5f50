// Helpers for the socket robustness tests: an in-process server with chosen output limits, and raw line I/O on a socket.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePaths, type Paths } from '../../src/platform/paths.js';
import { ServerSession } from '../../src/server/session.js';
import { bindSocket } from '../../src/server/socket-bind.js';
import { type OutputLimits, serve, type ServeHandle } from '../../src/server/socket-server.js';

export interface LimitedServer {
  paths: Paths;
  session: ServerSession;
  handle: ServeHandle;
  logs: string[];
  stop(): Promise<void>;
}

export async function startLimited(limits?: OutputLimits): Promise<LimitedServer> {
  const home = mkdtempSync(join(tmpdir(), 'cst-'));
  const paths = resolvePaths({ env: { HOME: home } });
  const logs: string[] = [];
  const bound = await bindSocket(paths.socket);
  bound.publish();
  const session = new ServerSession({
    paths,
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PS1: '$ ', SHELL: '/bin/sh', LANG: 'C.UTF-8' },
    version: 'test',
    cols: 80,
    rows: 24,
    command: ['/bin/sh'],
    log: (m) => logs.push(m),
    onShutdown: () => bound.server.close(),
  });
  const handle = serve(bound, session, (m) => logs.push(m), limits);
  return {
    paths,
    session,
    handle,
    logs,
    async stop() {
      session.shutdown('test done');
      await new Promise<void>((r) => bound.server.close(() => r()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export type Msg = { id?: unknown; result?: unknown; error?: { code: string; message: string }; event?: Record<string, unknown>; malformed?: string };

/** A raw connection: write bytes, read parsed lines. */
export class RawConn {
  readonly sock: net.Socket;
  readonly msgs: Msg[] = [];
  closed = false;
  private buf = Buffer.alloc(0);
  private waiters: Array<() => void> = [];

  private constructor(sock: net.Socket) {
    this.sock = sock;
    sock.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (let i = this.buf.indexOf(10); i !== -1; i = this.buf.indexOf(10)) {
        const text = this.buf.subarray(0, i).toString('utf8');
        try {
          this.msgs.push(JSON.parse(text) as Msg);
        } catch {
          this.msgs.push({ malformed: text.slice(0, 500) });
        }
        this.buf = this.buf.subarray(i + 1);
      }
      this.wake();
    });
    sock.on('close', () => {
      this.closed = true;
      this.wake();
    });
    sock.on('error', () => {});
  }

  static connect(path: string): Promise<RawConn> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path);
      s.once('connect', () => resolve(new RawConn(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  write(data: string | Buffer): void {
    this.sock.write(data);
  }

  /** Resolves with the first message (from now or already received) matching `pred`; rejects after the deadline or on close. */
  async next(pred: (m: Msg) => boolean, timeoutMs = 5000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.msgs.findIndex(pred);
      if (i !== -1) return this.msgs.splice(i, 1)[0];
      if (this.closed) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; have ${JSON.stringify(this.msgs.slice(-3)).slice(0, 500)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Sends a request line and waits for the reply with its id. */
  async request(id: string | number, method: string, params?: unknown, timeoutMs = 5000): Promise<Msg> {
    this.write(JSON.stringify({ id, method, params }) + '\n');
    return this.next((m) => m.id === id && ('result' in m || 'error' in m), timeoutMs);
  }

  close(): void {
    this.sock.destroy();
  }
}
