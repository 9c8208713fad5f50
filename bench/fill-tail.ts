// Where a server's RSS is in the seconds after a fill, the memory section's steps (1 pane, fill, 3 more, fill them).
//   node --import tsx bench/fill-tail.ts [--flags "--trace-gc --import PROBE.mjs"] [--rest 15]
// Prints RSS/anon at the section's readings (1.4 s after each step and `--rest` s after) as JSON, and keeps the
// server's log (GC traces, a probe's output) in the file it names. Without --flags the server runs the daemon's flags.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ansiFile } from './lib/data.js';
import { CastellanServer } from './lib/castellan.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { memKiB } from './lib/proc.js';
import { round, sleep } from './lib/util.js';
import { fillPanes, script } from './sections/memory.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string | undefined) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const flags = opt('--flags', undefined)?.split(/\s+/).filter(Boolean);
const REST = Number(opt('--rest', '15'));
const keep = opt('--log', '/tmp/fill-tail.log')!;
const repo = new URL('..', import.meta.url).pathname;
const file = ansiFile(join(repo, 'bench', 'data'), 50 * 1024 * 1024);
const tmp = makeTmp();
const passed = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CASTELLAN_SERVER_') || k === 'PROBE_OUT'));
const b = scriptEnv({ repo, tmp, file, env: { ...cleanEnv(join(tmp, 'home')), ...passed } });
const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['sh', '-c', script(file), 'p1'], nodeFlags: flags });
const mb = (k: number) => round(k / 1024, 1);
const read = () => {
  const m = memKiB(s.pid);
  return { rss: mb(m.rssKiB), anon: mb(m.rssKiB - m.fileKiB), t: Date.now() };
};
try {
  const out: Record<string, unknown> = {};
  const step = async (name: string) => {
    const t0 = Date.now();
    await sleep(1400);
    out[name] = read();
    await sleep(Math.max(0, t0 + REST * 1000 - Date.now()));
    out[`${name}@rest`] = read();
  };
  const fill = async (panes: Array<[string, string]>) => {
    await fillPanes(s.api, panes);
    out[`filled-${panes.length}`] = Date.now();
  };
  await step('base1');
  await fill([['w1:p1', 'p1']]);
  await step('filled1');
  const more: Array<[string, string]> = [];
  for (let i = 0; i < 3; i++) {
    const r = await s.api.request<{ pane_id: string }>('window.new', { command: ['sh', '-c', script(file), `p${i + 2}`], focus: false });
    more.push([r.pane_id, `p${i + 2}`]);
  }
  await step('base4');
  await fill(more);
  await step('filled4');
  process.stdout.write(JSON.stringify(out) + '\n');
} finally {
  await s.stop();
  copyFileSync(s.logFile, keep);
  removeTmp(tmp);
}
