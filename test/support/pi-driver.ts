// A fake pi for tests: loads castellan's pi extension, fires a script of events at its handlers, writes down their answers.
// Usage: node --import tsx pi-driver.ts EXTENSION STEPS_JSON OUT_JSON [--stay]  (--stay: keep running afterwards, as pi does in its pane)
import { writeFileSync } from 'node:fs';
import { loadHandlers, type DriverStep } from './pi-extension.js';
import { readFileSync } from 'node:fs';

const [ext, stepsFile, out, stay] = process.argv.slice(2);
const steps = JSON.parse(readFileSync(stepsFile, 'utf8')) as DriverStep[];
const handlers = await loadHandlers(ext);
const answers: Array<{ event: string; answer: unknown; ms: number }> = [];
const pending: Array<Promise<unknown>> = [];
for (const s of steps) {
  const h = handlers.get(s.event);
  if (!h) continue;
  const t0 = performance.now();
  const p = Promise.resolve(h({ type: s.event, ...s.payload }, {}));
  if (s.await) answers.push({ event: s.event, answer: (await p) ?? null, ms: performance.now() - t0 });
  else pending.push(p.then((a) => answers.push({ event: s.event, answer: a ?? null, ms: performance.now() - t0 })));
}
await Promise.all(pending);
writeFileSync(out + '.tmp', JSON.stringify({ pid: process.pid, answers }));
// Written whole, then renamed: a reader never sees half of it.
(await import('node:fs')).renameSync(out + '.tmp', out);
if (stay === '--stay') setInterval(() => undefined, 60_000);
