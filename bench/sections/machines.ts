// 11. Machines over loopback ssh (a private sshd, test/support/sshd.ts): what reaching another host costs beside
// the same thing on this one. herd list as a script runs it (a fresh ssh each call, with and without a ControlMaster),
// a ping over an open bridge, and a remote agent's report reaching a subscriber on this side.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMachine } from '../../src/machines/index.js';
import { RpcClient } from '../../src/platform/rpc-client.js';
import { sshdSkipReason, startSshd } from '../../test/support/sshd.js';
import { BIN, makeTempEnv } from '../../test/support/temp-env.js';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TermClient } from '../lib/term-client.js';
import { log, median, now, quantile, round, sleep } from '../lib/util.js';

/** Keystroke echo in a client in a pty (`castellan attach [--machine box]`): each key a fresh CJK ideograph, echoed by `cat` in the focused pane. */
async function echoThrough(args: string[], env: NodeJS.ProcessEnv, cwd: string, n: number): Promise<number[]> {
  const c = new TermClient(process.execPath, [BIN, ...args], { cols: 120, rows: 40, env, cwd });
  try {
    await c.settle(500, 30_000);
    let code = 0x5000;
    const lat: number[] = [];
    for (let k = 0; k < n; k++) {
      if (k % 30 === 29) {
        c.write('\r');
        await sleep(100);
      }
      const ch = String.fromCodePoint(code++);
      const seen = c.waitFor(ch, 3000);
      const ts = now();
      c.write(ch);
      const te = await seen;
      if (Number.isFinite(te)) lat.push(te - ts);
      await sleep(15 + (k % 5) * 5);
    }
    return lat;
  } finally {
    await c.close();
  }
}

/**
 * A pane's agent turns blocked on its server (a hook's report on that server's own socket), and the client in a pty
 * draws it: the time from the report until the report's message is on the client's screen (beside the badge on the
 * pane's border). Every other round sets it idle again, off the clock.
 */
async function badgeThrough(args: string[], env: NodeJS.ProcessEnv, cwd: string, report: (params: Record<string, unknown>) => Promise<unknown>, n: number): Promise<number[]> {
  const c = new TermClient(process.execPath, [BIN, ...args], { cols: 120, rows: 40, env, cwd });
  try {
    await c.settle(500, 30_000);
    const lat: number[] = [];
    for (let k = 0; k < n; k++) {
      const message = `may I ${k} ${String.fromCodePoint(0x6000 + k)}`;
      const seen = c.waitFor(message, 3000);
      const ts = now();
      await report({ pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message });
      const te = await seen;
      if (Number.isFinite(te)) lat.push(te - ts);
      await report({ pane_id: 'w1:p1', agent: 'claude', state: 'idle', source: 'hook' });
      await sleep(150);
    }
    return lat;
  } finally {
    await c.close();
  }
}

/**
 * The same seen from this machine: a local client with the chooser open (`prefix s`), a remote agent turns blocked,
 * until the machine's row says "needs you" (the chooser follows the machine's events while it is open).
 */
async function blockedInChooser(env: NodeJS.ProcessEnv, cwd: string, report: (params: Record<string, unknown>) => Promise<unknown>, followers: () => Promise<number>, n: number): Promise<number[]> {
  const c = new TermClient(process.execPath, [BIN, 'attach'], { cols: 120, rows: 40, env, cwd });
  try {
    await c.settle(500, 30_000);
    await report({ pane_id: 'w1:p1', agent: 'claude', state: 'idle', source: 'hook' });
    const listed = c.waitFor('default@box', 15_000);
    c.write('\x02s');
    await listed;
    for (let t = now(); (await followers()) < 1 && now() - t < 15_000; ) await sleep(50);
    const lat: number[] = [];
    for (let k = 0; k < n; k++) {
      await sleep(1200);
      const seen = c.waitFor('needs you', 3000);
      const ts = now();
      await report({ pane_id: 'w1:p1', agent: 'claude', state: 'blocked', source: 'hook', message: `may I ${k}` });
      const te = await seen;
      if (Number.isFinite(te)) lat.push(te - ts);
      await report({ pane_id: 'w1:p1', agent: 'claude', state: 'idle', source: 'hook' });
    }
    return lat;
  } finally {
    await c.close();
  }
}

async function timed(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await f();
    out.push(now() - t0);
  }
  return out;
}

async function pings(c: RpcClient, n: number): Promise<number[]> {
  return timed(n, () => c.request('ping', {}, { timeoutMs: 10_000 }));
}

