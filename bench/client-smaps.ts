// Where an attached client's RSS is: /proc/PID/smaps summed by mapping (file pages per file, anonymous by kind).
//   node --import tsx bench/client-smaps.ts [--top 25] [--flood FILE] [-- node flags for the client, e.g. --no-opt]
// --flood: also the RSS ~10 s after attach, then 3 s after the pane prints 20 MB of FILE, and the client's CPU in it.
// The clean environment (bench/lib/env.ts) passes CASTELLAN_CLIENT_OPTIMIZER and CASTELLAN_SERVER_YOUNG_GEN through.
import { join } from 'node:path';
import { CastellanServer } from './lib/castellan.js';
import { makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { closeAll } from './lib/cleanup.js';
import { TermClient } from './lib/term-client.js';
import { sleep, waitUntil } from './lib/util.js';
import { cpuMs, smapsByMapping } from './lib/proc.js';

const argv = process.argv.slice(2);
const top = argv.includes('--top') ? Number(argv[argv.indexOf('--top') + 1]) : 25;
const flood = argv.includes('--flood') ? argv[argv.indexOf('--flood') + 1] : undefined;
const clientFlags = argv.includes('--') ? argv.slice(argv.indexOf('--') + 1) : [];
const repo = new URL('..', import.meta.url).pathname;
const tmp = makeTmp();
const b = scriptEnv({ repo, tmp, opts: { quick: true } });

/** By mapping, biggest first: [name, Rss KiB, Anonymous KiB]. */
function bySmaps(pid: number): Array<[string, number, number]> {
  return [...smapsByMapping(pid)].map(([k, [r, a]]) => [k, r, a] as [string, number, number]).sort((x, y) => y[1] - x[1]);
}

try {
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['bash', '--norc', '--noprofile'] });
  // As CastellanServer.attach does, with the client's Node flags in front of the bin.
  const env = { ...b.env, HOME: s.home, XDG_STATE_HOME: join(s.home, 'state'), XDG_CONFIG_HOME: join(s.home, 'config'), CASTELLAN_SOCKET: s.socket };
  const c = new TermClient(process.execPath, [...clientFlags, join(repo, 'bin', 'castellan.js')], { cols: 202, rows: 53, env, cwd: s.home });
  s.clients.push(c);
  await waitUntil(() => c.syncFrames > 0 || c.exitCode !== undefined, 'the client to draw', 15_000);
  await c.settle(300, 4000);
  await sleep(1500);
  const total = () => bySmaps(c.pid).reduce((a, r) => a + r[1], 0) / 1024;
  if (flood) {
    // RSS later at idle, then after the pane floods (as the user's client sees a cat of 20 MB).
    await sleep(8000);
    const idle10 = total();
    const cpu0 = cpuMs(c.pid);
    const w0 = Date.now();
    await s.api.request('pane.send_text', { pane_id: 'w1:p1', text: `head -c 20000000 ${flood}; echo FLOOD-END\r` });
    await waitUntil(async () => (await s.api.request<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.split('FLOOD-END').length > 2, 'the flood (its marker echoed, then printed)', 120_000, 200);
    const floodCpu = cpuMs(c.pid) - cpu0;
    const floodMs = Date.now() - w0;
    await sleep(3000);
    process.stdout.write(`client RSS ~10 s after attach ${idle10.toFixed(1)} MB; 3 s after a 20 MB flood ${total().toFixed(1)} MB; client CPU in the flood ${floodCpu.toFixed(0)} ms over ${floodMs} ms\n`);
  }
  const rows = bySmaps(c.pid);
  const tot = rows.reduce((a, r) => [a[0] + r[1], a[1] + r[2]], [0, 0]);
  process.stdout.write(`client RSS ${(tot[0] / 1024).toFixed(1)} MB, anonymous ${(tot[1] / 1024).toFixed(1)} MB\n`);
  for (const [n, r, a] of rows.slice(0, top)) process.stdout.write(`${(r / 1024).toFixed(2).padStart(7)} MB rss ${(a / 1024).toFixed(2).padStart(7)} anon  ${n}\n`);
} finally {
  await closeAll();
  removeTmp(tmp);
}
