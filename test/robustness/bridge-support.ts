// Runs the real `castellan hook` with hostile stdin (whole, trickled, never closed) and reads back each agent's answer.
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { closeSync, createWriteStream, mkdtempSync, open, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { join } from 'node:path';
import { BIN } from '../support/temp-env.js';

export type Feed =
  /** Written at once, then stdin is closed. */
  | { kind: 'whole'; data: Buffer | string }
  /** Written in `chunks` pieces `everyMs` apart; closed after the last one (if the bridge is still there). */
  | { kind: 'trickle'; data: string; chunks: number; everyMs: number }
  /** Written, and stdin is never closed (until the bridge has exited). */
  | { kind: 'open'; data: string };

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Killed by the harness's own limit: the bridge did not exit by itself. */
  hung: boolean;
}

/** At most `n` bridge processes at once: the box is shared, and the timing assertions must hold under load. */
export function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: Array<() => void> = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

/**
 * How the bridge's stdin is made: `socket` is what a Node-based agent gives its hooks (libuv's stdio "pipe" is a
 * socketpair); `fifo` is a real pipe, as a shell pipeline or a Rust agent gives (the bridge reads those differently).
 */
export type StdinKind = 'socket' | 'fifo';

/** The write side of a named pipe and the blocking read side for the child (both opens wait for the other). */
async function fifoPair(): Promise<{ readFd: number; writeFd: number; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'cst-fifo-'));
  const path = join(dir, 'stdin');
  execFileSync('mkfifo', [path]);
  const [readFd, writeFd] = await Promise.all([openAsync(path, 'r'), openAsync(path, 'w')]);
  return { readFd, writeFd, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const openAsync = (path: string, flags: string) => new Promise<number>((res, rej) => open(path, flags, (e, fd) => (e ? rej(e) : res(fd))));

export async function runHook(o: { agent: string; event: string; feed: Feed; env: Record<string, string>; cwd: string; killAfterMs?: number; stdin?: StdinKind; bin?: string }): Promise<HookRun> {
  const fifo = o.stdin === 'fifo' ? await fifoPair() : undefined;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [o.bin ?? BIN, 'hook', o.agent, o.event], { env: o.env, cwd: o.cwd, stdio: [fifo ? fifo.readFd : 'pipe', 'pipe', 'pipe'] });
    if (fifo) closeSync(fifo.readFd);
    // The writer: the child's stdin socket, or our end of the FIFO (an EPIPE once the bridge stopped reading is its right).
    const sink: Writable = fifo ? createWriteStream('', { fd: fifo.writeFd }) : child.stdin!;
    let stdout = '';
    let stderr = '';
    let hung = false;
    let exited = false;
    let ticker: NodeJS.Timeout | undefined;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // The bridge may stop reading (over the cap, past the deadline) while we still write: that is its right.
    sink.on('error', () => undefined);
    const killer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, o.killAfterMs ?? 20_000);
    const f = o.feed;
    if (f.kind === 'whole') sink.end(f.data);
    else if (f.kind === 'open') sink.write(f.data);
    else {
      const size = Math.ceil(f.data.length / f.chunks);
      let i = 0;
      const next = () => {
        if (exited) return;
        sink.write(f.data.slice(i * size, (i + 1) * size));
        if (++i >= f.chunks) sink.end();
        else ticker = setTimeout(next, f.everyMs);
      };
      next();
    }
    child.on('error', reject);
    child.on('close', (code) => {
      exited = true;
      clearTimeout(killer);
      clearTimeout(ticker);
      sink.destroy();
      fifo?.cleanup();
      resolve({ code, stdout, stderr, ms: performance.now() - t0, hung });
    });
  });
}

/** A tool-gating answer in the agent's own protocol, as { decision, reason }; undefined when the bridge printed nothing. */
export function gateAnswer(agent: string, stdout: string): { decision: string; reason: string } | undefined {
  if (!stdout.trim()) return undefined;
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`more than one answer line: ${stdout}`);
  const a = JSON.parse(lines[0]) as Record<string, any>;
  switch (agent) {
    case 'claude':
    case 'codex':
      if (a.hookSpecificOutput?.hookEventName !== 'PreToolUse') throw new Error(`not a PreToolUse answer: ${stdout}`);
      return { decision: a.hookSpecificOutput.permissionDecision, reason: a.hookSpecificOutput.permissionDecisionReason };
    case 'gemini':
      if (Object.keys(a).sort().join() !== 'decision,reason') throw new Error(`not a Gemini answer: ${stdout}`);
      return { decision: a.decision, reason: a.reason };
    case 'pi':
      if (Object.keys(a).sort().join() !== 'block,reason') throw new Error(`not a pi answer: ${stdout}`);
      return { decision: a.block === true ? 'deny' : 'allow', reason: a.reason };
  }
  throw new Error(`unknown agent ${agent}`);
}

/** The audit log's records (one JSON per line; none when there is no log yet). */
export function auditRecords(stateDir: string): Array<Record<string, unknown>> {
  let text = '';
  try {
    text = readFileSync(join(stateDir, 'audit.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The same tool call, a shell command, as each agent's gating event delivers it. */
export const GATE: Record<string, { event: string; call: (cwd: string, command?: string) => Record<string, unknown> }> = {
  claude: { event: 'PreToolUse', call: (cwd, command = 'touch x') => ({ session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'x' }, tool_use_id: 't1', cwd }) },
  codex: { event: 'PreToolUse', call: (cwd, command = 'touch x') => ({ session_id: 's2', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't2', cwd }) },
  gemini: { event: 'BeforeTool', call: (cwd, command = 'touch x') => ({ session_id: 's3', hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command, description: 'x' }, cwd }) },
  pi: { event: 'tool_call', call: (_cwd, command = 'touch x') => ({ hook_event_name: 'tool_call', type: 'tool_call', toolName: 'bash', toolCallId: 'c1', input: { command } }) },
};

/** A castellan impostor on a Unix socket: `answer` gets every request line and may write to the socket (or not). */
export async function fakeLineServer(path: string, answer: (line: string, sock: net.Socket) => void): Promise<{ close(): Promise<void> }> {
  const socks = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    socks.add(s);
    s.on('error', () => undefined);
    let buf = '';
    s.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        answer(line, s);
      }
    });
  });
  await new Promise<void>((r) => srv.listen(path, r));
  return {
    close: () =>
      new Promise<void>((r) => {
        for (const s of socks) s.destroy();
        srv.close(() => r());
      }),
  };
}

/** A fake server that decides every tool call: deny when its argv mentions "forbidden", else allow; it answers every report. */
export function fakeDecidingServer(path: string): Promise<{ close(): Promise<void> }> {
  return fakeLineServer(path, (line, s) => {
    const m = JSON.parse(line) as { id: string; method: string; params: { argv?: string[] } };
    const result =
      m.method === 'hook.decide'
        ? { decided: true, decision: m.params.argv?.join(' ').includes('forbidden') ? 'deny' : 'allow', source: 'policy', reason: 'the fake says no' }
        : { pane_id: 'w1:p1', state: 'working' };
    s.write(`${JSON.stringify({ id: m.id, result })}\n`);
  });
}
