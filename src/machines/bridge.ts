// The remote half: `castellan machine bridge` says hello (its version, capabilities and the server's ping), then
// copies bytes between ssh's stdin/stdout and this user's own socket. It parses nothing after the hello: the server
// applies the same limits and the same trust as to any local client (the socket's own permissions).
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { KEEP_LINE } from '../platform/rpc-client.js';
import { BRIDGE_CAPABILITIES, BRIDGE_PROTOCOL, type Hello } from './hello.js';

export interface BridgeOptions {
  socket: string;
  version: string;
  stdin: Readable;
  stdout: Writable;
  /** How long the server gets to answer the hello ping (default 5 s). */
  pingTimeoutMs?: number;
}

/** Runs the bridge until either side closes; resolves with the exit code (0 done, 3 no server, 1 server not answering). */
export function runBridge(o: BridgeOptions): Promise<number> {
  const bridge = { protocol: BRIDGE_PROTOCOL, version: o.version, capabilities: [...BRIDGE_CAPABILITIES] };
  const say = (server: Hello['server']) => o.stdout.write(JSON.stringify({ castellan_bridge: bridge, server }) + '\n');
  return new Promise((resolve) => {
    const sock = net.connect(o.socket);
    let buf = Buffer.alloc(0);
    let done = false;
    let piping = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      // Nothing more is read from ssh: a stdin left open would keep this process alive.
      o.stdin.unpipe();
      o.stdin.destroy();
      // Exit only when what was written has reached ssh.
      o.stdout.write('', () => resolve(code));
    };
    const timer = setTimeout(() => {
      say({ state: 'not_answering' });
      finish(1);
    }, o.pingTimeoutMs ?? 5000);
    sock.once('error', (e: NodeJS.ErrnoException) => {
      if (!piping) {
        say({ state: e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 'not_running' : 'not_answering' });
        finish(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 3 : 1);
      } else finish(0);
    });
    sock.once('connect', () => sock.write(JSON.stringify({ id: 'castellan-bridge-hello', method: 'ping', params: {} }) + '\n'));
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(10);
      if (nl === -1) {
        if (buf.length > 64 * 1024) {
          say({ state: 'not_answering' });
          finish(1);
        }
        return;
      }
      let ping: Record<string, unknown> = {};
      try {
        ping = (JSON.parse(buf.subarray(0, nl).toString('utf8')) as { result?: Record<string, unknown> }).result ?? {};
      } catch {
        /* not a reply: reported as a server with no version */
      }
      const rest = buf.subarray(nl + 1);
      clearTimeout(timer);
      sock.off('data', onData);
      say({
        state: 'running',
        ...(typeof ping.version === 'string' ? { version: ping.version.slice(0, 64) } : {}),
        ...(typeof ping.protocol === 'number' ? { protocol: ping.protocol } : {}),
        ...(typeof ping.session === 'string' ? { session: ping.session.slice(0, 64) } : {}),
        ...(typeof ping.pid === 'number' ? { pid: ping.pid } : {}),
      });
      piping = true;
      // This connection is a client's for as long as ssh lasts: the server must not close it as an answered, idle one
      // (src/server/idle-close.ts) while the far side is still on its way (an unknown notification to an older server is dropped).
      sock.write(KEEP_LINE);
      if (rest.length) o.stdout.write(rest);
      sock.pipe(o.stdout, { end: false });
      o.stdin.pipe(sock);
      // ssh closed our stdin: the local side is gone; the server sees an ordinary client leave.
      o.stdin.once('end', () => sock.end());
      o.stdin.once('error', () => finish(0));
      o.stdout.once('error', () => finish(0));
      sock.once('close', () => finish(0));
    };
    sock.on('data', onData);
  });
}
