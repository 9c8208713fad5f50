// /proc reading for pane identification: a real process tree, stat parsing, a fake /proc, never throwing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foregroundPgid, parseStat, readPaneProcesses } from '../../src/platform/proc/index.js';

const HAS_PROC = existsSync('/proc/self/stat');

async function waitFor<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('parseStat copes with spaces and parentheses in the process name', () => {
  const st = parseStat('4242 (my (odd) name) S 17 4242 4242 34816 4300 4194304 0 0');
  assert.deepEqual(st, { pid: 4242, comm: 'my (odd) name', ppid: 17, pgrp: 4242, session: 4242, tpgid: 4300, state: 'S' });
  assert.equal(parseStat('garbage'), undefined);
});

test('a real tree: the root and its children with their argv', { skip: !HAS_PROC && 'no /proc' }, async () => {
  const child = spawn('sh', ['-c', 'sleep 30 & exec sleep 31'], { stdio: 'ignore' });
  try {
    const tree = await waitFor(() => {
      const t = readPaneProcesses(child.pid!);
      // comm turns to `sleep` at exec a moment before /proc shows the new argv (read empty meanwhile): wait for both.
      return t.processes.length === 2 && t.processes.every((p) => p.comm === 'sleep' && p.argv.length > 0) ? t : undefined;
    });
    assert.equal(tree.rootPid, child.pid);
    assert.deepEqual(tree.processes.map((p) => p.argv).sort(), [['sleep', '30'], ['sleep', '31']]);
    assert.equal(tree.processes.find((p) => p.pid === child.pid)?.argv[1], '31');
  } finally {
    child.kill('SIGKILL');
    // the backgrounded sleep 30 is the root's child: kill it by its pid, not by name
    for (const p of readPaneProcesses(child.pid!).processes) if (p.pid !== child.pid) try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

test('a vanished pid gives an empty tree, never an exception', () => {
  assert.deepEqual(readPaneProcesses(2 ** 22 + 12345), { rootPid: 2 ** 22 + 12345, processes: [] });
  assert.equal(foregroundPgid(2 ** 22 + 12345), undefined);
});

test('a fake /proc: children by scan, foreground group, argv padding from a process title', () => {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-proc-'));
  try {
    const proc = (pid: number, comm: string, ppid: number, pgrp: number, tpgid: number, argv: string[]) => {
      mkdirSync(join(dir, String(pid)));
      writeFileSync(join(dir, String(pid), 'stat'), `${pid} (${comm}) S ${ppid} ${pgrp} ${pgrp} 34816 ${tpgid} 0 0 0`);
      writeFileSync(join(dir, String(pid), 'cmdline'), argv.join('\0') + '\0');
    };
    proc(10, 'zsh', 1, 10, 20, ['-zsh']);
    proc(20, 'pi', 10, 20, 20, ['pi', '', '', '', '']);
    proc(30, 'node', 20, 20, 20, ['node', 'worker.js']);
    proc(40, 'other', 1, 40, -1, ['other']);
    const tree = readPaneProcesses(10, { procDir: dir });
    assert.deepEqual(tree.processes.map((p) => p.pid), [10, 20, 30]);
    assert.equal(tree.foregroundPid, 20);
    assert.equal(tree.foregroundPgid, 20);
    assert.deepEqual(tree.processes[1].argv, ['pi']);
    assert.equal(foregroundPgid(10, dir), 20);
    assert.equal(readPaneProcesses(10, { procDir: dir, maxProcesses: 2 }).processes.length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
