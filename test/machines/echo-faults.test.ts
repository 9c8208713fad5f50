// Issue 31's faults, seen from the keyboard: while another machine's ssh is killed, its server is stopped (SIGSTOP) or
// restarted, or a machine never answers, keystroke echo in a local pane stays as fast as in a client with no machines
// at all (p99 within 1.5x). The two clients are measured interleaved, key for key, so both see the same load.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { loadBound, loadNote } from '../support/load.js';
import { childrenOf, sshdSkipReason } from '../support/sshd.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { startAttached, type TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';
import { interleavedEcho, p99 } from './echo-probe.js';
import { type Machines, startMachines } from './fixture.js';

const skip = sshdSkipReason();
const KEYS = 300;

const sshChildren = (pid: number): number[] => childrenOf(pid).filter((c) => {
  try {
    return readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0')[0].endsWith('ssh');
  } catch {
    return false;
  }
});

function background(env: TempEnv, args: string[]): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: env.env, cwd: env.home, stdio: 'ignore' });
  env.onCleanup(() => child.kill('SIGKILL'));
  return child;
}

/** An attached client whose focused pane runs cat (the tty echoes each key). */
async function catClient(env: TempEnv): Promise<TermHarness> {
  const h = await startAttached(env, { timeoutMs: 30_000 });
  env.onCleanup(() => h.kill());
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'exec cat', enter: true });
  await waitFor(async () => (await env.call<{ panes: Array<{ command?: string[]; title?: string }> }>('pane.list')).panes.some((p) => JSON.stringify(p).includes('cat')), { timeoutMs: 15_000, message: 'cat to run in the pane' });
  return h;
}

/**
 * A world with machine `box` (and whatever `setup` adds), a client attached there and one in a world with no machines;
 * the chooser opened and closed in the first (its machines read in the background), then `fault` while keys are typed.
 */
async function echoDuring(t: { after(fn: () => unknown): void }, name: string, fault: (m: Machines, probe: TermHarness) => Promise<unknown>, setup?: (m: Machines) => Promise<unknown>): Promise<void> {
  const m = await startMachines(t, { localEnv: { CASTELLAN_MACHINE_PROBE_MS: '1000' } });
  const bare = makeTempEnv();
  t.after(() => bare.cleanup());
  assert.equal((await m.remote.cli(['server', 'start'])).code, 0);
  await m.local.cli(['machine', 'add', 'box', 'castellan-test']);
  await setup?.(m);
  const base = await catClient(bare);
  const probe = await catClient(m.local);
  // A script waiting on box all along, and the chooser's look at every machine (closed at once: it goes on in the background).
  background(m.local, ['herd', 'wait', '--machine', 'box', '--pane', 'w1:p1', '--status', 'blocked', '--timeout-ms', '120000']);
  probe.prefix('s');
  await probe.waitForText(/default@box/, { timeoutMs: 15_000 });
  probe.write('q');
  await probe.waitForNoText(/default@box/, { timeoutMs: 10_000 });
  // In the middle of the keys, the chooser opens and closes again (its look at every machine goes on in the background).
  const r = await interleavedEcho(base, probe, KEYS, () => fault(m, probe), '\x02sq');
  const lost = r.probe.lost ?? 0;
  const pb = p99(r.base);
  const pp = p99(r.probe);
  // 1.5x is the bar; on a loaded machine (past twice the cores) p99 of a few ms is mostly scheduling, so the looser bound
  // there still catches what this exists to catch: a client that waits on a host (a stall is hundreds of ms to seconds).
  const bound = Math.max(loadBound(1.5, 2.5) * pb, pb + loadBound(4, 25));
  const note = `${name}: ${r.probe.length} keys each, echo p99 ${pp.toFixed(1)} ms with the fault vs ${pb.toFixed(1)} ms with no machines (bound ${bound.toFixed(1)}; ${loadNote()})`;
  console.log(`# ${note}`);
  assert.equal(lost, 0, `${lost} keys never echoed during the fault; ${note}`);
  assert.equal(r.base.lost ?? 0, 0, 'every key echoed in the client with no machines');
  assert.ok(pp <= bound, note);
}

test('echo stays fast while the ssh processes to a machine are killed', { skip, timeout: 240_000 }, async (t) => {
  await echoDuring(t, 'ssh killed', async (m, probe) => {
    // Every ssh this side runs to box (the waiting script's, the client's own if its look is still on the way), killed.
    void probe;
    const killed = allSsh(m);
    for (const s of killed) process.kill(s, 'SIGKILL');
  });
});

test('echo stays fast while the remote server is stopped (SIGSTOP)', { skip, timeout: 240_000 }, async (t) => {
  let stopped: number | undefined;
  t.after(() => stopped && process.kill(stopped, 'SIGCONT'));
  await echoDuring(t, 'remote SIGSTOP', async (m, probe) => {
    stopped = (await m.remote.serverPid())!;
    process.kill(stopped, 'SIGSTOP');
  });
});

test('echo stays fast while the remote server is restarted', { skip, timeout: 240_000 }, async (t) => {
  await echoDuring(t, 'remote restarted', async (m) => {
    assert.equal((await m.remote.cli(['server', 'stop'])).code, 0);
    assert.equal((await m.remote.cli(['server', 'start'])).code, 0);
  });
});

test('echo stays fast while a machine never answers (a port that accepts and never speaks)', { skip, timeout: 240_000 }, async (t) => {
  const mute = net.createServer((s) => s.on('error', () => undefined));
  const held: net.Socket[] = [];
  mute.on('connection', (s) => held.push(s));
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of held) s.destroy();
    mute.close();
  });
  await echoDuring(t, 'machine never answers', async (m, probe) => {
    background(m.local, ['herd', 'list', '--all-machines']);
  }, async (m) => {
    m.sshd.addHost('castellan-mute', (mute.address() as net.AddressInfo).port);
    await m.local.cli(['machine', 'add', 'mute', 'castellan-mute']);
  });
});

/** Every ssh client started from the local world (any depth under this test's processes). */
function allSsh(m: Machines): number[] {
  const out: number[] = [];
  const walk = (pid: number, depth: number) => {
    if (depth > 4) return;
    for (const c of childrenOf(pid)) {
      if (sshChildren(pid).includes(c)) out.push(c);
      walk(c, depth + 1);
    }
  };
  walk(process.pid, 0);
  void m;
  return out;
}
