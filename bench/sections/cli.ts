// 11. What one CLI call costs (issue 30): scripts and agents call `ls`, `pane send`, `pane list`, `herd list` in loops.
// Each call is a whole process, measured as a user sees it: its CPU (user + sys of the process, from bash's `times`)
// and its wall time, beside the same call to tmux and a bare `node -e 0` in the same run, interleaved so the load of a
// shared machine falls on all three alike. castellan's own cost is its CPU over the bare Node start's (goal: < 30 ms).
// `new -d` is timed whole (start a server, return once its socket takes connections) beside `tmux new-session -d` and a
// bare `node -e 0`'s wall time (goal: < 300 ms; castellan's floor is one Node start: the server's own start is not waited for).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CastellanServer } from '../lib/castellan.js';
import { track } from '../lib/cleanup.js';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, median, now, round, shq } from '../lib/util.js';

const run = promisify(execFile);
const SHELL = ['bash', '--norc', '--noprofile'];

/** Runs argv under bash and returns the child's CPU (user + sys, ms, from `times`) and the wall time (ms). */
async function timed(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ cpu: number; wall: number; ok: boolean }> {
  const script = `${argv.map(shq).join(' ')} >/dev/null 2>&1; rc=$?; times; exit $rc`;
  const t0 = now();
  let out = '';
  let ok = true;
  try {
    out = (await run('bash', ['--norc', '--noprofile', '-c', script], { env, cwd, timeout: 20_000 })).stdout;
  } catch (e) {
    ok = false;
    out = (e as { stdout?: string }).stdout ?? '';
  }
  const wall = now() - t0;
  // `times`: the shell's own user/sys, then its children's: "0m0.081s 0m0.023s".
  const line = out.trim().split('\n')[1] ?? '';
  const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { cpu: secs.length === 2 ? (secs[0] + secs[1]) * 1000 : NaN, wall, ok };
}

interface Case {
  name: string;
  castellan: string[];
  tmux: string[];
}

