// Server CPU to take the bench's 50 MB ANSI file into one 200x50 pane, no client: A/B of Node flags, interleaved.
//   node --import tsx bench/ingest-cpu.ts --runs 4 --variants "" "--max-semi-space-size=4"
// Prints per variant the server CPU ms and wall ms of each run (trigger to marker on screen) and their medians.
// A variant is the server's whole set of Node flags ("" is Node's defaults, not the daemon's).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ansiFile } from './lib/data.js';
import { CastellanServer } from './lib/castellan.js';
import { makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { cpuTicksMs } from './lib/proc.js';
import { median, shq, sleep, waitUntil } from './lib/util.js';

const argv = process.argv.slice(2);
const runs = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 4;
const variants = argv.includes('--variants') ? argv.slice(argv.indexOf('--variants') + 1) : ['', '--max-semi-space-size=4'];
const repo = new URL('..', import.meta.url).pathname;
const file = ansiFile(join(repo, 'bench', 'data'), 50 * 1024 * 1024);

async function once(flags: string[]): Promise<[number, number]> {
  const tmp = makeTmp();
  const script = `read _; cat ${shq(file)}; printf '\\n%s%s\\n' INGEST- DONE; exec sleep 100000`;
  const s = await CastellanServer.start(scriptEnv({ repo, tmp, file }), { cols: 202, rows: 53, command: ['sh', '-c', script], nodeFlags: flags });
  try {
    await sleep(1000);
    const c0 = cpuTicksMs(s.pid);
    const t0 = Date.now();
    await s.api.request('pane.send_text', { pane_id: 'w1:p1', text: '\r' });
    await waitUntil(async () => (await s.api.request<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('INGEST-DONE'), 'ingest', 120_000, 20);
    return [cpuTicksMs(s.pid) - c0, Date.now() - t0];
  } finally {
    await s.stop();
    removeTmp(tmp);
  }
}

const res = new Map<string, Array<[number, number]>>(variants.map((v) => [v, []]));
const load0 = loadavg()[0];
for (let i = 0; i < runs; i++) for (const v of variants) res.get(v)!.push(await once(v.split(/\s+/).filter(Boolean)));
for (const [v, xs] of res) console.log(JSON.stringify({ flags: v || '(default)', cpuMs: xs.map((x) => x[0]), wallMs: xs.map((x) => x[1]), medCpu: median(xs.map((x) => x[0])), medWall: median(xs.map((x) => x[1])) }));
console.log(`load ${load0.toFixed(2)} -> ${loadavg()[0].toFixed(2)}`);
