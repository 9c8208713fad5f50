// Where a server's RSS is in the seconds after a fill, the memory section's steps (1 pane, fill, 3 more, fill them).
//   node --import tsx bench/fill-tail.ts [--flags "--trace-gc --import PROBE.mjs"] [--rest 15]
// Prints RSS/anon at the section's readings (1.4 s after each step and `--rest` s after) as JSON, and keeps the
// server's log (GC traces, a probe's output) in the file it names.
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ansiFile } from './lib/data.js';
import { cleanEnv, makeTmp, removeTmp } from './lib/env.js';
import { Ndjson } from './lib/ndjson.js';
import { killPid, memKiB } from './lib/proc.js';
import { round, shq, sleep, waitUntil } from './lib/util.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const flags = opt('--flags', '').split(/\s+/).filter(Boolean);
const REST = Number(opt('--rest', '15'));
const keep = opt('--log', '/tmp/fill-tail.log');
const repo = new URL('..', import.meta.url).pathname;
const file = ansiFile(join(repo, 'bench', 'data'), 50 * 1024 * 1024);
const tmp = makeTmp();
const home = join(tmp, 'h');
mkdirSync(home, { recursive: true });
const socket = join(home, 's.sock');
const passed = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CASTELLAN_SERVER_') || k === 'PROBE_OUT'));
const env = { ...cleanEnv(home), CASTELLAN_SOCKET: socket, ...passed };
const logFile = join(home, 'server.out');
const fd = openSync(logFile, 'a');
const script = (tag: string) => `read _; head -n 12000 ${shq(file)}; printf '%s%s\\n' FILL-DONE- ${tag}; exec sleep 100000`;
const child = spawn(process.execPath, [...flags, join(repo, 'bin', 'castellan.js'), 'server', 'start', '--foreground', '--cols', '202', '--rows', '53', '--', 'sh', '-c', script('p1')], { cwd: home, env, stdio: ['ignore', fd, fd], detached: true });
closeSync(fd);
const mb = (k: number) => round(k / 1024, 1);
const read = () => {
  const m = memKiB(child.pid!);
  return { rss: mb(m.rssKiB), anon: mb(m.rssKiB - m.fileKiB), t: Date.now() };
};
try {
  const api = await waitUntil(() => Ndjson.connect(socket, 500).catch(() => undefined), 'socket', 15_000, 50);
  const out: Record<string, unknown> = {};
  const step = async (name: string) => {
    const t0 = Date.now();
    await sleep(1400);
    out[name] = read();
    await sleep(Math.max(0, t0 + REST * 1000 - Date.now()));
    out[`${name}@rest`] = read();
  };
  const fill = async (panes: Array<[string, string]>) => {
    for (const [id] of panes) await api.request('pane.send_text', { pane_id: id, text: '\r' });
    for (const [id, tag] of panes) await waitUntil(async () => (await api.request<{ text: string }>('pane.read', { pane_id: id })).text.includes(`FILL-DONE-${tag}`), 'fill', 60_000, 100);
    out[`filled-${panes.length}`] = Date.now();
  };
  await step('base1');
  await fill([['w1:p1', 'p1']]);
  await step('filled1');
  const more: Array<[string, string]> = [];
  for (let i = 0; i < 3; i++) {
    const r = await api.request<{ pane_id: string }>('window.new', { command: ['sh', '-c', script(`p${i + 2}`)], focus: false });
    more.push([r.pane_id, `p${i + 2}`]);
  }
  await step('base4');
  await fill(more);
  await step('filled4');
  process.stdout.write(JSON.stringify(out) + '\n');
  api.close();
} finally {
  killPid(child.pid, 'SIGTERM');
  await sleep(1500);
  killPid(child.pid, 'SIGKILL');
  copyFileSync(logFile, keep);
  removeTmp(tmp);
}
