// One door request: its files checked and read, the bridge's own run (hook-command.ts runHook) in server-only mode,
// and its answer (or "fallback") written back. Loaded on the door's first request only.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { bridgeLog } from '../integrations/bridge.js';
import { NeedsBridge } from '../integrations/govern.js';
import { runHook } from '../integrations/hook-command.js';
import { resolvePaths } from '../platform/paths.js';
import { readPrivate, writeReply } from './files.js';
import { REPLY_BY_MS, replyFallback, START_BY_MS } from './reply.js';
import type { DoorRequest } from './request.js';
import { parseEnvRecords } from './vars.js';

/** Served in-process up to this size: JSON.parse of the bridge's 8 MiB would hold the event loop ~30 ms. */
export const DOOR_PAYLOAD_MAX = 256 * 1024;
/** The variables' records are a few hundred bytes. */
const ENV_MAX = 64 * 1024;
/**
 * hook.decide's deadline, from the request's time: door.sh waits 3 s for the reply after writing the request line
 * (which comes after the file), so a server that decides at all decides well before the requester gives up.
 */
export const DECIDE_BY_MS = 1500;

export interface ServeOptions {
  dir: string;
  socket: string;
  log(msg: string): void;
}

/** Why a request goes to the bridge (the requester's bridge log says it when its CASTELLAN_HOOK_DEBUG asks). */
export type ServeResult = { answered: true; code: number } | { answered: false; why: string };

export async function serveRequest(o: ServeOptions, req: DoorRequest, arrival = Date.now()): Promise<ServeResult> {
  const base = join(o.dir, String(req.pid));
  const out = `${base}.out`;
  let env: Record<string, string> | undefined;
  const fallback = async (why: string): Promise<ServeResult> => {
    await replyFallback(o.dir, req.pid, arrival + REPLY_BY_MS);
    // With CASTELLAN_HOOK_DEBUG the bridge log tells why the call it then logs went the slow way.
    if (env?.CASTELLAN_HOOK_DEBUG && env.CASTELLAN_SOCKET === o.socket) debugLog(env, `${req.agent} ${req.event} pane=${env.CASTELLAN_PANE_ID ?? '-'} handed by the door to the Node bridge: ${why}`);
    return { answered: false, why };
  };
  const vars = readPrivate(`${base}.req`, ENV_MAX);
  if (!vars.ok) return fallback(`request file ${vars.why}`);
  const t0 = Math.min(arrival, vars.mtimeMs);
  if (Date.now() > t0 + START_BY_MS) return fallback('too late to start');
  const parsed = parseEnvRecords(vars.buf);
  if ('why' in parsed) return fallback(parsed.why);
  env = parsed.env;
  // The requester found this door from its CASTELLAN_SOCKET: a request naming another server is not ours to answer.
  if (env.CASTELLAN_SOCKET !== o.socket) return fallback('another socket');
  if (!env.PWD?.startsWith('/') || env.HOME === undefined) return fallback('no PWD or HOME');
  const pay = readPrivate(`${base}.pay`, DOOR_PAYLOAD_MAX);
  if (!pay.ok) return fallback(`payload ${pay.why}`);
  let paths;
  try {
    paths = resolvePaths({ env });
  } catch (e) {
    return fallback((e as Error).message);
  }
  let stdout = '';
  let stderr = '';
  let code: number;
  try {
    code = await runHook({ paths, env, cwd: env.PWD }, [req.agent, req.event], {
      input: { ok: true, text: pay.buf.toString('utf8'), bytes: pay.buf.length },
      out: (s, t) => (s === 'stdout' ? (stdout += t) : (stderr += t)),
      // The state report's order among the pane's events: when the server took the request (the bridge: its start).
      seq: arrival * 1000,
      serverOnly: true,
      deadlineAt: t0 + DECIDE_BY_MS,
      pid: req.pid,
    });
  } catch (e) {
    return fallback(e instanceof NeedsBridge ? e.message : `error: ${(e as Error).message}`);
  }
  // One line each (the answers are JSON.stringify output): what door.sh prints with its newline again.
  const one = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t);
  const so = one(stdout);
  const se = one(stderr);
  if (so.includes('\n') || se.includes('\n') || !Number.isInteger(code) || code < 0 || code > 255) {
    o.log(`hook door: an answer door.sh cannot carry (${req.agent} ${req.event}); given to the bridge`);
    return fallback('multi-line answer');
  }
  const ok = await writeReply(out, Buffer.from(`${code}\no${so}\ne${se}\n`), arrival + REPLY_BY_MS);
  // door.sh removes its files only when it hands the call on (the bridge reads the payload file): an answered one's go here.
  if (ok) await Promise.all([`${base}.req`, `${base}.pay`, out].map((f) => unlink(f).catch(() => undefined)));
  return ok ? { answered: true, code } : { answered: false, why: 'requester gone' };
}

/** The requester's bridge log (its state dir, as the bridge would write it); nothing when its variables name none. */
function debugLog(env: Record<string, string>, line: string): void {
  try {
    bridgeLog(resolvePaths({ env }).stateDir, line);
  } catch {
    /* no HOME: no log */
  }
}
