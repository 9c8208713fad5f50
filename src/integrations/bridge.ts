// The hook bridge's hot path: payload → table → one pane.report_agent over a raw socket, with short deadlines and no output.
// Deliberately free of zod, the API method table and the UI: it runs, synchronously blocking the agent, on every hook event.
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { RpcError } from '../platform/rpc-error.js';
import { BridgeLink } from './bridge-link.js';

/** For the bridge log: the server's error code first, then its message. */
const why = (e: unknown): string => (e instanceof RpcError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e));
import { join } from 'node:path';
import { getField, isSkip, planReport, sessionIdOf } from './resolve.js';
import { HARNESS_TABLES, isAgentName } from './tables.js';
import { PANE_ID } from '../platform/pane-id.js';

export const CONNECT_TIMEOUT_MS = 300;
export const REPLY_TIMEOUT_MS = 800;
const LOG_MAX_BYTES = 1024 * 1024;

export interface BridgeOptions {
  agent: string;
  event: string;
  /** Parsed payload (undefined when none or not JSON: rows without cases still map). */
  payload: unknown;
  env: NodeJS.ProcessEnv;
  socket: string;
  stateDir: string;
  /** Monotonic event time in microseconds: the server drops a report older than the last one it took. */
  seq: number;
  connectTimeoutMs?: number;
  replyTimeoutMs?: number;
  /** The hook call's one connection, shared with hook.decide (used when it is to `socket`). */
  link?: BridgeLink;
}

export interface BridgeResult {
  action: 'outside' | 'skipped' | 'reported' | 'failed';
  reason?: string;
  state?: string;
  /** The server's reply to pane.report_agent. */
  reply?: Record<string, unknown>;
}

/**
 * Microseconds since the epoch at which this process started: the closest stand-in for "when the agent fired the event".
 * From the clock and process.uptime(), not performance.timeOrigin: the `performance` global loads perf_hooks (~1.3 ms
 * of every hook call). Date.now() is whole milliseconds, so this is within 1 ms of timeOrigin, below the spread of
 * process starts themselves (exec and Node's own start vary by several ms); a later agent event is a later process.
 */
export function eventSeq(): number {
  return Math.round((Date.now() - process.uptime() * 1000) * 1000);
}

export function parsePayload(text: string | undefined): unknown {
  if (!text || !text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Appends to the bridge log in the state dir (failures always; every event with CASTELLAN_HOOK_DEBUG=1). Never throws. */
export function bridgeLog(stateDir: string, line: string): void {
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const file = join(stateDir, 'hook-bridge.log');
    try {
      if (statSync(file).size > LOG_MAX_BYTES) renameSync(file, file + '.1');
    } catch {
      /* no log yet */
    }
    appendFileSync(file, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
  } catch {
    /* logging must never break the agent */
  }
}

// Codex fires `notify` for its hidden title thread too; the main thread's id is remembered per pane from the hook events.
function threadFile(stateDir: string, socket: string, pane: string, agent: string): string {
  return join(stateDir, 'hook-bridge', `${`${socket}|${pane}`.replace(/[^A-Za-z0-9._-]/g, '_')}.${agent}-thread`);
}

function rememberThread(file: string, id: string): void {
  try {
    if (readFileSync(file, 'utf8') === id) return;
  } catch {
    /* first time */
  }
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, id, { mode: 0o600 });
  } catch {
    /* best effort */
  }
}

function knownThread(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8') || undefined;
  } catch {
    return undefined;
  }
}

/** Maps one hook event and reports it to the pane's server. Never throws; the caller exits 0 whatever happens. */
export async function runBridge(o: BridgeOptions): Promise<BridgeResult> {
  const debug = !!o.env.CASTELLAN_HOOK_DEBUG;
  const done = (r: BridgeResult): BridgeResult => {
    if (r.action === 'failed' || debug) bridgeLog(o.stateDir, `${o.agent} ${o.event} pane=${o.env.CASTELLAN_PANE_ID ?? '-'} ${r.action}${r.state ? ` ${r.state}` : ''}${r.reason ? `: ${r.reason}` : ''}`);
    return r;
  };
  if (!o.env.CASTELLAN_ENV) return { action: 'outside' };
  const pane = o.env.CASTELLAN_PANE_ID ?? '';
  if (!PANE_ID.test(pane)) return done({ action: 'failed', reason: `CASTELLAN_PANE_ID ${JSON.stringify(pane)} is not a pane id` });
  if (!isAgentName(o.agent)) return done({ action: 'failed', reason: `unknown agent ${JSON.stringify(o.agent)}` });
  const table = HARNESS_TABLES[o.agent];
  const r = planReport(table, o.event, o.payload);
  const row = table.rows.find((x) => x.event === o.event);

  // Codex main-thread bookkeeping, before deciding to skip (SessionStart reports nothing but names the thread).
  const threads = table.rows.some((x) => x.rememberThread);
  const tfile = threads ? threadFile(o.stateDir, o.socket, pane, o.agent) : '';
  if (threads && row?.rememberThread) {
    const id = sessionIdOf(o.payload, undefined);
    if (id) rememberThread(tfile, id);
  }
  if (threads && row?.stage === 'SessionEnd') rmSync(tfile, { force: true });
  if (isSkip(r)) return done({ action: 'skipped', reason: r.skip });
  if (threads && row?.mainThreadField) {
    const main = knownThread(tfile);
    const thread = getField(o.payload, row.mainThreadField);
    if (main && typeof thread === 'string' && thread !== main) return done({ action: 'skipped', reason: `other thread ${thread}` });
  }

  const connectMs = o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const replyMs = o.replyTimeoutMs ?? REPLY_TIMEOUT_MS;
  // The hook call's shared connection (hook.decide goes on it too), or one of its own.
  const link = o.link?.socket === o.socket ? o.link : new BridgeLink(o.socket);
  try {
    return await link.use(connectMs, async (api) => {
      if (r.unless) {
        const info = await api.request<Record<string, unknown>>('pane.get', { pane_id: pane }, replyMs);
        const cur = (info.agent as { state?: string } | undefined)?.state;
        if (cur && (r.unless as readonly string[]).includes(cur)) return done({ action: 'skipped', state: r.report.state, reason: `pane is ${cur}` });
      }
      const reply = await api.request<Record<string, unknown>>('pane.report_agent', { pane_id: pane, ...r.report, seq: o.seq }, replyMs);
      if (r.release && !reply.ignored) await api.request('pane.reset_agent', { pane_id: pane }, replyMs);
      return done({ action: 'reported', state: r.report.state, reply, ...(reply.ignored ? { reason: String(reply.ignored) } : {}) });
    });
  } catch (e) {
    return done({ action: 'failed', state: r.report.state, reason: why(e) });
  }
}
