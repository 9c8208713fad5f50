// Issue 34's memory rows: N panes (one per window, 200x50) with default scrollback filled, castellan's total (server +
// one attached client) against tmux's total (server + client), same run, for densely coloured output (a colour change
// every word, as diffs and agent logs are) and for plain text.
//
// Per kind and pane count: a server with N idle panes (each `read _; head -n 12000 FILE; ...`) and a client attached;
// the "base" reading once everything is idle; then every pane fills at once; readings 3 s and 15 s after the last pane
// finished. A reading is RSS (VmRSS) of the server plus the client. Both castellan and tmux are read the same way.
// Goal: castellan's total at most 1.5x tmux's, at rest (15 s); the 3 s reading is the flood's tail (young generation,
// raw tier not encoded yet) and is printed beside it.
// Measured (bench/mem-dense.ts, one run each, load 15-36 on 2 shared cores; RSS, so +- a few MB):
//   64 panes dense, at rest: castellan 1101.7 MB before the palette store (1.46x tmux), 594.8 after (0.79x), tmux 752.7;
//   at 3 s 1091.3 / 585.4 / 752.7. 64 panes plain, after: 485.6 MB at rest, 471.4 at 3 s, tmux 662.5 (0.73x).
//   4 panes dense, per filled pane at rest: 18.9 MB before, 6.4 after, tmux 11.7 (at 3 s 17.7 / 8.5 / 11.7).
//   node --import tsx bench/run.ts --only memdense                  # 4 panes, dense and plain
//   node --import tsx bench/sections/memory-dense.ts --panes 4,64 --kinds dense,plain --runs 1
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { rssKiB } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, prng, round, shq, sleep, waitUntil } from '../lib/util.js';

const LINES = 12_000;
const COLS = 200;
const WORDS = ('const function return import export async await error warning info debug value result index length ' +
  'string number object array diff hunk added removed test passed failed src lib node_modules path join').split(' ');

export type Kind = 'dense' | 'plain';

/**
 * Lines of exactly COLS columns. dense: every word in a colour of its own and reset after it (`\e[32mword\e[0m `), as
 * diffs and agent logs colour: 16 colours, bold, 256 colours, dim, and now and then a theme's truecolour; one line in
 * 20 starts with a non-ASCII mark (✓ → •). plain: the same words without SGR.
 */
export function textFile(dataDir: string, kind: Kind): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, `mem2-${kind}-${LINES}x${COLS}.txt`);
  if (existsSync(path) && statSync(path).size > 0) return path;
  const rnd = prng(kind === 'dense' ? 0xc0105 : 0x9141);
  const pick = (n: number) => Math.floor(rnd() * n);
  const THEME = ['215;119;87', '78;186;101', '255;107;128', '177;185;249', '153;153;153', '255;193;7', '87;105;247', '235;159;127'];
  const sgr = (): string => {
    const r = rnd();
    if (r < 0.45) return `\x1b[${31 + pick(7)}m`;
    if (r < 0.6) return `\x1b[1;${31 + pick(7)}m`;
    if (r < 0.85) return `\x1b[38;5;${pick(256)}m`;
    if (r < 0.95) return `\x1b[2m`;
    return `\x1b[38;2;${THEME[pick(THEME.length)]}m`;
  };
  const fd = openSync(path + '.part', 'w');
  let parts: string[] = [];
  for (let i = 0; i < LINES; i++) {
    let line = '';
    let vis = 0;
    if (i % 20 === 7) {
      line += kind === 'dense' ? `\x1b[32m${'✓→•'[pick(3)]}\x1b[0m ` : `${'✓→•'[pick(3)]} `;
      vis += 2;
    }
    while (vis < COLS) {
      let w = WORDS[pick(WORDS.length)];
      if (vis + w.length > COLS) w = w.slice(0, COLS - vis);
      line += kind === 'dense' ? `${sgr()}${w}\x1b[0m` : w;
      vis += w.length;
      if (vis < COLS) {
        line += ' ';
        vis++;
      }
    }
    line += '\r\n';
    parts.push(line);
    if (parts.length === 1000) {
      writeSync(fd, parts.join(''));
      parts = [];
    }
  }
  writeSync(fd, parts.join(''));
  closeSync(fd);
  renameSync(path + '.part', path);
  return path;
}

const script = (file: string) => `read _; cat ${shq(file)}; printf '%s%s\\n' FILL-DONE- "$0"; exec sleep 100000`;

/** At-rest reading: seconds after the fill (young-gen-shrink needs ~6 s of quiet, a retry 5.5 s more). */
const REST_S = 15;
const SOON_S = 3;

export interface DenseRun {
  kind: Kind;
  panes: number;
  /** MiB: server, client and their sum, idle before the fill, SOON_S and REST_S after it. */
  base: { server: number; client: number; total: number };
  soon: { server: number; client: number; total: number };
  rest: { server: number; client: number; total: number };
  fillMs: number;
  load: number[];
}

const mib = (pid: number) => rssKiB(pid) / 1024;
function reading(server: number, client: number): { server: number; client: number; total: number } {
  const s = mib(server), c = mib(client);
  return { server: round(s, 1), client: round(c, 1), total: round(s + c, 1) };
}

