// Echo timeline across bench, client and server: per-hop medians from hrtime stamps (apply stamps.patch and build first; see README.md).
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CastellanServer } from '../lib/castellan.js';
import { closeAll } from '../lib/cleanup.js';
import { ansiFile } from '../lib/data.js';
import { cleanEnv, makeTmp, removeTmp, scriptEnv } from '../lib/env.js';
import { prng, sleep } from '../lib/util.js';
import { cpuMs } from '../lib/proc.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(BENCH, '..', '..');
const flood = process.argv.includes('--flood');
const rootArg = process.argv.indexOf('--root');
const ROOT = rootArg > 0 ? process.argv[rootArg + 1] : REPO;
const keepArg = process.argv.indexOf('--keep');
const N = Number(process.argv[process.argv.indexOf('--n') + 1]) || 150;
const tmp = makeTmp();
const traceDir = join(tmp, 'trace');
mkdirSync(traceDir);
const env = { ...cleanEnv(join(tmp, 'home')), CASTELLAN_ECHO_TRACE: join(traceDir, 't') };
const file = ansiFile(join(REPO, 'bench', 'data'), 50 * 1024 * 1024);
const b = scriptEnv({ repo: REPO, root: ROOT, tmp, opts: { samples: N, cpuProf: false }, dataDir: join(REPO, 'bench', 'data'), profDir: join(REPO, 'bench', 'data', 'prof'), file, env });
const hr = () => process.hrtime.bigint();
let cpuPerKey = { s: 0, c: 0 };
let idleMsPerS = { s: 0, c: 0 };
let typingS = 0;
/** CPU ms per thread (by name: main, libuv workers, V8 helpers) before and after typing. */
const threadMs = (pid: number): Map<string, number> => {
  const m = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const key = tid === String(pid) ? 'main' : name === 'node' ? 'other' : name;
      m.set(key, (m.get(key) ?? 0) + ns / 1e6);
    } catch {}
  }
  return m;
};
let threads0 = { s: new Map<string, number>(), c: new Map<string, number>() };
let threads1 = threads0;
const keys: Array<{ t0: bigint; t1: bigint }> = [];
const prof = process.argv.includes('--prof');
const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: ['cat'], profile: prof });
try {
  if (flood) await s.api.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['sh', '-c', 'while :; do cat "$0"; done', file], focus: false });
  const c = await s.attach(202, 53, { profile: prof });
  await sleep(flood ? 1000 : 300);
  // What the processes burn with no key at all, over as long as the typing takes: "per key" figures include it.
  const idle0 = { s: cpuMs(s.pid), c: cpuMs(c.pid), t: Date.now() };
  await sleep(2000);
  idleMsPerS = { s: (cpuMs(s.pid) - idle0.s) / ((Date.now() - idle0.t) / 1000), c: (cpuMs(c.pid) - idle0.c) / ((Date.now() - idle0.t) / 1000) };
  const cpu0 = { s: cpuMs(s.pid), c: cpuMs(c.pid) };
  threads0 = { s: threadMs(s.pid), c: threadMs(c.pid) };
  const typing0 = Date.now();
  const rnd = prng(7);
  let code = 0x4e00, onLine = 0;
  for (let k = 0; k < N; k++) {
    if (onLine >= 30) { c.write('\r'); onLine = 0; await sleep(100); }
    do code++; while ([0x65e5, 0x672c, 0x8a9e].includes(code));
    const ch = String.fromCodePoint(code);
    let t1 = 0n;
    const seen = c.waitFor(ch, 2000).then(() => (t1 = hr()));
    const t0 = hr();
    c.write(ch);
    await seen;
    onLine++;
    keys.push({ t0, t1 });
    await sleep(15 + Math.floor(rnd() * 25));
  }
  cpuPerKey = { s: (cpuMs(s.pid) - cpu0.s) / N, c: (cpuMs(c.pid) - cpu0.c) / N };
  typingS = (Date.now() - typing0) / 1000;
  threads1 = { s: threadMs(s.pid), c: threadMs(c.pid) };
  await sleep(700);
} finally {
  await s.stop();
  await closeAll();
}
// Per process: stamps; for each key, the first stamp of each label inside [t0, t1].
const events: Array<{ t: bigint; l: string }> = [];
for (const f of readdirSync(traceDir)) {
  const text = readFileSync(join(traceDir, f), 'utf8');
  // gc stamps carry no process: tag them with the process whose file they are in.
  const who = text.includes(' s.') ? 'S' : 'C';
  for (const line of text.split('\n')) {
    if (!line) continue;
    const sp = line.indexOf(' ');
    const l = line.slice(sp + 1).replace(/ \d+$/, '');
    events.push({ t: BigInt(line.slice(0, sp)), l: l.startsWith('gc') ? `${who}.${l}` : l });
  }
}
events.sort((a, b) => (a.t < b.t ? -1 : 1));
const order = ['c.stdin', 'c.parsed', 'c.routed', 'c.sent', 'c.input-done', 's.sock', 's.line', 's.d.shape', 's.d.json', 's.d.req', 's.d.params', 's.d.handler', 's.input', 's.ptywrote', 's.pty w1:p1', 's.pushed w1:p1', 's.urgent', 's.built', 's.sent u', 'c.sock', 'c.json', 'c.onframe', 'c.painted'];
const per: Record<string, number[]> = {};
/** Each hop's times with the index of their key in per.TOTAL. */
const perKey: Record<string, Array<[number, number]>> = {};
for (const k of keys) {
  if (!k.t1) continue;
  const firsts: Record<string, bigint> = {};
  for (const e of events) {
    if (e.t < k.t0 || e.t > k.t1) continue;
    if (order.includes(e.l) && firsts[e.l] === undefined) firsts[e.l] = e.t;
  }
  let prev = k.t0, prevL = 'bench.write';
  for (const l of [...order, 'bench.seen']) {
    const t = l === 'bench.seen' ? k.t1 : firsts[l];
    if (t === undefined) continue;
    (per[`${prevL} -> ${l}`] ??= []).push(Number(t - prev) / 1e6);
    (perKey[`${prevL} -> ${l}`] ??= []).push([(per['TOTAL'] ?? []).length, Number(t - prev) / 1e6]);
    prev = t; prevL = l;
  }
  (per['TOTAL'] ??= []).push(Number(k.t1 - k.t0) / 1e6);
}
// Which frame carried each echo: the first flush after its pane's read (stamped builds only).
const carried = { u: 0, t: 0 };
for (const k of keys) {
  if (!k.t1) continue;
  let read = false;
  for (const e of events) {
    if (e.t < k.t0 || e.t > k.t1) continue;
    if (e.l === 's.pushed w1:p1') read = true;
    else if (read && e.l.startsWith('s.flush ')) {
      carried[e.l.endsWith('u') ? 'u' : 't']++;
      break;
    }
  }
}
if (carried.u + carried.t) console.log(`echo frames: ${carried.u} urgent, ${carried.t} on the tick`);
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const p90 = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length * 0.9)]; };
// The same hops for the slowest 10 % of keys only (mean ms): where their extra time is.
{
  const total = per['TOTAL'] ?? [];
  const cut = [...total].sort((a, b) => b - a)[Math.max(0, Math.round(total.length / 10) - 1)];
  const slowHops: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(perKey)) if (k !== 'TOTAL') for (const [i, x] of v) if (total[i] >= cut) (slowHops[k] ??= []).push(x);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  if (total.length) console.log(`slowest 10 % (>= ${cut.toFixed(2)} ms), mean per hop: ${Object.entries(slowHops).filter(([, v]) => mean(v) >= 0.1).map(([k, v]) => `${k} ${mean(v).toFixed(2)} (n=${v.length})`).join('; ')}`);
}
for (const [k, v] of Object.entries(per)) console.log(`${k.padEnd(40)} n=${String(v.length).padStart(4)} median ${med(v).toFixed(3)} p90 ${p90(v).toFixed(3)} ms`);
// GC pauses while typing (stamped builds only): how many, how long.
for (const w of ['S', 'C']) {
  const d: number[] = [];
  let open: bigint | undefined;
  for (const e of events) {
    if (keys.length && (e.t < keys[0].t0 || e.t > keys[keys.length - 1].t1)) continue;
    if (e.l === `${w}.gc`) open = e.t;
    else if (e.l === `${w}.gc-end` && open !== undefined) (d.push(Number(e.t - open) / 1e6), (open = undefined));
  }
  if (d.length) console.log(`gc ${w === 'S' ? 'server' : 'client'}: ${d.length} pauses while typing, median ${med(d).toFixed(3)} p90 ${p90(d).toFixed(3)} max ${Math.max(...d).toFixed(3)} ms`);
}
// What keys waited behind on the server (stamped builds only): per block kind, the mean ms of it overlapping each key's
// server span (client sent -> echo frame sent), for all keys and for the slowest 10 %; "span" is the span itself.
{
  const blocks: Array<{ kind: string; a: bigint; b: bigint }> = [];
  const open: Record<string, bigint> = {};
  const pairs: Record<string, [string, string]> = { gc: ['S.gc', 'S.gc-end'], turn: ['s.turn', 's.turn-end'], detect: ['s.detect', 's.detect-end'], tick: ['s.flush t', 's.sent t'] };
  for (const e of events) {
    for (const [kind, [a, b]] of Object.entries(pairs)) {
      if (e.l === a) open[kind] = e.t;
      else if (e.l === b && open[kind] !== undefined) {
        blocks.push({ kind, a: open[kind], b: e.t });
        delete open[kind];
      }
    }
  }
  const spans: Array<{ total: number; a: bigint; b: bigint }> = [];
  for (const k of keys) {
    if (!k.t1) continue;
    let a: bigint | undefined, b: bigint | undefined;
    for (const e of events) {
      if (e.t < k.t0 || e.t > k.t1) continue;
      if (a === undefined && e.l === 'c.sent') a = e.t;
      if (a !== undefined && e.l === 's.sent u') { b = e.t; break; }
    }
    if (a !== undefined && b !== undefined) spans.push({ total: Number(k.t1 - k.t0) / 1e6, a, b });
  }
  const blame = (set: typeof spans) => {
    const sum: Record<string, number> = { span: 0 };
    for (const s of set) {
      sum.span += Number(s.b - s.a) / 1e6;
      for (const bl of blocks) {
        const lo = bl.a > s.a ? bl.a : s.a, hi = bl.b < s.b ? bl.b : s.b;
        if (hi > lo) sum[bl.kind] = (sum[bl.kind] ?? 0) + Number(hi - lo) / 1e6;
      }
    }
    return Object.entries(sum).map(([k, v]) => `${k} ${(v / Math.max(1, set.length)).toFixed(3)}`).join(', ');
  };
  if (blocks.length && spans.length) {
    const slow = [...spans].sort((x, y) => y.total - x.total).slice(0, Math.max(1, Math.round(spans.length / 10)));
    console.log(`server waits per key (ms), all ${spans.length}: ${blame(spans)}`);
    console.log(`server waits per key (ms), slowest ${slow.length}: ${blame(slow)}`);
  }
}
// --why: for the slowest keys, every stamp between the key and its echo (X ... X-end pairs as one block with its length).
if (process.argv.includes('--why')) {
  const slow = keys.filter((k) => k.t1).sort((a, b) => Number(b.t1 - b.t0 - (a.t1 - a.t0))).slice(0, Number(process.argv[process.argv.indexOf('--why') + 1]) || 8);
  for (const k of slow) {
    const parts: string[] = [];
    const open: Record<string, bigint> = {};
    for (const e of events) {
      if (e.t < k.t0 - 2_000_000n || e.t > k.t1) continue;
      const rel = (Number(e.t - k.t0) / 1e6).toFixed(2);
      if (e.l.endsWith('-end')) {
        const b = e.l.slice(0, -4);
        if (open[b] !== undefined) parts.push(`${(Number(open[b] - k.t0) / 1e6).toFixed(2)} ${b}[${(Number(e.t - open[b]) / 1e6).toFixed(2)}]`);
        delete open[b];
      } else if (['s.turn', 'S.gc', 'C.gc', 's.detect'].includes(e.l)) open[e.l] = e.t;
      else parts.push(`${rel} ${e.l}`);
    }
    console.log(`key ${(Number(k.t1 - k.t0) / 1e6).toFixed(2)} ms: ${parts.join(' | ')}`);
  }
}
// --keep DIR: the raw stamp files, one per process, for analyses of one's own.
if (keepArg > 0) cpSync(traceDir, process.argv[keepArg + 1], { recursive: true });
removeTmp(tmp);

console.log(`CPU per key: server ${cpuPerKey.s.toFixed(3)} ms, client ${cpuPerKey.c.toFixed(3)} ms (${ROOT})`);
for (const w of ['s', 'c'] as const) {
  const parts = [...threads1[w]].map(([n, v]) => [n, (v - (threads0[w].get(n) ?? 0)) / N] as const).filter(([, v]) => v >= 0.005).sort((a, b) => b[1] - a[1]);
  console.log(`CPU per key by thread, ${w === 's' ? 'server' : 'client'}: ${parts.map(([n, v]) => `${n} ${v.toFixed(3)}`).join(', ')}`);
}
const net = (perKey: number, idle: number) => (perKey - (idle * typingS) / N).toFixed(3);
console.log(`CPU with no key: server ${idleMsPerS.s.toFixed(2)} ms/s, client ${idleMsPerS.c.toFixed(2)} ms/s; per key without it: server ${net(cpuPerKey.s, idleMsPerS.s)} ms, client ${net(cpuPerKey.c, idleMsPerS.c)} ms`);
