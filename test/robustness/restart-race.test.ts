// Restart right after a crash: a listener whose process is still exiting (kill -9 of a big server) is no server; a start takes the path once it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindSocket, probePath, probeSocket } from '../../src/server/socket-bind.js';
import { pidAlive, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A listener that never reads its connections and exits `ms` after it is up: what a SIGKILLed server is while the
 * kernel tears down its memory (its socket still takes connections into the backlog, then resets them).
 */
async function dyingListener(path: string, ms: number): Promise<number> {
  const src = `const s = require('net').createServer(() => {}).listen(${JSON.stringify(path)}, () => { console.log('up'); const end = Date.now() + ${ms}; while (Date.now() < end) {} process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`the listener exited early (${c})`)));
  });
  return child.pid!;
}

test('a listener that connects but closes unanswered is probed until it refuses: dead, not live', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-race-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 's.sock');
  const pid = await dyingListener(path, 400);
  t.after(() => {
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  // Within the probe's second the listener is gone: a connect-only probe said "live" here.
  assert.equal(await probePath(path, 5000), 'dead');
  assert.equal(await probeSocket(path), false);
});

test('a start right after the old server began dying takes the socket (no "already running")', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-race-'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 's.sock');
  const pid = await dyingListener(path, 400);
  t.after(() => {
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const bound = await bindSocket(path);
  t.after(() => {
    bound.release();
    bound.server.close();
  });
  bound.publish();
  bound.serve((sock) => sock.end('{"id":"castellan-probe","result":{"pong":true}}\n'));
  assert.equal(await probePath(path), 'live');
});

test('kill -9 of a server with big histories, restart at once: it starts, restores, and answers a new connection', { timeout: 120_000 }, async (t) => {
  const e = tempEnvFor(t);
  const start = await e.cli(['server', 'start', '--cols', '200', '--rows', '50'], { timeoutMs: 20_000 });
  assert.equal(start.code, 0, start.stderr);
  const panes = ['w1:p1'];
  for (const dir of ['right', 'down', 'down']) {
    const r = await e.call<{ pane_id: string }>('pane.split', { pane_id: panes[panes.length - 1], direction: dir });
    panes.push(r.pane_id);
  }
  // Big histories: a SIGKILLed server with them takes a while to go (its memory is unmapped before its socket closes).
  for (const p of panes) await e.call('pane.send_text', { pane_id: p, text: 'seq -f "line %g of a history long enough to take a while to unmap" 1 10000; echo FILLED\r' });
  for (const p of panes) {
    await waitFor(async () => (await e.call<{ lines: string[] }>('pane.read', { pane_id: p, lines: 3 })).lines.some((l) => l.startsWith('FILLED')), { timeoutMs: 30_000, message: `${p} filled` });
  }
  const { readSnapshot } = await import('../../src/restore/store.js');
  await waitFor(() => {
    const r = readSnapshot({ stateDir: e.stateDir, session: 'default' });
    return r.kind === 'ok' && r.snapshot.windows.flatMap((w) => w.panes).filter((p) => (p.historyLines ?? 0) >= 10_000).length === panes.length;
  }, { timeoutMs: 30_000, message: 'the snapshot holds every history' });
  const pid = (await e.serverPid())!;
  process.kill(pid, 'SIGKILL');
  // What `castellan` (attach) asks before deciding to start a server: the dying socket is not a server.
  assert.equal(await probeSocket(e.socket, 5000), false, 'the killed server\'s socket still counted as a server');
  // At once, as a user pressing up-arrow + enter would: the old process may still be tearing down.
  const again = await e.cli(['server', 'start'], { timeoutMs: 30_000 });
  assert.equal(again.code, 0, `${again.stdout}${again.stderr}\n${e.logTail()}`);
  assert.doesNotMatch(again.stdout, /already running/, `${again.stdout}\n${e.logTail()}`);
  await waitFor(() => !pidAlive(pid), { timeoutMs: 10_000, message: 'the old server gone' });
  const newPid = await e.serverPid();
  assert.ok(newPid && newPid !== pid, `a new server answers (old ${pid}, now ${newPid})`);
  for (const p of panes) {
    await waitFor(async () => (await e.call<{ lines: string[] }>('pane.read', { pane_id: p, lines: 60 })).lines.some((l) => l.includes('restored by castellan')), { timeoutMs: 30_000, message: `${p} restored` });
  }
  const text = (await e.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', lines: 80 })).lines.join('\n');
  assert.match(text, /line 10000 of a history/);
});