/** Report on the remote server's own socket; time until the event reaches a subscriber (local socket or ssh bridge). */
async function reportToEvent(sub: RpcClient, reporter: RpcClient, n: number): Promise<number[]> {
  let resolveSeen: (() => void) | undefined;
  sub.onMessage((m) => {
    if ((m as { event?: unknown }).event) resolveSeen?.();
  });
  await sub.request('events.subscribe', { types: ['pane_agent_status_changed'] });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const seen = new Promise<void>((r) => (resolveSeen = r));
    const t0 = now();
    await reporter.request('pane.report_agent', { pane_id: 'w1:p1', agent: 'bench', state: i % 2 ? 'idle' : 'blocked', source: 'api' });
    await seen;
    out.push(now() - t0);
  }
  return out;
}

export async function machines(b: BenchEnv): Promise<SectionResult> {
  const skip = sshdSkipReason();
  if (skip) {
    log(`machines: skipped (${skip})`);
    return { rows: [], raw: { skipped: skip } };
  }
  const remote = makeTempEnv();
  const local = makeTempEnv();
  const rbin = join(remote.root, 'rbin');
  mkdirSync(rbin);
  writeFileSync(join(rbin, 'castellan'), `#!/bin/sh\nexport HOME='${remote.home}' SHELL='${remote.env.SHELL}' TERM=xterm-256color\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(rbin, 'castellan'), 0o755);
  const sshd = await startSshd({ remotePath: rbin });
  const cm = join(sshd.dir, 'ssh-cm');
  writeFileSync(cm, `#!/bin/sh\nexec '${sshd.sshWrapper}' -o ControlMaster=auto -o 'ControlPath=${sshd.dir}/cm-%C' -o ControlPersist=60 "$@"\n`);
  chmodSync(cm, 0o755);
  const n = b.opts.quick ? 3 : 7;
  try {
    await remote.cli(['server', 'start']);
    await local.cli(['server', 'start']);
    await local.cli(['machine', 'add', 'box', sshd.host]);
    const cli = (args: string[], ssh = sshd.sshWrapper) => async () => {
      Object.assign(local.env, { CASTELLAN_SSH: ssh });
      const r = await local.cli(args, { timeoutMs: 60_000 });
      if (r.code !== 0) throw new Error(`castellan ${args.join(' ')}: ${r.stderr}`);
    };
    const listLocal = await timed(n, cli(['herd', 'list']));
    const listRemote = await timed(n, cli(['herd', 'list', '--machine', 'box']));
    await cli(['herd', 'list', '--machine', 'box'], cm)();
    const listMaster = await timed(n, cli(['herd', 'list', '--machine', 'box'], cm));
    const sshTrue = await timed(n, () => new Promise<void>((r) => {
      import('node:child_process').then(({ spawn }) => spawn(sshd.sshWrapper, ['-T', sshd.host, 'true'], { stdio: 'ignore' }).on('close', () => r()));
    }));
    const bridge = await connectMachine({ name: 'box', target: sshd.host }, { ssh: sshd.sshWrapper, probeMs: 0 });
    const direct = await RpcClient.connect(remote.socket);
    const reporter = await RpcClient.connect(remote.socket);
    let pingRemote: number[];
    let pingLocal: number[];
    let evRemote: number[];
    let evLocal: number[];
    try {
      await pings(bridge.client, 50);
      pingRemote = await pings(bridge.client, b.opts.quick ? 200 : 1000);
      pingLocal = await pings(direct, b.opts.quick ? 200 : 1000);
      evRemote = await reportToEvent(bridge.client, reporter, b.opts.quick ? 30 : 100);
      evLocal = await reportToEvent(direct, reporter, b.opts.quick ? 30 : 100);
    } finally {
      bridge.client.close();
      direct.close();
      reporter.close();
    }
    // Both servers' focused pane runs cat (the tty echoes each key), as the echo section does.
    await remote.call('pane.send_text', { pane_id: 'w1:p1', text: 'exec cat', enter: true });
    await local.call('pane.send_text', { pane_id: 'w1:p1', text: 'exec cat', enter: true });
    Object.assign(local.env, { CASTELLAN_SSH: sshd.sshWrapper });
    const keys = b.opts.quick ? 60 : 200;
    const echoRemote = await echoThrough(['attach', '--machine', 'box'], local.env, local.home, keys);
    const echoLocal = await echoThrough(['attach'], local.env, local.home, keys);
    const badges = b.opts.quick ? 10 : 30;
    const badgeRemote = await badgeThrough(['attach', '--machine', 'box'], local.env, local.home, (p) => remote.call('pane.report_agent', p), badges);
    const badgeLocal = await badgeThrough(['attach'], local.env, local.home, (p) => local.call('pane.report_agent', p), badges);
    const inChooser = await blockedInChooser(local.env, local.home, (p) => remote.call('pane.report_agent', p), async () => (await remote.call<{ subscribers: number }>('ping')).subscribers, b.opts.quick ? 5 : 10);
    log(`machines: remote agent blocked → "needs you" in the local chooser ${round(median(inChooser), 1)} ms (max ${round(Math.max(...inChooser), 1)}), ${inChooser.length} seen`);
    log(`machines: remote agent blocked → drawn in attach --machine ${round(median(badgeRemote), 2)} ms (max ${round(Math.max(...badgeRemote), 2)}) vs local attach ${round(median(badgeLocal), 2)} ms, ${badgeRemote.length}/${badges} and ${badgeLocal.length}/${badges} seen`);
    log(`machines: keystroke echo attach --machine ${round(median(echoRemote), 2)} ms (p99 ${round(quantile(echoRemote, 0.99), 2)}) vs local attach ${round(median(echoLocal), 2)} ms (p99 ${round(quantile(echoLocal, 0.99), 2)}), ${echoRemote.length}/${keys} and ${echoLocal.length}/${keys} echoed`);
    log(`machines: herd list local ${round(median(listLocal), 0)} ms, --machine ${round(median(listRemote), 0)} ms, with ControlMaster ${round(median(listMaster), 0)} ms (ssh true ${round(median(sshTrue), 0)} ms); ping bridge ${round(median(pingRemote), 3)} vs socket ${round(median(pingLocal), 3)} ms; report→event bridge ${round(median(evRemote), 2)} vs socket ${round(median(evLocal), 2)} ms`);
    const S = 'machines (loopback ssh)';
    const rows: Row[] = [
      { section: S, metric: 'herd list --machine (fresh ssh), median', unit: 'ms', castellan: median(listRemote), note: `local herd list ${round(median(listLocal), 0)} ms; ssh alone ${round(median(sshTrue), 0)} ms`, digits: 0 },
      { section: S, metric: 'herd list --machine with ControlMaster, median', unit: 'ms', castellan: median(listMaster), note: `x${round(median(listMaster) / median(listLocal), 2)} local`, digits: 0 },
      { section: S, metric: 'ping over an open bridge, median / p99', unit: 'ms', castellan: median(pingRemote), note: `p99 ${round(quantile(pingRemote, 0.99), 3)}; local socket ${round(median(pingLocal), 3)}`, digits: 3 },
      { section: S, metric: 'keystroke echo through attach --machine, median', unit: 'ms', castellan: median(echoRemote), note: `local attach ${round(median(echoLocal), 2)} (x${round(median(echoRemote) / median(echoLocal), 2)}); p99 ${round(quantile(echoRemote, 0.99), 2)} vs ${round(quantile(echoLocal, 0.99), 2)}`, digits: 2, target: '< 2x local', pass: echoRemote.length > 0 && median(echoRemote) < 2 * median(echoLocal) },
      { section: S, metric: 'remote agent blocked → drawn in attach --machine, median', unit: 'ms', castellan: median(badgeRemote), note: `local attach ${round(median(badgeLocal), 2)}; max ${round(Math.max(...badgeRemote), 2)}; ${badgeRemote.length}/${badges} seen`, digits: 2, target: '< 300 ms', pass: badgeRemote.length === badges && Math.max(...badgeRemote) < 300 },
      { section: S, metric: 'remote agent blocked → "needs you" in the local chooser, median', unit: 'ms', castellan: median(inChooser), note: `max ${round(Math.max(...inChooser), 1)}; ${inChooser.length}/${b.opts.quick ? 5 : 10} seen`, digits: 1, target: '< 300 ms', pass: inChooser.length === (b.opts.quick ? 5 : 10) && Math.max(...inChooser) < 300 },
      { section: S, metric: 'remote report → event on this side, median', unit: 'ms', castellan: median(evRemote), note: `local ${round(median(evLocal), 2)}; p90 ${round(quantile(evRemote, 0.9), 2)}`, digits: 2, target: '< 300 ms', pass: median(evRemote) < 300 },
    ];
    return { rows, raw: { echoRemote: echoRemote.map((x) => round(x, 2)), echoLocal: echoLocal.map((x) => round(x, 2)), listLocal, listRemote, listMaster, sshTrue, pingRemote: pingRemote.map((x) => round(x, 3)), pingLocal: pingLocal.map((x) => round(x, 3)), evRemote, evLocal, badgeRemote: badgeRemote.map((x) => round(x, 2)), badgeLocal: badgeLocal.map((x) => round(x, 2)), inChooser: inChooser.map((x) => round(x, 1)) } };
  } finally {
    await sshd.stop();
    await remote.cleanup();
    await local.cleanup();
  }
}
