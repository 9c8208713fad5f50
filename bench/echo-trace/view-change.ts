// What a view change (here a pane rename: any title, badge, focus or layout change is one) costs the echo of a key typed right behind it.
// usage: node --import tsx bench/echo-trace/view-change.ts [--n 15] [--prof]  (--prof: the client's .cpuprofile in bench/data/prof/)
// The client redraws its whole chrome with Ink for every frame that carries a view (src/client/app.ts renderChrome);
// a key typed meanwhile waits in its stdin. Prints, per change, when the new name was on the terminal and when the key's echo was.
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CastellanServer } from '../lib/castellan.js';
import { closeAll } from '../lib/cleanup.js';
import { makeTmp, removeTmp, scriptEnv } from '../lib/env.js';
import { median, sleep } from '../lib/util.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const prof = process.argv.includes('--prof');
const N = Number(process.argv[process.argv.indexOf('--n') + 1]) || 15;
const tmp = makeTmp();
const b = scriptEnv({ repo: REPO, tmp, opts: { samples: N, cpuProf: false }, dataDir: join(REPO, 'bench', 'data'), profDir: join(REPO, 'bench', 'data', 'prof') });
const hr = () => Number(process.hrtime.bigint()) / 1e6;
const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'] });
const name: number[] = [];
const key: number[] = [];
try {
  const c = await s.attach(202, 53, { profile: prof });
  await sleep(500);
  for (let i = 0; i < N; i++) {
    const nm = `nm${i}x`;
    const ch = String.fromCodePoint(0x4e10 + i);
    const t0 = hr();
    const seenName = c.waitFor(nm, 3000).then(() => hr() - t0);
    const seenKey = c.waitFor(ch, 3000).then(() => hr() - t0);
    void s.api.request('pane.rename', { pane_id: 'w1:p1', name: nm });
    await sleep(2);
    const k0 = hr() - t0;
    c.write(ch);
    name.push(await seenName);
    key.push((await seenKey) - k0);
    await sleep(300);
  }
} finally {
  await s.stop();
  await closeAll();
  removeTmp(tmp);
}
process.stdout.write(`rename on the terminal, ms: ${name.map((x) => x.toFixed(1)).join(' ')} (median ${median(name).toFixed(1)})\n`);
process.stdout.write(`echo of a key typed 2 ms after it, ms: ${key.map((x) => x.toFixed(1)).join(' ')} (median ${median(key).toFixed(1)})\n`);
