// Summarizes a V8 .cpuprofile (from `bench/run.ts --cpu-prof`): self time by file and by function, and
// inclusive time of the heaviest functions. usage: node --import tsx bench/prof-summary.ts FILE.cpuprofile [top]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!file) {
  process.stderr.write('usage: node --import tsx bench/prof-summary.ts FILE.cpuprofile [top]\n');
  process.exit(2);
}
process.stdout.on('error', () => process.exit(0)); // piped into head
const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (n: Node): string => {
  const u = n.callFrame.url;
  if (!u) return '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(u);
  if (m) return `${m[1]}:${m[2].split('/').pop()}`;
  const d = /\/dist\/(.*)$/.exec(u);
  if (d) return d[1];
  return u.replace(/^file:\/\//, '');
};
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`;

const selfUs = new Map<number, number>();
let total = 0;
let idle = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  const dt = prof.timeDeltas[i] ?? 0;
  total += dt;
  if (byId.get(id)?.callFrame.functionName === '(idle)') idle += dt;
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
}
const busy = total - idle;
const byFile = new Map<string, number>();
const byFn = new Map<string, number>();
const incl = new Map<string, number>();
for (const [id, t] of selfUs) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  const f = n.callFrame.url ? where(n).replace(/:[^:]*$/, (s) => (where(n).includes('node_modules') ? '' : s)) : n.callFrame.functionName;
  byFile.set(f, (byFile.get(f) ?? 0) + t);
  byFn.set(label(n), (byFn.get(label(n)) ?? 0) + t);
  // Inclusive: every distinct ancestor frame gets this sample's time once.
  const seen = new Set<string>();
  for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
    const l = label(byId.get(p)!);
    if (seen.has(l)) continue;
    seen.add(l);
    incl.set(l, (incl.get(l) ?? 0) + t);
  }
}
const pct = (t: number) => `${((t / busy) * 100).toFixed(1)}%`.padStart(7);
const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`--- ${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(v)} ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}\n`);
};
process.stdout.write(`${file}\nsampled ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (percentages are of busy time)\n`);
print('self time by file', byFile);
print('self time by function', byFn);
print('inclusive time', incl);
