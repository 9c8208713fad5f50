// The platform room's two backends side by side (issue 33): what one identification pass over 16 panes and one cwd read
// cost with Linux's /proc and with the portable backend (ps, lsof: what macOS uses), same run, same processes.
//
// 16 pane stand-ins (a session leader, a shell with a child, the way an agent runs under a pane's shell), each in its own
// directory. A pass is what the detection loop does per pane: the foreground group, its leader's name, the tree. The
// portable backend's process table is forgotten before each pass (passes come further apart than its 100 ms life), so
// a pass costs one `ps`. castellan only: tmux has no counterpart (it asks the OS per pane, for its format variables).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { backends, type ProcBackend } from '../../src/platform/proc/index.js';
import { forgetCwds, forgetTable } from '../../src/platform/proc/portable.js';
import { track } from '../lib/cleanup.js';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, median, quantile, round } from '../lib/util.js';

const PANES = 16;

/** The pass as the server's detection makes it: every pane asked at once, with the forms that do not block. */
async function pass(b: ProcBackend, roots: number[]): Promise<number> {
  if (b.name === 'portable') forgetTable();
  const t0 = performance.now();
  await Promise.all(roots.map(async (root) => {
    const pgid = await b.foregroundPgidAsync(root);
    if (pgid) await b.readStatAsync(pgid);
    await b.readPaneProcessesAsync(root);
  }));
  return performance.now() - t0;
}

/** The same questions one pane after another, on the asking thread (`herd explain`, the CLI): what blocking costs. */
function passOnThread(b: ProcBackend, roots: number[]): number {
  if (b.name === 'portable') forgetTable();
  const t0 = performance.now();
  for (const root of roots) {
    const pgid = b.foregroundPgid(root);
    if (pgid) b.readStat(pgid);
    b.readPaneProcesses(root);
  }
  return performance.now() - t0;
}

function cwdRead(b: ProcBackend, root: number): number {
  forgetCwds();
  const t0 = performance.now();
  b.processCwd(root);
  return performance.now() - t0;
}

export async function platform(bench: BenchEnv): Promise<SectionResult> {
  const kids: ChildProcess[] = [];
  const untrack = track({
    name: 'platform panes',
    close: async () => kids.forEach((k) => k.kill('SIGKILL')),
    killSync: () => kids.forEach((k) => k.kill('SIGKILL')),
  });
  const roots: number[] = [];
  try {
    for (let i = 0; i < PANES; i++) {
      const dir = join(bench.tmp, `platform-pane-${i}`);
      mkdirSync(dir, { recursive: true });
      const k = spawn('/bin/sh', ['-c', 'sh -c "sleep 600; :" & echo up; wait'], { cwd: realpathSync(dir), detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
      kids.push(k);
      await new Promise<void>((resolve) => k.stdout!.once('data', () => resolve()));
      roots.push(k.pid!);
    }
    const n = bench.opts.quick ? 10 : 30;
    const times: Record<string, { pass: number[]; onThread: number[]; cwd: number[] }> = {};
    const available = process.platform === 'linux' ? [backends.proc, backends.portable] : [backends.portable];
    for (const b of available) times[b.name] = { pass: [], onThread: [], cwd: [] };
    // Interleaved, so load on the machine falls on both alike.
    for (let i = 0; i < n; i++) {
      for (const b of available) {
        times[b.name]!.pass.push(await pass(b, roots));
        if (i < 5) times[b.name]!.onThread.push(passOnThread(b, roots));
        times[b.name]!.cwd.push(cwdRead(b, roots[i % roots.length]!));
      }
    }
    const S = 'platform';
    const rows: Row[] = [];
    for (const b of available) {
      const t = times[b.name]!;
      const label = b.name === 'proc' ? '/proc' : 'portable (ps, lsof)';
      rows.push({ section: S, metric: `identification pass over ${PANES} panes, ${label}, median`, unit: 'ms', castellan: median(t.pass), digits: 2, note: b.blocking ? 'every pane at once, off the thread (as detection asks)' : 'no tmux counterpart' });
      rows.push({ section: S, metric: `same, ${label}, p90`, unit: 'ms', castellan: quantile(t.pass, 0.9), digits: 2, note: 'no tmux counterpart' });
      if (b.blocking) rows.push({ section: S, metric: `same, ${label}, one pane after another on the thread (herd explain, the CLI), median`, unit: 'ms', castellan: median(t.onThread), digits: 1, note: 'a ps per question' });
      rows.push({ section: S, metric: `one cwd read, ${label}, median`, unit: 'ms', castellan: median(t.cwd), digits: 2, note: 'no tmux counterpart' });
    }
    if (times.proc && times.portable) {
      rows.push({ section: S, metric: 'portable / proc, identification pass', unit: 'x', castellan: median(times.portable.pass) / median(times.proc.pass), digits: 1, note: 'same run' });
      rows.push({ section: S, metric: 'portable / proc, cwd read', unit: 'x', castellan: median(times.portable.cwd) / median(times.proc.cwd), digits: 1, note: 'same run' });
    }
    log(`platform: ${Object.entries(times).map(([k, t]) => `${k} pass ${round(median(t.pass), 2)} ms (on the thread ${round(median(t.onThread), 1)}), cwd ${round(median(t.cwd), 2)} ms`).join('; ')}`);
    return { rows, raw: times };
  } finally {
    for (const k of kids) {
      try {
        process.kill(-k.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    untrack();
  }
}
