// The hook bridge rows of the footprint section on their own: the installed hook line in a real pane's environment.
//
//   node --import tsx bench/hook-bridge.mts [--calls N] [--no-snapshot] [--json FILE]
//
// Same measurement as `bench/run.ts --only footprint` (bench/lib/hook-bridge.ts), without the memory and tmux rows:
// a castellan server with one bash pane, then N alternating rounds of every series. Run `npm run build` first.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, track } from './lib/cleanup.js';
import { makeRoot, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { hookBridge } from './lib/hook-bridge.js';
import { table } from './lib/report.js';
import { round } from './lib/util.js';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const calls = Number(opt('--calls') ?? 30);
if (!Number.isInteger(calls) || calls < 1) throw new Error('--calls needs a whole number >= 1');
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = makeTmp();
track({ name: 'tmp', close: async () => removeTmp(tmp), killSync: () => removeTmp(tmp) });
try {
  const b = scriptEnv({
    repo: REPO,
    root: makeRoot(REPO, tmp, !argv.includes('--no-snapshot')),
    tmp,
    opts: { quick: false, snapshot: !argv.includes('--no-snapshot') },
    dataDir: join(tmp, 'data'),
    profDir: join(tmp, 'prof'),
  });
  const l0 = loadavg().map((x) => round(x, 2));
  const r = await hookBridge(b, 'hook', calls);
  process.stdout.write(`${cpus().length} cores, load at start ${l0.join(' ')}, at end ${loadavg().map((x) => round(x, 2)).join(' ')}; ${calls} rounds\n`);
  process.stdout.write(`timed line: sh -c ${JSON.stringify(r.raw.line)}\n`);
  process.stdout.write(table(r.rows) + '\n');
  const out = opt('--json');
  if (out) writeFileSync(out, JSON.stringify(r, null, 1));
} finally {
  await closeAll();
}
