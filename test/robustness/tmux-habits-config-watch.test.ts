// Hostile cases for the config file watcher: a flood of saves, rename-replace saves, unrelated files, missing directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchConfigFiles } from '../../src/server/config-live.js';
import { waitFor } from '../support/wait-for.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const d = mkdtempSync(join(tmpdir(), 'cst-watch-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

test('a flood of 500 saves costs one reload (debounced), not 500', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'config.toml');
  writeFileSync(file, '');
  let calls = 0;
  const w = watchConfigFiles([file], () => calls++, 100);
  t.after(() => w.close());
  for (let i = 0; i < 500; i++) writeFileSync(file, `# save ${i}\n`);
  await waitFor(() => calls >= 1, { timeoutMs: 5000, message: 'a reload after the flood' });
  const first = calls;
  await assert.rejects(waitFor(() => calls > 3, { timeoutMs: 600 }), /timed out/, `no reload storm (first seen: ${first})`);
  assert.ok(calls <= 3, `reloads: ${calls}`);
});

test('a rename-replace save (as vim writes) is seen, and keeps being seen on later saves', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'config.toml');
  writeFileSync(file, 'a = 1\n');
  let calls = 0;
  const w = watchConfigFiles([file], () => calls++, 50);
  t.after(() => w.close());
  for (let i = 1; i <= 3; i++) {
    writeFileSync(join(dir, `config.toml~${i}`), `a = ${i}\n`);
    renameSync(join(dir, `config.toml~${i}`), file);
    await waitFor(() => calls >= i, { timeoutMs: 5000, message: `rename-replace save ${i} seen` });
  }
});

test('other files in the directory do not reload; a missing directory or file is no error', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'config.toml');
  let calls = 0;
  const w = watchConfigFiles([file, join(dir, 'no', 'such', 'dir', 'local.toml')], () => calls++, 50);
  t.after(() => w.close());
  writeFileSync(join(dir, 'notes.txt'), 'x');
  writeFileSync(join(dir, 'config.toml.bak'), 'x');
  writeFileSync(file, 'created later\n');
  await waitFor(() => calls >= 1, { timeoutMs: 5000, message: 'the config file appearing is a change' });
  const n = calls;
  writeFileSync(join(dir, 'other.txt'), 'y');
  // Absence can only be shown by a deadline passing: well past the 50 ms debounce.
  await assert.rejects(waitFor(() => calls > n, { timeoutMs: 400 }), /timed out/, 'an unrelated file does not reload');
  w.close();
  writeFileSync(file, 'after close\n');
  await assert.rejects(waitFor(() => calls > n, { timeoutMs: 400 }), /timed out/, 'closed: no more reloads');
});

test('a config directory made after the watch started (two levels), a sed -i edit, and a directory removed and made again are all seen', async (t) => {
  const root = tempDir(t);
  const dir = join(root, 'home', '.castellan');
  const file = join(dir, 'config.toml');
  let calls = 0;
  const w = watchConfigFiles([file], () => calls++, 50);
  t.after(() => w.close());
  mkdirSync(join(root, 'home'));
  mkdirSync(dir);
  writeFileSync(file, 'a = 1\n');
  await waitFor(() => calls >= 1, { timeoutMs: 5000, message: 'a file in a directory that did not exist at start' });
  let n = calls;
  execFileSync('sed', ['-i', 's/1/2/', file]);
  await waitFor(() => calls > n, { timeoutMs: 5000, message: 'sed -i (a new inode) seen' });
  n = calls;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(file, 'a = 3\n');
  await waitFor(() => calls > n, { timeoutMs: 5000, message: 'the directory made again is watched again' });
  n = calls;
  execFileSync('sed', ['-i', 's/3/4/', file]);
  await waitFor(() => calls > n, { timeoutMs: 5000, message: 'and later edits there too' });
});
