#!/usr/bin/env node
// Finds test files (Node 20's --test takes no globs) and runs them with the built-in runner, slowest first, as plain JS
// compiled once by scripts/compile-tests.mjs into dist-test/ (tsx in every test process cost ~0.5-1 s of CPU each).
// Usage: node scripts/run-tests.mjs [--record-times] [filter...]   (a filter is a substring of the test file path,
//   test/core/reducer.test.ts, as before: filters, durations and batching all speak of the .ts sources)
//   CASTELLAN_TEST_TSX=1 runs the .ts sources under tsx instead (the old way; no dist-test/).
//   CASTELLAN_TEST_CONCURRENCY=N runs N files at once (default 2), and one more while the CPUs sit idle
//   (scripts/test-pool.mjs; CASTELLAN_TEST_FILL=0: never more than N).
//   CASTELLAN_TEST_BATCH=0 runs every file in its own process (by default small files share one: scripts/test-batches.mjs).
//   --record-times updates scripts/test-durations.json (the order's weights) with this run's per-file test time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { batchFiles } from './test-batches.mjs';
import { compiledPath, compileTests } from './compile-tests.mjs';
const root = new URL('..', import.meta.url).pathname;
const walk = (dir) => readdirSync(dir).flatMap((n) => {
  const p = join(dir, n);
  return statSync(p).isDirectory() ? walk(p) : /\.test\.tsx?$/.test(n) ? [p] : [];
});
const args = process.argv.slice(2);
const record = args.includes('--record-times');
const filters = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-') && a !== '--record-times');
const durationsFile = join(root, 'scripts/test-durations.json');
let durations = {};
try {
  durations = JSON.parse(readFileSync(durationsFile, 'utf8'));
} catch {
  /* no record: alphabetical order */
}
// A file the record does not know (new) goes early: it may be slow, and a slow file started last is a tail
// the other slots wait out. Files started first carry the most weight, so long files never start at the end.
const weight = (f) => durations[f] ?? 10;
const files = walk(join(root, 'test')).map((f) => relative(root, f)).sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) { console.error('no test files match', filters); process.exit(1); }
const tsx = process.env.CASTELLAN_TEST_TSX === '1';
if (!tsx) {
  try {
    await compileTests(root);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
const load = tsx ? (f) => f : compiledPath;
const batched = process.env.CASTELLAN_TEST_BATCH === '0' ? { alone: files, entries: [], cleanup: () => {} } : batchFiles(root, files, weight, { load });
const entries = [...batched.alone.map((f) => ({ path: load(f), weight: weight(f) })), ...batched.entries]
  .sort((a, b) => b.weight - a.weight).map((e) => e.path);
// A test that hangs (a pane that never answers, a wait without a deadline) fails after 3 minutes instead of eating
// the CI's 90 (test/agents/server.test.ts once hung 30 minutes under load). A file has three minutes.
const timeoutMs = 180000;
// Two files at once on two cores, and a third while the CPUs sit idle (scripts/test-pool.mjs). A fixed three filled
// the time files spend waiting (ptys, servers starting, quiet periods), but at a load of 14-17 latency deadlines
// failed (a bridge reply in 4 s, state events in 100 ms, a file past the 3-minute timeout).
const base = Number(process.env.CASTELLAN_TEST_CONCURRENCY) || 2;
const extra = /^\d+$/.test(process.env.CASTELLAN_TEST_FILL ?? '') ? Number(process.env.CASTELLAN_TEST_FILL) : 1;
// --enable-source-maps: a failure's stack names the .ts line (each compiled file carries an inline map).
const loader = tsx ? ['--import', 'tsx'] : ['--enable-source-maps'];
const names = Object.fromEntries([...batched.alone.map((f) => [load(f), f]), ...batched.entries.map((e) => [e.path, `${e.files.length} files sharing a process: ${e.files.join(' ')}`])]);
const namePatterns = flags.filter((f) => f.startsWith('--test-name-pattern=')).map((f) => f.slice('--test-name-pattern='.length));
const other = flags.filter((f) => !f.startsWith('--test-name-pattern='));
// Any other flag for Node's runner (--test-only, --test-timeout=..., --test-concurrency=...) goes to `node --test`
// itself, with `base` files at once.
const nodeTest = () => {
  const own = (name, value) => (other.some((f) => f.startsWith(name)) ? [] : [`${name}=${value}`]);
  const reporters = record
    ? ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts/test-times-reporter.mjs')}`, '--test-reporter-destination=stdout']
    : ['--test-reporter=spec'];
  return [...loader, '--test', ...reporters, ...own('--test-concurrency', base), ...own('--test-timeout', timeoutMs), ...flags, ...entries];
};
const pool = () => [...loader, join(root, 'scripts/test-pool.mjs'), JSON.stringify({ entries, base, extra, timeoutMs, namePatterns, record, names })];
const child = spawn(process.execPath, other.length ? nodeTest() : pool(), { cwd: root, stdio: 'inherit' });
child.on('exit', (code, sig) => {
  batched.cleanup();
  process.exit(code ?? (sig ? 1 : 0));
});
