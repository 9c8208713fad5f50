// Test reporter for `run-tests.mjs --record-times` (the `node --test` path; scripts/test-pool.mjs calls recordTimes
// itself): sums each file's top-level test durations into scripts/test-durations.json (seconds).
import { readFileSync, writeFileSync } from 'node:fs';
import { sourcePath } from './compile-tests.mjs';

/** Merges `per` (a test file's path, absolute or from the repo root, compiled or not → seconds) into the record. */
export function recordTimes(per) {
  const root = new URL('..', import.meta.url).pathname;
  const file = new URL('./test-durations.json', import.meta.url).pathname;
  let old = {};
  try {
    old = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* first record */
  }
  // Keyed by the .ts source, whether the run loaded it under tsx or compiled (dist-test/.../x.test.js).
  const fresh = {};
  for (const [f, s] of Object.entries(per)) {
    const key = sourcePath(root.slice(0, -1), f.startsWith(root) ? f.slice(root.length) : f);
    fresh[key] = (fresh[key] ?? 0) + s;
  }
  // Files this run did not cover (a filtered run) keep their old figure.
  const merged = { ...old, ...Object.fromEntries(Object.entries(fresh).map(([f, s]) => [f, Math.round(s * 10) / 10])) };
  const kept = Object.entries(merged).sort((a, b) => b[1] - a[1]);
  writeFileSync(file, JSON.stringify(Object.fromEntries(kept), null, 1) + '\n');
}

export default async function* timesReporter(source) {
  const per = {};
  for await (const e of source) {
    if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0 && e.data.file) {
      per[e.data.file] = (per[e.data.file] ?? 0) + (e.data.details?.duration_ms ?? 0) / 1000;
    }
  }
  recordTimes(per);
}