export async function cli(b: BenchEnv): Promise<SectionResult> {
  const n = b.opts.quick ? 7 : 21;
  const node = process.execPath;
  const bin = join(b.root, 'bin', 'castellan.js');
  const c = await CastellanServer.start(b, { cols: 120, rows: 40, command: SHELL });
  const t = await TmuxServer.start(b, { cols: 120, rows: 40, command: SHELL.join(' ') });
  const cEnv = { ...b.env, HOME: c.home, XDG_STATE_HOME: join(c.home, 'state'), XDG_CONFIG_HOME: join(c.home, 'config'), CASTELLAN_SOCKET: c.socket };
  const tmux = (...a: string[]) => ['tmux', '-L', t.name, '-f', t.conf, '-u', ...a];
  const cases: Case[] = [
    { name: 'ls', castellan: [node, bin, 'ls'], tmux: tmux('ls') },
    { name: 'pane send', castellan: [node, bin, 'pane', 'send', '--pane', 'w1:p1', 'x'], tmux: tmux('send-keys', '-t', 'b', 'x') },
    { name: 'pane list', castellan: [node, bin, 'pane', 'list'], tmux: tmux('list-panes') },
    { name: 'herd list', castellan: [node, bin, 'herd', 'list'], tmux: tmux('list-panes', '-F', '#{pane_id} #{pane_current_command}') },
  ];
  const bare: number[] = [];
  const cpu = new Map<string, { c: number[]; t: number[]; cw: number[]; tw: number[] }>();
  const newD = { c: [] as number[], t: [] as number[], cCpu: [] as number[], bare: [] as number[] };
  try {
    // Warm: the first call after a build writes the CLI's code cache (as a user's first call does).
    for (const k of cases) await timed(k.castellan, cEnv, c.home);
    for (let i = 0; i < n; i++) {
      bare.push((await timed([node, '-e', '0'], b.env, c.home)).cpu);
      for (const k of cases) {
        const e = cpu.get(k.name) ?? { c: [], t: [], cw: [], tw: [] };
        cpu.set(k.name, e);
        const rc = await timed(k.castellan, cEnv, c.home);
        const rt = await timed(k.tmux, t.env, t.home);
        if (!rc.ok) throw new Error(`castellan ${k.name} failed`);
        e.c.push(rc.cpu);
        e.cw.push(rc.wall);
        e.t.push(rt.cpu);
        e.tw.push(rt.wall);
      }
    }
  } finally {
    await c.stop();
    await t.stop();
  }
  // `new -d`: a new session each time, stopped before the next, in one HOME as a user has it (the CLI's code cache
  // warm; a first call after a build writes it); tmux: its own server each time; a bare `node -e 0` in the same loop.
  const runs = b.opts.quick ? 5 : 15;
  const home = join(b.tmp, `newd${b.nextId()}`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...b.env, HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config') };
  delete env.CASTELLAN_SOCKET;
  const conf = join(home, 'tmux.conf');
  writeFileSync(conf, 'set -g history-limit 10000\n');
  for (let i = -1; i < runs; i++) {
    const session = `n${i + 1}`;
    // Whatever happens, the session's server ends with the bench (kill-server also forgets its snapshot).
    const kill = () => run(node, [bin, 'kill-server', '-t', session], { env, cwd: home, timeout: 20_000 }).then(() => undefined, () => undefined);
    const untrack = track({ name: 'castellan new -d', close: kill, killSync: () => {} });
    try {
      const bareRun = await timed([node, '-e', '0'], env, home);
      const r = await timed([node, bin, 'new', '-d', '-s', session], env, home);
      if (!r.ok) throw new Error('castellan new -d failed');
      // The first round only warms the code cache.
      if (i >= 0) {
        newD.c.push(r.wall);
        newD.cCpu.push(r.cpu);
        newD.bare.push(bareRun.wall);
      }
    } finally {
      await kill();
      untrack();
    }
    if (i < 0) continue;
    const name = `bench-newd-${process.pid}-${i}`;
    const tArgs = ['tmux', '-L', name, '-f', conf, 'new-session', '-d', '-x', '120', '-y', '40'];
    try {
      newD.t.push((await timed(tArgs, { ...b.env, HOME: home }, home)).wall);
    } finally {
      await run('tmux', ['-L', name, 'kill-server'], { env: { ...b.env, HOME: home }, timeout: 10_000 }).catch(() => undefined);
    }
  }
  const S = 'CLI calls';
  const bareMs = median(bare);
  const rows: Row[] = [{ section: S, metric: 'bare `node -e 0`, CPU', unit: 'ms', castellan: bareMs, digits: 1, note: `${n} runs, interleaved` }];
  for (const k of cases) {
    const e = cpu.get(k.name)!;
    const own = median(e.c) - bareMs;
    rows.push({ section: S, metric: `\`${k.name}\` CPU (castellan's own: over bare node)`, unit: 'ms', castellan: median(e.c), tmux: median(e.t), digits: 1, target: `own < 30 ms (${round(own, 1)})`, pass: own < 30 });
    rows.push({ section: S, metric: `\`${k.name}\` wall`, unit: 'ms', castellan: median(e.cw), tmux: median(e.tw), digits: 1 });
  }
  rows.push({ section: S, metric: 'bare `node -e 0`, wall (beside `new -d`)', unit: 'ms', castellan: median(newD.bare), digits: 0, note: `${runs} runs, interleaved` });
  rows.push({ section: S, metric: '`new -d` wall (until its socket takes connections)', unit: 'ms', castellan: median(newD.c), tmux: median(newD.t), digits: 0, target: '< 300 ms', pass: median(newD.c) < 300 });
  rows.push({ section: S, metric: '`new -d` wall over a bare node start', unit: 'ms', castellan: median(newD.c) - median(newD.bare), digits: 0, note: `CPU ${round(median(newD.cCpu), 0)} ms` });
  log(`cli: bare node ${round(bareMs, 1)} ms CPU; ${cases.map((k) => `${k.name} ${round(median(cpu.get(k.name)!.c), 1)} ms`).join(', ')}; new -d ${round(median(newD.c), 0)} ms wall (CPU ${round(median(newD.cCpu), 0)} ms; bare node ${round(median(newD.bare), 0)} ms wall)`);
  return { rows, raw: { bareCpuMs: bare, cases: Object.fromEntries(cpu), newD } };
}
