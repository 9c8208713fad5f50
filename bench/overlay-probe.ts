// The attached client's start and first overlay, over several runs: spawn to first frame, and prefix ? to the help drawn (first and second time).
//   node --import tsx bench/overlay-probe.ts [--runs 5] [--roots A,B]
// Per run, for each root in turn (interleaved, as mem-probe's --roots: a copy of bin/ + dist/ each): a server as the
// bench starts it (one idle bash pane, 202x53), a client attached to it (spawn to its first synchronized frame), its
// RSS 1.5 s after that frame went quiet, then `C-b ?` to the help's title in the client's output (cold: the first
// overlay of the client's life; warm: the same again after q), and its RSS 1.5 s after the help was closed; then, in
// the help once more, `/` and "split" typed one key at a time, each timed from the key to its filter drawn (the
// run's median of the 5 keys; every key redraws the whole help).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CastellanServer } from './lib/castellan.js';
import { closeAll } from './lib/cleanup.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { memKiB } from './lib/proc.js';
import { median, now, sleep } from './lib/util.js';

const argv = process.argv.slice(2);
const runs = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 5;
const repo = new URL('..', import.meta.url).pathname;
const roots = argv.includes('--roots') ? argv[argv.indexOf('--roots') + 1].split(',') : [repo];
const HELP = 'castellan keys';

const samples = new Map<string, Record<string, number[]>>();
function note(root: string, k: string, v: number): void {
  const r = samples.get(root) ?? {};
  (r[k] ??= []).push(v);
  samples.set(root, r);
}

const load0 = loadavg();
const tmp = makeTmp();
try {
  for (let r = 0; r < runs; r++) for (const root of roots) {
    const b = scriptEnv({ repo, root, tmp, opts: { quick: true }, env: cleanEnv(join(tmp, `home${r}-${roots.indexOf(root)}`)) });
    const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['bash', '--norc', '--noprofile'] });
    try {
      const c = await s.attach(202, 53);
      note(root, 'attach: spawn to first frame (ms)', c.firstFrameAt - c.startedAt);
      await sleep(1500);
      const m0 = memKiB(c.pid);
      note(root, 'RSS 1.5 s after attach (MB)', m0.rssKiB / 1024);
      note(root, '  from files (MB)', m0.fileKiB / 1024);
      note(root, '  anonymous (MB)', (m0.rssKiB - m0.fileKiB) / 1024);
      for (const which of ['cold', 'warm']) {
        const shown = c.waitFor(HELP, 10_000);
        const t0 = now();
        c.write('\x02?');
        note(root, `help open, ${which} (ms)`, (await shown) - t0);
        await c.settle(200, 3000);
        c.write('q');
        await c.settle(300, 3000);
      }
      await sleep(1500);
      const m1 = memKiB(c.pid);
      note(root, 'RSS 1.5 s after the help closed (MB)', m1.rssKiB / 1024);
      const again = c.waitFor(HELP, 10_000);
      c.write('\x02?');
      await again;
      await c.settle(200, 3000);
      const filtering = c.waitFor('filter: \u2588', 10_000);
      c.write('/');
      await filtering;
      await c.settle(200, 3000);
      const keys: number[] = [];
      let typed = '';
      for (const k of 'split') {
        typed += k;
        const drawn = c.waitFor(`filter: ${typed}\u2588`, 10_000);
        const t0 = now();
        c.write(k);
        keys.push((await drawn) - t0);
        await c.settle(100, 2000);
      }
      note(root, 'help filter, per key (ms)', median(keys));
      // Apart: ESC and q in one write would be read as M-q.
      c.write('\x1b');
      await c.settle(100, 2000);
      c.write('q');
      await c.settle(200, 3000);
    } finally {
      await s.stop();
    }
    process.stderr.write(`run ${r + 1}/${runs} [${root}] done, load ${loadavg()[0].toFixed(2)}\n`);
  }
} finally {
  await closeAll();
  removeTmp(tmp);
}
process.stdout.write(`load average at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${runs} runs\n`);
for (const [root, ks] of samples) {
  process.stdout.write(`\n${root}\n`);
  for (const [k, xs] of Object.entries(ks)) process.stdout.write(`  ${k.padEnd(38)} median ${median(xs).toFixed(1).padStart(7)}  [${xs.map((x) => x.toFixed(1)).join(' ')}]\n`);
}
