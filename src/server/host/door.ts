// The host door, server side: <state dir>/host-<build>.sock takes one request a connection, a line of the socket
// protocol's JSON: `ping`, or `host.start` (start a session in this process). Private as the session sockets are
// (0600 in the user's 0700 state directory); a request is still checked as if anyone had written it: a session name
// as `--session` takes it (no path in it), an absolute cwd that is a directory, bounded sizes, no NUL, text only, this
// build, this user's home and state directory. Whatever is refused, the starter starts a process of its own.
import { statSync } from 'node:fs';
import type net from 'node:net';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { resolvePaths, type Paths } from '../../platform/paths.js';
import { VERSION } from '../../version.js';
import type { BoundSocket } from '../socket-bind.js';
import { sessionServerEnv } from '../server-env.js';
import { buildId, hostingOff, hostSocketPath } from './build.js';
import { claimHostDoor } from './claim.js';
import { hostProcess, MAX_HOSTED } from './process.js';

/** What main.ts's startSession needs for a hosted session. */
export interface HostStart {
  paths: Paths;
  cwd: string;
  version: string;
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  command?: string[];
  restore?: boolean;
}

export interface DoorOptions {
  stateDir: string;
  /** The process's environment: its home and state directory are the ones a request must name. */
  env: NodeJS.ProcessEnv;
  log(msg: string): void;
  start(s: HostStart): Promise<void>;
  /** The door claimed early by `server start` (claim.ts); claimed here when not given. */
  claimed?: Promise<BoundSocket | undefined>;
}

/** One request line at most (an environment is a few KB; 1 MiB is far past any real one). */
export const MAX_REQUEST_BYTES = 1 << 20;
/** The whole request line must arrive within this (a connection that trickles is closed). */
export const REQUEST_MS = 5000;

const text = (max: number) => z.string().max(max).refine((s) => !s.includes('\0'), 'NUL');
const startParams = z
  .object({
    build: z.string().max(64),
    session: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/)
      .refine((n) => n !== '.' && n !== '..'),
    cwd: text(4096).refine((p) => isAbsolute(p), 'not absolute'),
    cols: z.number().int().min(10).max(2000).optional(),
    rows: z.number().int().min(10).max(2000).optional(),
    command: z.array(text(65536)).min(1).max(256).optional(),
    restore: z.boolean().optional(),
    env: z.record(z.string().min(1).max(1024).regex(/^[^=\0]+$/), text(131072)).refine((e) => Object.keys(e).length <= 4096, 'too many variables'),
  })
  .strict();
const request = z.object({ id: z.union([z.string().max(100), z.number()]).optional(), method: z.string().max(100), params: z.unknown().optional() }).strict();

let opened = false;

export async function openDoor(o: DoorOptions): Promise<void> {
  if (opened || hostingOff(o.env)) return;
  opened = true;
  const path = hostSocketPath(o.stateDir);
  const bound = await (o.claimed ?? claimHostDoor(o.stateDir, o.env));
  if (!bound) return o.log(`host: not taking other sessions in (another server of this build does, or CASTELLAN_HOST=0)`);
  const close = () => {
    bound.release();
    bound.server.close();
  };
  if (hostProcess.exiting) return close();
  hostProcess.setDoor({ close });
  bound.serve((sock) => onConnection(sock, o));
  o.log(`host: later sessions of this build start in this process (door ${path})`);
}

type Reply = { result: Record<string, unknown> } | { error: { code: string; message: string } };

function onConnection(sock: net.Socket, o: DoorOptions): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let done = false;
  const timer = setTimeout(() => finish(undefined, { error: { code: 'timeout', message: `no complete request within ${REQUEST_MS} ms` } }), REQUEST_MS);
  const finish = (id: unknown, r: Reply) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    sock.removeAllListeners('data');
    if (!sock.destroyed) sock.end(JSON.stringify({ ...(id === undefined ? {} : { id }), ...r }) + '\n');
  };
  sock.on('error', () => undefined);
  let closed = false;
  sock.on('close', () => {
    closed = true;
    clearTimeout(timer);
  });
  sock.on('data', (d: Buffer) => {
    if (done) return;
    const nl = d.indexOf(10);
    const take = nl < 0 ? d : d.subarray(0, nl);
    bytes += take.length;
    if (bytes > MAX_REQUEST_BYTES) return finish(undefined, { error: { code: 'limit_exceeded', message: `request over ${MAX_REQUEST_BYTES} bytes` } });
    chunks.push(take);
    if (nl < 0) return;
    clearTimeout(timer);
    // A starter that gave up waiting (it starts a process of its own) is not answered by a session started anyway.
    void handle(Buffer.concat(chunks), o, () => closed).then(
      ([id, r]) => finish(id, r),
      (e) => finish(undefined, { error: { code: 'internal_error', message: (e as Error).message } }),
    );
  });
}

const refuse = (code: string, message: string): Reply => ({ error: { code, message } });

async function handle(line: Buffer, o: DoorOptions, gone: () => boolean): Promise<[unknown, Reply]> {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(line));
  } catch {
    return [undefined, refuse('parse_error', 'not a JSON line (UTF-8 text)')];
  }
  const req = request.safeParse(raw);
  if (!req.success) return [undefined, refuse('invalid_request', 'expected {id, method, params}')];
  const { id, method } = req.data;
  if (method === 'ping') return [id, { result: { host: true, pid: process.pid, build: buildId(), sessions: hostProcess.size } }];
  if (method !== 'host.start') return [id, refuse('method_not_found', `no method ${method.slice(0, 100)} here`)];
  const p = startParams.safeParse(req.data.params);
  if (!p.success) return [id, refuse('invalid_params', p.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ').slice(0, 500))];
  const s = p.data;
  if (s.build !== buildId()) return [id, refuse('other_build', 'this server is another castellan build')];
  if (hostProcess.exiting) return [id, refuse('exiting', 'this server is exiting')];
  if (hostProcess.size >= MAX_HOSTED) return [id, refuse('full', `this server holds ${MAX_HOSTED} sessions already`)];
  if (hostProcess.has(s.session)) return [id, refuse('running', `session ${s.session} runs here already`)];
  let paths: Paths;
  let theirs: Paths;
  try {
    paths = resolvePaths({ session: s.session, env: o.env });
    theirs = resolvePaths({ session: s.session, env: s.env });
  } catch (e) {
    return [id, refuse('invalid_params', (e as Error).message)];
  }
  if (theirs.home !== paths.home || theirs.stateDir !== paths.stateDir || paths.stateDir !== resolvePaths({ env: o.env }).stateDir) {
    return [id, refuse('other_home', 'the session has another home or state directory than this server')];
  }
  try {
    if (!statSync(s.cwd).isDirectory()) return [id, refuse('invalid_params', 'cwd is not a directory')];
  } catch {
    return [id, refuse('invalid_params', 'cwd does not exist')];
  }
  // The session's own environment, as a server of its own would get it from startDaemon (daemon.ts).
  const env = sessionServerEnv(s.env, paths);
  if (gone()) return [id, refuse('gone', 'the starter has gone')];
  const done = hostProcess.beginStart();
  try {
    await o.start({ paths, cwd: s.cwd, version: VERSION, env, cols: s.cols, rows: s.rows, command: s.command, restore: s.restore });
  } catch (e) {
    return [id, refuse('not_started', (e as Error).message.slice(0, 500))];
  } finally {
    done();
  }
  o.log(`host: started session ${paths.session} in this process (${hostProcess.size} now)`);
  return [id, { result: { started: true, pid: process.pid, session: paths.session } }];
}
