// Pane exit: how long after a program's last write castellan reports its exit (pane_exited to a socket subscriber).
//
// The program (bash) prints 2000 lines, notes the wall clock with a builtin ($EPOCHREALTIME: nothing runs between its
// last write and its exit), and exits; the bench's subscriber notes when the event arrives. castellan only: tmux has
// no exit event on its socket (its `pane-exited` hook runs a command, a process start later).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, median, quantile, round } from '../lib/util.js';

export async function exit(b: BenchEnv): Promise<SectionResult> {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'], profile: b.opts.cpuProf });
  const lags: number[] = [];
  try {
    const sub = await s.subscribe(['pane_exited']);
    for (let i = 0; i < b.opts.runs * 2; i++) {
      const stamp = join(s.home, `exit-stamp-${i}`);
      const script = `seq -f 'line %g' 1 2000; printf %s "$EPOCHREALTIME" > '${stamp}'; exit 5`;
      const { pane_id } = await s.api.request<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['bash', '-c', script], focus: false });
      const at = await sub.next((e) => e.pane === pane_id, 20_000);
      if (!Number.isFinite(at)) throw new Error(`castellan: no pane_exited for ${pane_id}`);
      const lag = performance.timeOrigin + at - Number(readFileSync(stamp, 'utf8').trim()) * 1000;
      lags.push(lag);
      await s.notePanes();
      await s.api.request('pane.close', { pane_id });
    }
    sub.close();
  } finally {
    await s.stop();
  }
  log(`exit: reported ${lags.map((x) => round(x, 1)).join(' ')} ms after the last write`);
  const S = 'pane exit';
  const rows: Row[] = [
    { section: S, metric: 'pane_exited after the program\'s last write, median', unit: 'ms', castellan: median(lags), digits: 1, target: { max: 50 }, headline: 'pane exit reported after its last output' },
    { section: S, metric: 'same, p90', unit: 'ms', castellan: quantile(lags, 0.9), digits: 1 },
  ];
  return { rows, raw: { lagsMs: lags } };
}
