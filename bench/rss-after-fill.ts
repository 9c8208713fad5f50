// A server's RSS over time after its first pane fills: is V8's grown young generation given back, and when?
//   node --import tsx bench/rss-after-fill.ts [--at 1,3,10,30,60] [--flags "--trace-gc"] [--lines 12000]
// Prints one JSON line (RSS and anonymous MB at each second given, counted from the fill's end; the server's CPU
// over that time); with --trace-* flags, the last GC lines of the server's log. CASTELLAN_SERVER_YOUNG_GEN=default
// (passed through) leaves V8's schedule alone, to compare (src/server/young-gen-shrink.ts).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ansiFile } from './lib/data.js';
import { cleanEnv, makeTmp, removeTmp } from './lib/env.js';
import { Ndjson } from './lib/ndjson.js';
import { cpuTicksMs, killPid, memKiB, rssKiB } from './lib/proc.js';
import { round, shq, sleep, waitUntil } from './lib/util.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const flags = opt('--flags', '').split(/\s+/).filter(Boolean);
const at = opt('--at', '1,3,10,30,60').split(',').map(Number);
const LINES = Number(opt('--lines', '12000'));
const repo = new URL('..', import.meta.url).pathname;
const file = ansiFile(join(repo, 'bench', 'data'), 50 * 1024 * 1024);
const tmp = makeTmp();
const home = join(tmp, 'h');
mkdirSync(home, { recursive: true });
const socket = join(home, 's.sock');
const env = { ...cleanEnv(home), CASTELLAN_SOCKET: socket, ...(process.env.CASTELLAN_SERVER_YOUNG_GEN ? { CASTELLAN_SERVER_YOUNG_GEN: process.env.CASTELLAN_SERVER_YOUNG_GEN } : {}) };
const logFile = join(home, 'server.out');
const fd = openSync(logFile, 'a');
const script = `read _; head -n ${LINES} ${shq(file)}; printf '%s\\n' FILL-DONE; exec sleep 100000`;
const child = spawn(process.execPath, [...flags, join(repo, 'bin', 'castellan.js'), 'server', 'start', '--foreground', '--cols', '202', '--rows', '53', '--', 'sh', '-c', script], { cwd: home, env, stdio: ['ignore', fd, fd], detached: true });
closeSync(fd);
const anon = (pid: number) => {
  const m = memKiB(pid);
  return m.rssKiB - m.fileKiB;
};
try {
  const api = await waitUntil(() => Ndjson.connect(socket, 500).catch(() => undefined), 'socket', 15_000, 50);
  await sleep(1500);
  const pid = child.pid!;
  const base = rssKiB(pid) / 1024;
  await api.request('pane.send_text', { pane_id: 'w1:p1', text: '\r' });
  const t0 = Date.now();
  await waitUntil(async () => (await api.request<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('FILL-DONE'), 'fill', 60_000, 100);
  const tDone = Date.now();
  const cpuDone = cpuTicksMs(pid);
  const out: Record<string, number> = { base: round(base, 1), fillMs: tDone - t0 };
  for (const s of at) {
    await sleep(Math.max(0, tDone + s * 1000 - Date.now()));
    out[`rss@${s}s`] = round(rssKiB(pid) / 1024, 1);
    out[`anon@${s}s`] = round(anon(pid) / 1024, 1);
  }
  out.cpuAfterDoneMs = cpuTicksMs(pid) - cpuDone;
  process.stdout.write(JSON.stringify(out) + '\n');
  api.close();
} finally {
  killPid(child.pid, 'SIGTERM');
  await sleep(1500);
  killPid(child.pid, 'SIGKILL');
  if (flags.some((f) => f.startsWith('--trace'))) process.stdout.write(readFileSync(logFile, 'utf8').split('\n').filter((l) => /Scavenge|Mark|reducer/i.test(l)).slice(-14).join('\n') + '\n');
  removeTmp(tmp);
}