async function afterFill(server: number, client: number, done: number): Promise<Pick<DenseRun, 'soon' | 'rest'>> {
  await sleep(Math.max(0, done + SOON_S * 1000 - Date.now()));
  const soon = reading(server, client);
  await sleep(Math.max(0, done + REST_S * 1000 - Date.now()));
  return { soon, rest: reading(server, client) };
}

export async function castellanRun(b: BenchEnv, file: string, kind: Kind, panes: number, nodeFlags?: string[]): Promise<DenseRun> {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['sh', '-c', script(file), 'p1'], nodeFlags });
  try {
    const ids: Array<[string, string]> = [['w1:p1', 'p1']];
    for (let i = 1; i < panes; i++) {
      const tag = `p${i + 1}`;
      const r = await s.api.request<{ pane_id: string }>('window.new', { command: ['sh', '-c', script(file), tag], focus: false });
      ids.push([r.pane_id, tag]);
    }
    await s.notePanes();
    const sizes = (await s.panes()).map((p) => `${p.cols}x${p.rows}`);
    if (sizes.some((x) => x !== '200x50')) throw new Error(`castellan pane sizes ${sizes.join(',')}`);
    const c = await s.attach(202, 53);
    const cpid = c.pid;
    await sleep(2000);
    const base = reading(s.pid, cpid);
    const t0 = Date.now();
    for (const [id] of ids) await s.api.request('pane.send_text', { pane_id: id, text: '\r' });
    for (const [id, tag] of ids) {
      await waitUntil(async () => (await s.api.request<{ text: string }>('pane.read', { pane_id: id, lines: 4 })).text.includes(`FILL-DONE-${tag}`), `castellan ${id} to fill`, 600_000, 200);
    }
    const done = Date.now();
    log(`castellan fill done at ${done}`);
    const after = await afterFill(s.pid, cpid, done);
    return { kind, panes, base, ...after, fillMs: done - t0, load: loadavg() };
  } finally {
    await s.stop();
  }
}

export async function tmuxRun(b: BenchEnv, file: string, kind: Kind, panes: number): Promise<DenseRun> {
  const cmd = (name: string, tag: string) => `sh -c ${shq(script(file).replace(`printf '%s%s\\n' FILL-DONE- "$0"`, `tmux -L ${name} wait-for -S fill-${tag}`))}`;
  let name = '';
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: (n) => ((name = n), cmd(n, 'p1')) });
  try {
    for (let i = 1; i < panes; i++) await t.cmd('new-window', '-d', '-t', `b:${i}`, cmd(name, `p${i + 1}`));
    await t.notePanes();
    const c = await t.attach(200, 51);
    const sizes = (await t.panes()).map((p) => `${p.cols}x${p.rows}`);
    if (sizes.some((x) => x !== '200x50')) throw new Error(`tmux pane sizes ${sizes.join(',')}`);
    await sleep(2000);
    const base = reading(t.pid, c.pid);
    const waits = Array.from({ length: panes }, (_, i) => t.waitFor(`fill-p${i + 1}`));
    await sleep(50);
    const t0 = Date.now();
    for (let i = 0; i < panes; i++) await t.cmd('send-keys', '-t', `b:${i}`, 'Enter');
    await Promise.all(waits);
    const done = Date.now();
    const after = await afterFill(t.pid, c.pid, done);
    return { kind, panes, base, ...after, fillMs: done - t0, load: loadavg() };
  } finally {
    await t.stop();
  }
}

/** Rows for one kind and pane count: totals at SOON_S and REST_S, and what a filled pane adds (mean), against tmux. */
export function denseRows(c: DenseRun, t: DenseRun): Row[] {
  const S = `memory, ${c.panes} panes ${c.kind} (200x50, server + client)`;
  const TARGET = 1.5;
  const goal = { ratioMax: TARGET };
  const per = (r: DenseRun, k: 'soon' | 'rest') => (r[k].total - r.base.total) / r.panes;
  return [
    { section: S, metric: 'total RSS before the fill', unit: 'MB', castellan: c.base.total, tmux: t.base.total, digits: 1 },
    { section: S, metric: `total RSS ${SOON_S} s after the fill`, unit: 'MB', castellan: c.soon.total, tmux: t.soon.total, digits: 1 },
    { section: S, metric: `total RSS at rest (${REST_S} s after)`, unit: 'MB', castellan: c.rest.total, tmux: t.rest.total, digits: 1, target: goal },
    { section: S, metric: `per filled pane, ${SOON_S} s after`, unit: 'MB', castellan: per(c, 'soon'), tmux: per(t, 'soon'), digits: 2 },
    { section: S, metric: `per filled pane, at rest (${REST_S} s after)`, unit: 'MB', castellan: per(c, 'rest'), tmux: per(t, 'rest'), digits: 2 },
  ];
}

/** The section: 4 panes, dense then plain (64 panes: the script with --panes 64, about 5 minutes a kind). */
export async function memoryDense(b: BenchEnv): Promise<SectionResult> {
  const rows: Row[] = [];
  const raw: DenseRun[] = [];
  for (const kind of ['dense', 'plain'] as Kind[]) {
    const file = textFile(b.dataDir, kind);
    const c = await castellanRun(b, file, kind, 4);
    log(`memdense castellan: ${JSON.stringify(c)}`);
    const t = await tmuxRun(b, file, kind, 4);
    log(`memdense tmux     : ${JSON.stringify(t)}`);
    raw.push(c, t);
    rows.push(...denseRows(c, t));
  }
  return { rows, raw };
}
