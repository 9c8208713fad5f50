// Issue 34's memory rows outside the full bench: N panes filled with dense colour or plain text, castellan (server +
// client) against tmux (server + client), readings 3 s and 15 s after the fill (sections/memory-dense.ts).
//   node --import tsx bench/mem-dense.ts [--panes 4,64] [--kinds dense,plain] [--runs 3] [--roots A,B] [--no-tmux]
// Runs interleave (per run: each root's castellan, then tmux); prints each run and the medians. --roots A,B measures
// two builds (each a directory with bin/ and dist/) in the same run.
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { closeAll } from './lib/cleanup.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { median, round } from './lib/util.js';
import { castellanRun, textFile, tmuxRun, type DenseRun, type Kind } from './sections/memory-dense.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const paneCounts = opt('--panes', '4').split(',').map(Number);
const kinds = opt('--kinds', 'dense').split(',') as Kind[];
const runs = Number(opt('--runs', '1'));
const repo = new URL('..', import.meta.url).pathname;
const roots = argv.includes('--roots') ? opt('--roots', '').split(',') : [repo];
const tmp = makeTmp();
const load0 = loadavg();
const all: Record<string, DenseRun[]> = {};
try {
  for (let r = 0; r < runs; r++) for (const kind of kinds) for (const panes of paneCounts) {
    const file = textFile(join(repo, 'bench', 'data'), kind);
    for (const root of roots) {
      const b = scriptEnv({ repo, root, tmp, env: cleanEnv(join(tmp, `home-${r}-${kind}-${panes}`)) });
      const c = await castellanRun(b, file, kind, panes);
      process.stdout.write(`castellan${roots.length > 1 ? ` [${root}]` : ''} ${JSON.stringify(c)}\n`);
      (all[`${kind} ${panes} castellan ${root}`] ??= []).push(c);
    }
    if (!argv.includes('--no-tmux')) {
      const t = await tmuxRun(scriptEnv({ repo, tmp, env: cleanEnv(join(tmp, `home-t-${r}-${kind}-${panes}`)) }), file, kind, panes);
      process.stdout.write(`tmux ${JSON.stringify(t)}\n`);
      (all[`${kind} ${panes} tmux`] ??= []).push(t);
    }
  }
} finally {
  await closeAll();
  removeTmp(tmp);
}
process.stdout.write(`\nload at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${runs} run(s)\n`);
for (const [k, xs] of Object.entries(all)) {
  const m = (f: (x: DenseRun) => number) => `${round(median(xs.map(f)), 1)} [${xs.map((x) => round(f(x), 1)).join(' ')}]`;
  const per = (x: DenseRun, w: 'soon' | 'rest') => (x[w].total - x.base.total) / x.panes;
  process.stdout.write(`${k}: total base ${m((x) => x.base.total)}, 3 s ${m((x) => x.soon.total)}, rest ${m((x) => x.rest.total)}; ` +
    `per pane 3 s ${m((x) => per(x, 'soon'))}, rest ${m((x) => per(x, 'rest'))}; server rest ${m((x) => x.rest.server)}, client rest ${m((x) => x.rest.client)}\n`);
}
