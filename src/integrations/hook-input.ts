// Reading a hook payload whole, within a size cap and a deadline, and saying why one that gates a tool call cannot be trusted.
// On the bridge's hot path: no zod; a synchronous read of the pipe when it holds the whole payload, else node:stream events.
import { valueDeeperThan } from '../api/json-guard.js';
import { readPipeNow } from './stdin-pipe.js';
import type { ByteSource } from './raw-pipe/index.js';
import { HARNESS_TABLES } from './tables.js';
import type { AgentName } from './types.js';

/**
 * The largest payload the bridge reads. Real ones are small (the agent-lab recordings top out near 3 KB), but a Write
 * carries the whole file: a model writes at most some 100k tokens (~0.5 MB, ~1 MB once JSON-escaped) in one call, so
 * 8 MiB leaves ample room, costs ~30 ms to parse, and bounds the bridge's memory. Above it a call is denied, never cut
 * and then judged on what fitted.
 */
export const HOOK_PAYLOAD_MAX_BYTES = 8 * 1024 * 1024;
/** How long a tool-gating event may take to deliver its payload (agents write it at once and close stdin). */
export const GATE_READ_MS = 10_000;
/** State-only events never make the agent wait longer than this for their own payload. */
export const STATE_READ_MS = 1000;
/** Real payloads are a few levels deep; deeper ones would overflow the stack of whatever serialises them later. */
export const PAYLOAD_MAX_DEPTH = 64;

export type HookInput = { ok: true; text: string; bytes: number } | { ok: false; why: string; bytes: number };

const MIB = 1024 * 1024;
const size = (n: number) => (n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`);

/** The read deadline: CASTELLAN_HOOK_READ_MS (tests; 1 ms to 10 min) for gating events, and never more than STATE_READ_MS for the others. */
export function readDeadline(env: NodeJS.ProcessEnv, gating: boolean): number {
  const v = Number(env.CASTELLAN_HOOK_READ_MS);
  const gate = Number.isInteger(v) && v > 0 && v <= 600_000 ? v : GATE_READ_MS;
  return gating ? gate : Math.min(gate, STATE_READ_MS);
}

/** A payload whose writer did not close stdin within the deadline (also what the hook door's sh side reports: CASTELLAN_HOOK_UNCLOSED). */
export const notClosed = (timeoutMs: number, bytes: number): HookInput => ({ ok: false, why: `stdin not closed within ${timeoutMs} ms; ${bytes} bytes read`, bytes });

const tooLarge = (max: number, bytes: number): HookInput => ({ ok: false, why: `larger than ${size(max)}; stopped after ${bytes} bytes`, bytes });

/**
 * Reads the hook's stdin to its end: at once when the pipe already holds all of it (stdin-pipe.ts), else through
 * process.stdin with the deadline. Fails (never throws) when it is larger than maxBytes, not closed in time, or breaks.
 */
export async function readStdin(o: { timeoutMs: number; maxBytes?: number }): Promise<HookInput> {
  const max = o.maxBytes ?? HOOK_PAYLOAD_MAX_BYTES;
  const head = readPipeNow(max);
  if (head && head.bytes > max) return tooLarge(max, head.bytes);
  if (head?.eof) return { ok: true, text: Buffer.concat(head.chunks, head.bytes).toString('utf8'), bytes: head.bytes };
  return readHookInput(head?.rest ?? process.stdin, { ...o, ...(head ? { head } : {}) });
}

/** Reads a stream to its end (after `head`, what was read of it already). Fails (never throws) when it is larger than maxBytes, not closed in time, or breaks. */
export function readHookInput(stream: ByteSource, o: { timeoutMs: number; maxBytes?: number; head?: { chunks: Buffer[]; bytes: number } }): Promise<HookInput> {
  const max = o.maxBytes ?? HOOK_PAYLOAD_MAX_BYTES;
  if (stream.isTTY) return Promise.resolve({ ok: true, text: '', bytes: 0 });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [...(o.head?.chunks ?? [])];
    let bytes = o.head?.bytes ?? 0;
    let done = false;
    const finish = (r: HookInput) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      // The writer may still be going (or never stop): stop reading so the process can exit.
      stream.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(notClosed(o.timeoutMs, bytes)), o.timeoutMs);
    stream.on('data', (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      bytes += b.length;
      if (bytes > max) {
        chunks.length = 0;
        finish(tooLarge(max, bytes));
        return;
      }
      chunks.push(b);
    });
    stream.once('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8'), bytes }));
    stream.once('error', (e) => finish({ ok: false, why: `stdin failed: ${e.message}`, bytes }));
  });
}

/** A payload given as the last argument (Codex notify): held to the same cap. */
export function argvInput(json: string, maxBytes = HOOK_PAYLOAD_MAX_BYTES): HookInput {
  const bytes = Buffer.byteLength(json);
  return bytes > maxBytes ? { ok: false, why: `larger than ${size(maxBytes)}; ${bytes} bytes`, bytes } : { ok: true, text: json, bytes };
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A tool-gating payload the bridge can judge, or why it cannot: not JSON, not an object, too deep, or without the
 * tool's name and input (judging a call on fields it does not have would wave it through as tool "unknown").
 */
export function gatePayload(agent: AgentName, text: string): { payload: Record<string, unknown> } | { why: string } {
  if (!text.trim()) return { why: 'empty' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { why: `not JSON: ${(e as Error).message.slice(0, 120)}` };
  }
  if (!isObj(v)) return { why: `not a JSON object but ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}` };
  if (valueDeeperThan(v, PAYLOAD_MAX_DEPTH)) return { why: `nested deeper than ${PAYLOAD_MAX_DEPTH} levels` };
  // Where the agent puts the tool's name and its input (its table; pi: castellan's extension forwards {toolName, input}).
  const f = HARNESS_TABLES[agent].tools;
  const name = v[f.name];
  if (typeof name !== 'string' || !name.trim() || name.length > 200) return { why: `no tool name (${f.name})` };
  // No agent names a tool with control characters or surrounding blanks: such a name is forged to slip past a policy row.
  if (/[\u0000-\u001f\u007f]/.test(name) || name !== name.trim()) return { why: `a forged tool name (${f.name}: control characters or blanks)` };
  const input = f.input.map((k) => v[k]).find((x) => x !== undefined);
  if (!isObj(input)) return { why: `no tool input object (${f.input.join(' or ')})` };
  return { payload: v };
}
