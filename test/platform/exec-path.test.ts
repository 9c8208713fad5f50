// Finding programs as a shell would (src/platform/exec-path.ts): executables only, PATH order, relative entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable, isExecutableFile } from '../../src/platform/exec-path.js';

test('findExecutable: PATH order, executables only, slash names as files, relative entries only with a cwd', () => {
  const root = mkdtempSync(join(tmpdir(), 'cst-xp-'));
  try {
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'tool'), 'not executable');
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(join(b, 'tool'), 0o755);
    mkdirSync(join(a, 'dirprog'), { mode: 0o755 });
    assert.equal(findExecutable('tool', { path: `${a}:${b}` }), join(b, 'tool'), 'a file without its x bit is passed over');
    assert.equal(findExecutable('dirprog', { path: a }), undefined, 'a directory is not a program');
    assert.equal(isExecutableFile(join(a, 'dirprog')), false);
    assert.equal(findExecutable('tool', { path: '' }), undefined);
    assert.equal(findExecutable('', { path: b }), undefined);
    assert.equal(findExecutable(join(b, 'tool')), join(b, 'tool'));
    assert.equal(findExecutable(join(a, 'tool')), undefined);
    assert.equal(findExecutable('b/tool'), undefined, 'a relative path needs a cwd');
    assert.equal(findExecutable('b/tool', { cwd: root }), join(b, 'tool'));
    assert.equal(findExecutable('tool', { path: 'b' }), undefined, 'a relative PATH entry is skipped without a cwd');
    assert.equal(findExecutable('tool', { path: 'b', cwd: root }), join(b, 'tool'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
