// Every step of the hook door has a deadline, and a tool call that misses one is denied in its agent's protocol (issue
// 28 item 4): a stopped server behind a full request FIFO (door.sh's write used to block for ever and ignore SIGTERM, and
// an agent whose hook times out runs the tool), SIGTERM while blocked there, a FIFO nobody reads, a reply that never
// comes, a server that dies mid-reply, and the Node bridge's own deadline for a server that accepts and never answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doorCommand } from '../../src/integrations/command-line.js';
import { runHook } from '../../src/integrations/hook-command.js';
import type { AgentName } from '../../src/integrations/types.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { runLine } from '../support/hook-line.js';
import { markingNode } from './support.js';

/** The agents these cases speak for (the door serves the others the same way; their protocols are tested in test/integrations). */
type DoorAgent = 'claude' | 'codex' | 'gemini' | 'pi';
const PRE: Record<DoorAgent, string> = { claude: 'PreToolUse', codex: 'PreToolUse', gemini: 'BeforeTool', pi: 'tool_call' };
/** Each agent's deny, as its own protocol says it (src/integrations/govern.ts answer). */
const DENY: Record<DoorAgent, RegExp> = {
  claude: /^\{"hookSpecificOutput":\{"hookEventName":"PreToolUse","permissionDecision":"deny"/,
  codex: /^\{"hookSpecificOutput":\{"hookEventName":"PreToolUse","permissionDecision":"deny"/,
  gemini: /^\{"decision":"deny"/,
  pi: /^\{"block":true/,
};
const DENY_SHELL = '[governance.permissions]\nshell = "deny"\n';

/** `rm` through each agent's shell tool, as its gating event delivers it. */
function rmCall(agent: DoorAgent, cwd: string, tool?: string): string {
  const input = tool ? { file_path: join(cwd, 'a.txt') } : { command: 'rm -rf important' };
  const name = tool ?? { claude: 'Bash', codex: 'Bash', gemini: 'run_shell_command', pi: 'bash' }[agent];
  if (agent === 'pi') return JSON.stringify({ type: 'tool_call', toolName: name, toolCallId: 'c1', input });
  return JSON.stringify({ session_id: `s-${agent}`, hook_event_name: PRE[agent], tool_name: name, tool_input: input, cwd });
}

/** Fills a FIFO (held read-write, so its reader needs not run) with ordinary request lines until a write would block. */
function fill(fifo: string): number {
  const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  let n = 0;
  try {
    const line = Buffer.from('v1 4000000 claude PreToolUse\n');
    for (;;) n += writeSync(fd, line);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  } finally {
    closeSync(fd);
  }
  return n;
}

/** door.sh's files for a requester pid: what it leaves behind when it did not clean up. */
const leftovers = (dir: string) => readdirSync(dir).filter((f) => /^[0-9]+\.(req|pay|out)$/.test(f) && !f.startsWith('4000000.'));

describe('the hook door with its server stopped (SIGSTOP, as Ctrl-Z on `server start --foreground`)', { concurrency: false }, () => {
  let env: TempEnv;
  let node: ReturnType<typeof markingNode>;
  let hookEnv: Record<string, string>;
  let pid: number;
  let stopped = false;
  const stop = () => {
    process.kill(pid, 'SIGSTOP');
    stopped = true;
  };
  const resume = () => {
    if (stopped) process.kill(pid, 'SIGCONT');
    stopped = false;
  };
  before(async () => {
    env = makeTempEnv();
    node = markingNode(env.root);
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), DENY_SHELL);
    assert.equal((await env.cli(['server', 'start'])).code, 0, env.logTail());
    await waitFor(() => existsSync(join(`${env.socket}.door`, 'pid')), { timeoutMs: 10_000, message: 'the door to open' });
    pid = (await env.serverPid())!;
    assert.ok(pid);
    hookEnv = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' };
  });
  after(async () => {
    resume();
    await env.cleanup();
  });
  const door = (agent: DoorAgent) => doorCommand([node.path, BIN], agent, PRE[agent]);

  test('a full request FIFO: Bash rm (Claude), run_shell_command (Gemini) and bash (pi) are denied in their protocols, in bounded time', async () => {
    const inFifo = join(`${env.socket}.door`, 'in');
    stop();
    try {
      // The 2,335 lines (65 KB): the pipe's whole buffer.
      const bytes = fill(inFifo);
      assert.ok(bytes >= 60_000, `filled ${bytes} bytes`);
      node.reset();
      const agents = ['claude', 'gemini', 'pi'] as const;
      const runs = await Promise.all(agents.map((a) => runLine(door(a), hookEnv, rmCall(a, env.home), { cwd: env.home, killAfterMs: 60_000 })));
      for (const [i, r] of runs.entries()) {
        const agent = agents[i]!;
        console.log(`# stopped server, full FIFO: ${agent} ${PRE[agent]} denied in ${Math.round(r.ms)} ms`);
        assert.equal(r.code, 0, `${agent}: ${r.stderr}`);
        assert.match(r.stdout, DENY[agent], agent);
        // door.sh's 3 s for the line and its reply, then the bridge's own deadlines (connect, reply, hook.decide):
        // ~5 s on a quiet box, ~8 s at load 20 on 2 cores; the installed hook's timeout is 120 s, and half of it is
        // the bound here (before, no bound at all: blocked for ever).
        assert.ok(r.ms >= 2900 && r.ms < 60_000, `${agent}: ${Math.round(r.ms)} ms`);
      }
      // Each went to the Node bridge once its door deadline passed, and left no file behind.
      assert.equal(node.marks(), 3);
      assert.deepEqual(leftovers(`${env.socket}.door`), []);
    } finally {
      resume();
    }
    // Resumed, the server drains the stale lines (each told to fall back, to nobody) and serves again.
    await waitFor(
      async () => {
        node.reset();
        const r = await runLine(door('claude'), hookEnv, rmCall('claude', env.home), { cwd: env.home });
        return (node.marks() === 0 && DENY.claude.test(r.stdout)) || undefined;
      },
      { timeoutMs: 20_000, message: 'the door to serve again' },
    );
  });

  test('SIGTERM ends a door.sh blocked on the full FIFO at once: exit 143, its files gone, nothing handed on', async () => {
    const dir = `${env.socket}.door`;
    // The server removes a served call's files just after its reply: the last test's, before it is stopped here.
    await waitFor(() => leftovers(dir).length === 0 || undefined, { timeoutMs: 5000, message: 'the door clean', observe: () => leftovers(dir) });
    stop();
    try {
      fill(join(dir, 'in'));
      node.reset();
      const p = spawn('/bin/sh', ['-c', door('claude')], { env: hookEnv, cwd: env.home, stdio: ['pipe', 'pipe', 'pipe'] });
      const killer = setTimeout(() => p.kill('SIGKILL'), 30_000);
      let stdout = '';
      p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      p.stderr.resume();
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => p.on('close', (code, signal) => resolve({ code, signal })));
      p.stdin.end(rmCall('claude', env.home));
      try {
        // `sh -c` execs door.sh in the same process; its reply FIFO is made just before the request line is written.
        await waitFor(() => existsSync(join(dir, `${p.pid}.out`)) || undefined, { timeoutMs: 10_000, message: 'door.sh at its write' });
        const t0 = performance.now();
        p.kill('SIGTERM');
        const r = await exited;
        const ms = performance.now() - t0;
        console.log(`# SIGTERM while blocked on the full FIFO: ended in ${Math.round(ms)} ms`);
        // Before the door's own 3 s deadline: the signal ended it, not the watchdog (which hands on to node).
        const seen = JSON.stringify({ ms: Math.round(ms), ...r, stdout, marks: node.marks(), left: leftovers(dir), pid: p.pid });
        assert.ok(ms < 2500, seen);
        assert.deepEqual(r, { code: 143, signal: null }, seen);
        assert.equal(stdout, '', seen);
        assert.equal(node.marks(), 0, seen);
        assert.deepEqual(leftovers(dir), [], seen);
      } finally {
        clearTimeout(killer);
        p.kill('SIGKILL');
      }
    } finally {
      resume();
    }
  });
});

describe('a door whose requests are never answered, or answered in part', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'cst-dl-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A door as a server publishes it (this test process named as its live server), no socket, shell denied by config. */
  function fakeDoor(name: string) {
    const home = join(root, name);
    mkdirSync(join(home, '.castellan'), { recursive: true });
    mkdirSync(join(home, 'run'));
    writeFileSync(join(home, '.castellan', 'config.toml'), DENY_SHELL);
    const socket = join(home, 'run', 'c.sock');
    const dir = `${socket}.door`;
    mkdirSync(dir, { mode: 0o700 });
    execFileSync('mkfifo', ['-m', '600', join(dir, 'in')]);
    writeFileSync(join(dir, 'pid'), `${process.pid}\n`);
    const node = markingNode(home);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', CASTELLAN_ENV: '1', CASTELLAN_SOCKET: socket, CASTELLAN_PANE_ID: 'w1:p1' };
    return { home, dir, node, env, line: (agent: DoorAgent) => doorCommand([node.path, BIN], agent, PRE[agent]) };
  }

  test('a request FIFO nobody reads: door.sh opens it without blocking, waits its 3 s, and the bridge denies', async () => {
    const d = fakeDoor('unread');
    for (const agent of ['claude', 'gemini'] as const) {
      d.node.reset();
      const r = await runLine(d.line(agent), d.env, rmCall(agent, d.home), { cwd: d.home });
      assert.match(r.stdout, DENY[agent], agent);
      assert.equal(d.node.marks(), 1);
      assert.ok(r.ms >= 2900 && r.ms < 60_000, `${agent}: ${Math.round(r.ms)} ms`);
    }
    assert.deepEqual(leftovers(d.dir), []);
  });

  /**
   * The server reads the request line, then writes `partial` into its reply FIFO and is gone. None of these is a whole
   * reply; the last would read as an allow (exit 0, nothing printed) were its cut-off last line taken.
   */
  for (const [what, partial] of [
    ['nothing', ''],
    ['the exit code only', '0\n'],
    ['two lines', '0\no\n'],
    ['all but the last newline (an allow, were it taken)', '0\no\ne'],
  ] as const)
    test(`a server that dies mid-reply (${what}): door.sh gives up at its deadline, and the bridge denies`, async () => {
      const d = fakeDoor(`mid-${partial.length}`);
      const inFd = openSync(join(d.dir, 'in'), constants.O_RDWR | constants.O_NONBLOCK);
      try {
        const run = runLine(d.line('pi'), d.env, rmCall('pi', d.home), { cwd: d.home });
        const line = await waitFor(
          () => {
            const b = Buffer.alloc(256);
            try {
              return b.toString('latin1', 0, readSync(inFd, b, 0, b.length, null)) || undefined;
            } catch {
              return undefined;
            }
          },
          { timeoutMs: 10_000, message: 'the request line' },
        );
        const m = /^v1 ([0-9]+) pi tool_call\n$/.exec(line);
        assert.ok(m, line);
        if (partial) {
          const out = openSync(join(d.dir, `${m[1]}.out`), constants.O_WRONLY | constants.O_NONBLOCK);
          writeSync(out, partial);
          closeSync(out);
        }
        const r = await run;
        assert.match(r.stdout, DENY.pi);
        assert.equal(d.node.marks(), 1, 'handed to the bridge');
        assert.ok(r.ms >= 2900 && r.ms < 60_000, `${Math.round(r.ms)} ms`);
        assert.deepEqual(leftovers(d.dir), []);
      } finally {
        closeSync(inFd);
      }
    });
});

describe('the Node bridge against a server that accepts and never answers', () => {
  let root: string;
  let server: net.Server;
  const conns: net.Socket[] = [];
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'cst-dlb-'));
    // What a stopped server's listen queue does: the connect succeeds, no byte ever comes back.
    server = net.createServer((c) => void conns.push(c.on('error', () => undefined)));
    await new Promise<void>((resolve) => server.listen(join(root, 'c.sock'), resolve));
  });
  after(async () => {
    for (const c of conns) c.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  for (const agent of ['claude', 'pi'] as const)
    test(`${agent}: a tool call not judged by the bridge's deadline is denied in its protocol (a Read the pipeline would allow)`, async () => {
      const env = { HOME: root, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: join(root, 'c.sock'), CASTELLAN_PANE_ID: 'w1:p1' };
      let stdout = '';
      const t0 = performance.now();
      const text = rmCall(agent, root, agent === 'pi' ? 'read' : 'Read');
      const code = await runHook({ paths: resolvePaths({ env }), env, cwd: root }, [agent, PRE[agent]], {
        input: { ok: true, text, bytes: text.length },
        out: (s, t) => void (s === 'stdout' && (stdout += t)),
        // hook.decide waits 1 s for this server: the deadline passes first.
        gateMs: 300,
      });
      const ms = performance.now() - t0;
      assert.equal(code, 0);
      assert.match(stdout, DENY[agent]);
      assert.match(stdout, /not judged within 300 ms; denied/);
      // The report's own deadline (800 ms) may still be awaited; nothing waits past it.
      assert.ok(ms < 3000, `${Math.round(ms)} ms`);
    });
});
