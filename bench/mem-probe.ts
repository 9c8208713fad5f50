// Where the idle server's and the attached client's RSS is, over several runs: anon/file split and the biggest mappings.
//   node --import tsx bench/mem-probe.ts [--runs 5] [--top 12] [--client-only | --server-only] [--env K=V ...]
// Per run: a bare `node -e 'setInterval(...)'` (the floor), a server as the bench starts it (one idle bash pane, 202x53)
// read 1 s after it answered and at rest (15 s after start), then a client attached to it read 1.5 s after its first
// frame went quiet (as the footprint section does). Medians of the runs, with the load average at the start and end.
import { execFileSync, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { CastellanServer } from './lib/castellan.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { closeAll } from './lib/cleanup.js';
import { killPid, smapsByMapping } from './lib/proc.js';
import { median, sleep } from './lib/util.js';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const opt = (k: string, d: number) => (argv.includes(k) ? Number(argv[argv.indexOf(k) + 1]) : d);
const runs = opt('--runs', 5);
const top = opt('--top', 12);
const extraEnv: Record<string, string> = {};
argv.forEach((a, i) => {
  if (a === '--env') {
    const [k, ...v] = argv[i + 1].split('=');
    extraEnv[k] = v.join('=');
  }
});
const repo = new URL('..', import.meta.url).pathname;
/** --roots A,B: each run measures every root in turn (interleaved), a copy of bin/ + dist/ each (A/B of two builds). */
const roots = argv.includes('--roots') ? argv[argv.indexOf('--roots') + 1].split(',') : [repo];

type Split = { rss: number; anon: number; file: number; maps: Map<string, [number, number]> };

/** In MB, node's mappings as `node PERMS` and node_modules paths shortened, for the table. */
function smaps(pid: number): Split {
  const maps = new Map<string, [number, number]>();
  for (const [k, [r, a]] of smapsByMapping(pid)) {
    const node = /\/node (\S+)$/.exec(k);
    const name = node ? `node ${node[1]}` : k.replace(/.*\/node_modules\//, 'nm/');
    const e = maps.get(name) ?? [0, 0];
    e[0] += r / 1024;
    e[1] += a / 1024;
    maps.set(name, e);
  }
  let rss = 0;
  let anon = 0;
  for (const [r, a] of maps.values()) {
    rss += r;
    anon += a;
  }
  return { rss, anon, file: rss - anon, maps };
}


const samples: Record<string, Split[]> = {};
const probe = argv.includes('--probe') ? argv[argv.indexOf('--probe') + 1] : undefined;
/** --probe CMD: `CMD PID` runs at each reading (e.g. a per-symbol page count of the node binary), its output kept. */
const probed: string[] = [];
function note(k: string, s: Split, pid: number): void {
  (samples[k] ??= []).push(s);
  if (probe) probed.push(`--- ${k} (pid ${pid})\n` + execFileSync('sh', ['-c', `${probe} ${pid}`], { encoding: 'utf8' }));
}

async function floor(): Promise<void> {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await sleep(1500);
    note('floor (bare node)', smaps(c.pid!), c.pid!);
  } finally {
    killPid(c.pid, 'SIGKILL');
  }
}

const load0 = loadavg();
const tmp = makeTmp();
try {
  for (let r = 0; r < runs; r++) for (const root of roots) {
    const tag = roots.length > 1 ? ` [${root}]` : '';
    const b = scriptEnv({ repo, root, tmp, opts: { quick: true }, env: { ...cleanEnv(join(tmp, `home${r}-0-${roots.indexOf(root)}`)), ...extraEnv } });
    await floor();
    const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['bash', '--norc', '--noprofile'] });
    try {
      const t0 = Date.now();
      if (!argv.includes('--client-only')) {
        await sleep(1000);
        note('server 1 s' + tag, smaps(s.pid), s.pid);
        await sleep(Math.max(0, t0 + 15_000 - Date.now()));
        note('server at rest (15 s)' + tag, smaps(s.pid), s.pid);
      }
      if (!argv.includes('--server-only')) {
        const c = await s.attach(202, 53);
        await sleep(1500);
        note('client attached' + tag, smaps(c.pid), c.pid);
      }
    } finally {
      await s.stop();
    }
    process.stderr.write(`run ${r + 1}/${runs} done, load ${loadavg()[0].toFixed(2)}\n`);
  }
} finally {
  await closeAll();
  removeTmp(tmp);
}
process.stdout.write(`load average at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${runs} runs; env ${JSON.stringify(extraEnv)}\n`);
for (const p of probed) process.stdout.write(p);
for (const [k, ss] of Object.entries(samples)) {
  const f = (x: number) => x.toFixed(1);
  process.stdout.write(`\n${k}: RSS median ${f(median(ss.map((s) => s.rss)))} MB [${ss.map((s) => f(s.rss)).join(' ')}], anon ${f(median(ss.map((s) => s.anon)))} [${ss.map((s) => f(s.anon)).join(' ')}], file ${f(median(ss.map((s) => s.file)))} [${ss.map((s) => f(s.file)).join(' ')}]\n`);
  const names = new Set(ss.flatMap((s) => [...s.maps.keys()]));
  const rows = [...names].map((n) => [n, median(ss.map((s) => s.maps.get(n)?.[0] ?? 0)), median(ss.map((s) => s.maps.get(n)?.[1] ?? 0))] as const).sort((a, b) => b[1] - a[1]);
  for (const [n, r, a] of rows.slice(0, top)) process.stdout.write(`  ${r.toFixed(2).padStart(6)} rss ${a.toFixed(2).padStart(6)} anon  ${n}\n`);
}
