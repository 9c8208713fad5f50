// The floor of a keystroke's echo for a Node multiplexer shaped like tmux (one process owning the terminal and the
// panes' ptys), beside tmux and today's castellan in the same run, alternating.
//   node --import tsx bench/echo-floor/run.ts [--n 100] [--rounds 2]
// Types unique CJK keys 15-40 ms apart into each program in an 80x24 pty (`cat` in its pane), times write -> echo seen.
import { spawnSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from '@lydell/node-pty';
import { CastellanServer } from '../lib/castellan.js';
import { closeAll } from '../lib/cleanup.js';
import { makeTmp, removeTmp, scriptEnv } from '../lib/env.js';
import { quantile, sleep } from '../lib/util.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const N = arg('--n', 100), ROUNDS = arg('--rounds', 2);
const sock = `echo-floor-${process.pid}`;
const tmp = makeTmp();
const b = scriptEnv({ repo: REPO, tmp, opts: { samples: N } });

type Arm = { name: string; cmd: string; args: string[]; env?: NodeJS.ProcessEnv; ready: (out: string) => boolean };

async function typeInto(a: Arm): Promise<{ median: number; p90: number }> {
  const t = pty.spawn(a.cmd, a.args, { cols: 80, rows: 24, env: { ...(a.env ?? process.env), TERM: 'xterm-256color' } as Record<string, string> });
  let buf = '';
  let waiting: { ch: string; res: () => void } | undefined;
  t.onData((d) => {
    buf += d;
    if (waiting && buf.includes(waiting.ch)) { const w = waiting; waiting = undefined; w.res(); }
  });
  try {
    const deadline = Date.now() + 15_000;
    while (!a.ready(buf)) { if (Date.now() > deadline) throw new Error(`${a.name}: not ready`); await sleep(20); }
    await sleep(500);
    const times: number[] = [];
    for (let i = 0, code = 0x4e00; i < N; i++) {
      if (i % 30 === 29) { t.write('\r'); await sleep(60); }
      const ch = String.fromCodePoint(++code);
      buf = '';
      const seen = new Promise<void>((res, rej) => { waiting = { ch, res }; setTimeout(() => rej(new Error(`${a.name}: no echo in 2 s`)), 2000).unref(); });
      const t0 = process.hrtime.bigint();
      t.write(ch);
      await seen;
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await sleep(15 + ((i * 7) % 25));
    }
    return { median: quantile(times, 0.5), p90: quantile(times, 0.9) };
  } finally {
    t.kill();
  }
}

const out: Record<string, Array<{ median: number; p90: number }>> = {};
try {
  const s = await CastellanServer.start(b, { cols: 80, rows: 23, command: ['cat'] });
  const home = s.home;
  const cenv = { ...b.env, HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config'), CASTELLAN_SOCKET: s.socket };
  const relay = join(HERE, 'relay.cjs');
  const arms: Arm[] = [
    { name: 'tmux (its server owns the terminal)', cmd: 'tmux', args: ['-L', sock, '-f', '/dev/null', 'new-session', 'cat'], ready: (o) => o.length > 0 },
    { name: 'castellan today (client + server)', cmd: process.execPath, args: [join(REPO, 'bin', 'castellan.js')], env: cenv, ready: (o) => o.length > 200 },
    { name: 'node relay only', cmd: process.execPath, args: [relay, 'raw', REPO], ready: (o) => o.includes('READY') },
    { name: 'node, xterm parse + row frame', cmd: process.execPath, args: [relay, 'xterm', REPO], ready: (o) => o.includes('READY') },
  ];
  for (let r = 0; r < ROUNDS; r++) for (const a of arms) (out[a.name] ??= []).push(await typeInto(a));
} finally {
  spawnSync('tmux', ['-L', sock, 'kill-server'], { stdio: 'ignore' });
  await closeAll();
  removeTmp(tmp);
}
const f = (x: number) => x.toFixed(3);
for (const [name, rs] of Object.entries(out)) console.log(`${name.padEnd(36)} ${rs.map((x) => `median ${f(x.median)} p90 ${f(x.p90)}`).join(' | ')} ms`);
