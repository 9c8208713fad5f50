// Test reporter for `run-tests.mjs --record-times`: sums each file's top-level test durations into scripts/test-durations.json (seconds).
import { readFileSync, writeFileSync } from 'node:fs';
import { sourcePath } from './compile-tests.mjs';
export default async function* timesReporter(source) {
  const root = new URL('..', import.meta.url).pathname;
  const file = new URL('./test-durations.json', import.meta.url).pathname;
  let old = {};
  try {
    old = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* first record */
  }
  const per = {};
  for await (const e of source) {
    if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0 && e.data.file) {
      // Keyed by the .ts source, whether the run loaded it under tsx or compiled (dist-test/.../x.test.js).
      const f = sourcePath(root.slice(0, -1), e.data.file.startsWith(root) ? e.data.file.slice(root.length) : e.data.file);
      per[f] = (per[f] ?? 0) + (e.data.details?.duration_ms ?? 0) / 1000;
    }
  }
  // Files this run did not cover (a filtered run) keep their old figure.
  const merged = { ...old, ...Object.fromEntries(Object.entries(per).map(([f, s]) => [f, Math.round(s * 10) / 10])) };
  const kept = Object.entries(merged).sort((a, b) => b[1] - a[1]);
  writeFileSync(file, JSON.stringify(Object.fromEntries(kept), null, 1) + '\n');
}
