// One castellan run of the dense-colour memory row with a probe in the server (--import PROBE.mjs writing memoryUsage
// and heap spaces to PROBE_OUT): where the server's memory is after the fill. Prints the fill's end time.
//   PROBE_OUT=/tmp/x.out node --import tsx bench/mem-dense-probe.ts PROBE.mjs [--panes 4] [--root DIR] [--kind dense]
import { join } from 'node:path';
import { closeAll } from './lib/cleanup.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { castellanRun, textFile, type Kind } from './sections/memory-dense.js';
import { serverNodeFlags } from '../src/server/node-flags.js';

const argv = process.argv.slice(2);
const opt = (k: string, d: string) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const repo = new URL('..', import.meta.url).pathname;
const tmp = makeTmp();
try {
  const kind = opt('--kind', 'dense') as Kind;
  const file = textFile(join(repo, 'bench', 'data'), kind);
  const b = scriptEnv({ repo, root: opt('--root', repo), tmp, env: { ...cleanEnv(join(tmp, 'home')), PROBE_OUT: process.env.PROBE_OUT ?? '/tmp/probe.out' } });
  const r = await castellanRun(b, file, kind, Number(opt('--panes', '4')), [...serverNodeFlags(process.env), '--import', argv[0]]);
  process.stdout.write(JSON.stringify(r) + '\n');
} finally {
  await closeAll();
  removeTmp(tmp);
}
