// A server's RSS over time after its first pane fills: is V8's grown young generation given back, and when?
//   node --import tsx bench/rss-after-fill.ts [--at 1,3,10,30,60] [--flags "--trace-gc"] [--lines 12000]
// Prints one JSON line (RSS and anonymous MB at each second given, counted from the fill's end; the server's CPU
// over that time); with --trace-* flags, the last GC lines of the server's log. CASTELLAN_SERVER_YOUNG_GEN=default
// (passed through) leaves V8's schedule alone, to compare (src/server/young-gen-shrink.ts). Without --flags the server
// runs the daemon's flags.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ansiFile } from './lib/data.js';
import { CastellanServer } from './lib/castellan.js';
import { makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { cpuTicksMs, memKiB, rssKiB } from './lib/proc.js';
import { round, shq, sleep, waitUntil } from './lib/util.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string | undefined) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const flags = opt('--flags', undefined)?.split(/\s+/).filter(Boolean);
const at = opt('--at', '1,3,10,30,60')!.split(',').map(Number);
const LINES = Number(opt('--lines', '12000'));
const repo = new URL('..', import.meta.url).pathname;
const file = ansiFile(join(repo, 'bench', 'data'), 50 * 1024 * 1024);
const tmp = makeTmp();
const script = `read _; head -n ${LINES} ${shq(file)}; printf '%s\\n' FILL-DONE; exec sleep 100000`;
const s = await CastellanServer.start(scriptEnv({ repo, tmp, file }), { cols: 202, rows: 53, command: ['sh', '-c', script], nodeFlags: flags });
const anon = (pid: number) => {
  const m = memKiB(pid);
  return m.rssKiB - m.fileKiB;
};
try {
  await sleep(1500);
  const pid = s.pid;
  const base = rssKiB(pid) / 1024;
  await s.api.request('pane.send_text', { pane_id: 'w1:p1', text: '\r' });
  const t0 = Date.now();
  await waitUntil(async () => (await s.api.request<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('FILL-DONE'), 'fill', 60_000, 100);
  const tDone = Date.now();
  const cpuDone = cpuTicksMs(pid);
  const out: Record<string, number> = { base: round(base, 1), fillMs: tDone - t0 };
  for (const sec of at) {
    await sleep(Math.max(0, tDone + sec * 1000 - Date.now()));
    out[`rss@${sec}s`] = round(rssKiB(pid) / 1024, 1);
    out[`anon@${sec}s`] = round(anon(pid) / 1024, 1);
  }
  out.cpuAfterDoneMs = cpuTicksMs(pid) - cpuDone;
  process.stdout.write(JSON.stringify(out) + '\n');
} finally {
  await s.stop();
  if (flags?.some((f) => f.startsWith('--trace'))) process.stdout.write(readFileSync(s.logFile, 'utf8').split('\n').filter((l) => /Scavenge|Mark|reducer/i.test(l)).slice(-14).join('\n') + '\n');
  removeTmp(tmp);
}
