#!/usr/bin/env node
// Finds test files (Node 20's --test takes no globs) and runs them with the built-in runner under tsx.
// Usage: node scripts/run-tests.mjs [filter...]   (a filter is a substring of the test file path)
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
const root = new URL('..', import.meta.url).pathname;
const walk = (dir) => readdirSync(dir).flatMap((n) => {
  const p = join(dir, n);
  return statSync(p).isDirectory() ? walk(p) : /\.test\.tsx?$/.test(n) ? [p] : [];
});
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = walk(join(root, 'test')).map((f) => relative(root, f)).sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) { console.error('no test files match', filters); process.exit(1); }
// A test that hangs (a pane that never answers, a wait without a deadline) fails after 3 minutes instead of eating
// the CI's 90 (test/agents/server.test.ts once hung 30 minutes under load).
const timeout = flags.some((f) => f.startsWith('--test-timeout')) ? [] : ['--test-timeout=180000'];
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...timeout, ...flags, ...files], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
