// CPU cost of one session snapshot (capture + write), in process: 1, 4 and 16 panes, empty or with 10 000 lines each.
//
//   node --import tsx bench/snapshot-cost.mts [--runs N] [--case PANES:LINES] [--json FILE]
//
// Each pane is a real Screen (200x50, scrollback 10 000) behind the same Capture and writer calls the server makes.
// Per case, medians over the runs of CPU ms (process.cpuUsage: this process's threads, zlib's pool included):
//   changed  every pane printed since the last snapshot (a bash prompt redrawn, or one more line of output)
//   same     nothing changed (the per-pane cache)
// Run from the repo root after `npm run build` is not needed: it imports src/ through tsx.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Capture, type LivePane } from '../src/restore/capture.js';
import { snapshotJson, writeSnapshotFile } from '../src/restore/store.js';
import { reduce, emptyState } from '../src/core/reducer.js';
import { Screen } from '../src/server/screen.js';
import { writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', '7'));
const LINES = 10_000;
const COLS = 200;
const ROWS = 50;

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const write = (s: Screen, data: string) => new Promise<void>((r) => s.write(data, r));

function line(i: number): string {
  return `\x1b[32m${String(i).padStart(6)}\x1b[0m some output of a build or a test run, line ${i} \x1b[1mbold\x1b[0m and plain text after it`;
}

async function caseOf(panes: number, full: boolean) {
  const screens: Screen[] = [];
  for (let i = 0; i < panes; i++) {
    const s = new Screen({ cols: COLS, rows: ROWS, scrollback: LINES });
    if (full) {
      const chunk: string[] = [];
      for (let y = 1; y <= LINES; y++) chunk.push(line(y));
      await write(s, chunk.join('\r\n') + '\r\n$ ');
    } else await write(s, '$ ');
    screens.push(s);
  }
  const ids = screens.map((_, i) => `w${i + 1}:p1`);
  const windows = ids.map((id, i) => ({ id: `w${i + 1}`, layout: { kind: 'leaf' as const, pane: id }, active: id, panes: [{ id, command: ['/bin/bash'], cwd: '/' }] }));
  const st = reduce(emptyState('cost', { cols: COLS, rows: ROWS }), { type: 'server.restore', cols: COLS, rows: ROWS, windows }, { now: Date.now(), defaultCommand: ['/bin/bash'], defaultCwd: '/' }).state;
  const outputAt = new Map(ids.map((id) => [id, 1]));
  const pty = { pid: process.pid, cwd: () => '/', foregroundPid: () => undefined };
  const live = new Map<string, LivePane>(ids.map((id, i) => [id, { exited: false, get lastOutputAt() { return outputAt.get(id)!; }, size: { cols: COLS, rows: ROWS }, screen: screens[i], pty }]));
  const dir = mkdtempSync(join(tmpdir(), 'snapcost-'));
  const capture = new Capture({ session: 'cost', cwd: '/', home: dir, state: () => st, historyLines: () => LINES, pane: (id) => live.get(id) });
  const paths = { stateDir: dir, session: 'cost' };
  const once = async () => {
    const c0 = cpu();
    const snap = await capture.take();
    const { bytes } = await writeSnapshotFile(paths, snapshotJson(snap));
    return { ms: cpu() - c0, bytes };
  };
  let tick = 1;
  const changed: number[] = [];
  const same: number[] = [];
  let bytes = 0;
  let first = 0;
  for (let run = 0; run < RUNS; run++) {
    tick++;
    // What a pane does between snapshots: one more line (full) or its prompt redrawn (empty).
    for (let i = 0; i < panes; i++) {
      await write(screens[i], full ? `\r\n${line(LINES + tick)}\r\n$ ` : '\r$ ');
      outputAt.set(ids[i], tick);
    }
    const r = await once();
    if (run === 0) first = r.ms;
    else changed.push(r.ms);
    bytes = r.bytes;
    same.push((await once()).ms);
  }
  for (const s of screens) s.dispose();
  rmSync(dir, { recursive: true, force: true });
  return { panes, lines: full ? LINES : 0, firstMs: first, changedMs: median(changed), sameMs: median(same), bytes };
}

async function main() {
  // Warm the code paths once (the server's first snapshot also pays for compiling them; reported apart as firstMs).
  await caseOf(1, false);
  const out = [];
  const only = opt('--case', '');
  const cases = only ? [only.split(':').map(Number)] : [0, LINES].flatMap((l) => [1, 4, 16].map((p) => [p, l]));
  for (const [panes, lines] of cases) out.push(await caseOf(panes, lines > 0));
  process.stdout.write(`snapshot CPU ms (medians of ${RUNS - 1}; load ${loadavg().map((x) => x.toFixed(2)).join(' ')})\n`);
  process.stdout.write('panes  lines   first  changed   same   bytes\n');
  for (const r of out) process.stdout.write(`${String(r.panes).padStart(5)}  ${String(r.lines).padStart(5)}  ${r.firstMs.toFixed(1).padStart(6)}  ${r.changedMs.toFixed(1).padStart(7)}  ${r.sameMs.toFixed(1).padStart(5)}  ${String(r.bytes).padStart(7)}\n`);
  const json = opt('--json', '');
  if (json) writeFileSync(json, JSON.stringify(out, null, 1));
}

await main();
