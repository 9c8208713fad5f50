// Runs a tool (strace, perf) on a castellan server and client with `cat` while N keys are typed 15-40 ms apart.
// usage: node --import tsx bench/echo-trace/with-tool.ts N OUT -- tool args...   ({S}, {C}: the server's and client's pid; {OUT}: OUT)
// e.g. ... 3 /tmp/st -- strace -f -tt -o {OUT} -p {S} -p {C}      ... 200 /tmp/ps -- perf stat -o {OUT} -p {S}
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CastellanServer } from '../lib/castellan.js';
import { closeAll } from '../lib/cleanup.js';
import { makeTmp, removeTmp, scriptEnv } from '../lib/env.js';
import { sleep, prng } from '../lib/util.js';
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = makeTmp();
const b = scriptEnv({ repo: REPO, tmp, opts: { samples: 5, cpuProf: false }, dataDir: join(REPO, 'bench', 'data'), profDir: join(REPO, 'bench', 'data', 'prof') });
const N = Number(process.argv[2]);
const out = process.argv[3];
const tool = process.argv.slice(process.argv.indexOf('--') + 1);
const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'] });
try {
  const c = await s.attach(202, 53);
  await sleep(1500);
  const args = tool.map((a) => a.replaceAll('{S}', String(s.pid)).replaceAll('{C}', String(c.pid)).replaceAll('{OUT}', out));
  const st = spawn(args[0], args.slice(1), { stdio: 'inherit' });
  await sleep(1000);
  const rnd = prng(7);
  for (let k = 0; k < N; k++) {
    if (k % 30 === 29) { c.write('\r'); await sleep(100); }
    const ch = String.fromCodePoint(0x4e10 + k);
    c.write(ch);
    await c.waitFor(ch, 2000);
    await sleep(15 + Math.floor(rnd() * 25));
  }
  // A tool that has ended already (perf stat -- true, a typo) has no exit left to wait for.
  const ended = st.exitCode !== null || st.signalCode !== null ? Promise.resolve() : new Promise((r) => st.once('exit', r));
  st.kill('SIGINT');
  await ended;
} finally {
  await s.stop();
  await closeAll();
  removeTmp(tmp);
}
