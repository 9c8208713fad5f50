// A pane resumed by id keeps that id for the next snapshot until its agent was seen and is gone, so a second crash
// right after a restore resumes the same conversation even when no hook has spoken since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { Capture } from '../../src/restore/capture.js';
import { planRestore } from '../../src/restore/plan.js';
import { readPaneProcesses } from '../../src/platform/proc/index.js';
import { Screen } from '../../src/server/screen.js';

const kill = (c: ChildProcess) => {
  try {
    process.kill(-c.pid!, 'SIGKILL');
  } catch {
    /* gone */
  }
};

test('the resumed id survives the shell-in-front moment, is used while the agent runs, and is dropped once it exits', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cas-resumed-'));
  const kids: ChildProcess[] = [];
  const start = async (argv: string[], argvShows: string) => {
    // Its own process group, so a kill takes its `sleep` too.
    const c = spawn(argv[0], argv.slice(1), { stdio: 'ignore', cwd: dir, detached: true });
    kids.push(c);
    await waitFor(() => readPaneProcesses(c.pid!).processes.some((p) => p.argv.join(' ').includes(argvShows)), { timeoutMs: 10_000, message: `${argvShows} in /proc` });
    return c;
  };
  try {
    // A stand-in "opencode" (a script by that name: /proc shows `/bin/sh …/opencode --model m`).
    const fake = join(dir, 'opencode');
    writeFileSync(fake, '#!/bin/sh\nwhile :; do sleep 1; done\n');
    chmodSync(fake, 0o755);
    const windows = [{ id: 'w1', layout: { kind: 'leaf' as const, pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: dir }] }];
    const st = reduce(emptyState('t', { cols: 80, rows: 24 }), { type: 'server.restore', cols: 80, rows: 24, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: dir }).state;
    let root: ChildProcess | undefined;
    const screen = new Screen({ cols: 80, rows: 24, scrollback: 10 });
    const live = { exited: false, lastOutputAt: 1, size: { cols: 80, rows: 24 }, screen, pty: { get pid() { return root!.pid!; }, cwd: () => dir, foregroundPid: () => undefined } };
    const capture = new Capture({ session: 't', cwd: dir, home: dir, state: () => st, historyLines: () => 0, pane: () => live });
    const paneOf = async () => (await capture.take()).windows[0].panes[0];
    const plan = async () => planRestore({ ...(await capture.take()), savedAt: 0 }, { shell: ['/bin/sh'], relaunch: [], isDir: () => true, fallbackCwd: dir }).panes.get('w1:p1')!;

    capture.noteResumed('w1:p1', 'opencode', 'ses_resumed01');
    // The restored shell is in front; the resume line is not typed yet: the id is kept.
    root = await start(['/bin/sh', '-c', 'while :; do sleep 1; done'], 'while');
    assert.equal((await paneOf()).kind, 'shell');
    kill(root);
    // The agent runs: a snapshot names the resumed id, and the plan resumes it again.
    root = await start([fake, '--model', 'm'], 'opencode --model m');
    assert.deepEqual((await paneOf()).agent, { name: 'opencode', sessionId: 'ses_resumed01', sessionFrom: 'hook' });
    assert.equal((await plan()).typed, 'opencode --model m --session ses_resumed01');
    kill(root);
    // It exited (a shell in front again): a new opencode there is another conversation, not resumed by a guess.
    root = await start(['/bin/sh', '-c', 'while :; do sleep 1; done'], 'while');
    await paneOf();
    kill(root);
    root = await start([fake, '--model', 'm'], 'opencode --model m');
    assert.deepEqual((await paneOf()).agent, { name: 'opencode' });
    const p = await plan();
    assert.equal(p.typed, undefined);
    assert.match(p.note, /opencode was running; not resumed/);
  } finally {
    for (const k of kids) kill(k);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('qwen without a hook: its one chat file written since the pane began names the id; two are candidates, so none', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cas-qwenfiles-'));
  let root: ChildProcess | undefined;
  try {
    const fake = join(dir, 'qwen');
    writeFileSync(fake, '#!/bin/sh\nwhile :; do sleep 1; done\n');
    chmodSync(fake, 0o755);
    const work = join(dir, 'my.work');
    mkdirSync(work);
    const chats = join(dir, '.qwen', 'projects', work.replace(/[^A-Za-z0-9]/g, '-'), 'chats');
    mkdirSync(chats, { recursive: true });
    const old = join(chats, 'old-conversation.jsonl');
    writeFileSync(old, '{}\n');
    utimesSync(old, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const windows = [{ id: 'w1', layout: { kind: 'leaf' as const, pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: work }] }];
    const st = reduce(emptyState('t', { cols: 80, rows: 24 }), { type: 'server.restore', cols: 80, rows: 24, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: work }).state;
    root = spawn(fake, ['-m', 'mock-model'], { stdio: 'ignore', cwd: work, detached: true });
    await waitFor(() => readPaneProcesses(root!.pid!).processes.some((p) => p.argv.join(' ').includes('qwen -m mock-model')), { timeoutMs: 10_000, message: 'fake qwen in /proc' });
    const live = { exited: false, lastOutputAt: 1, size: { cols: 80, rows: 24 }, screen: new Screen({ cols: 80, rows: 24, scrollback: 10 }), pty: { pid: root.pid!, cwd: () => work, foregroundPid: () => undefined } };
    const capture = new Capture({ session: 't', cwd: work, home: dir, state: () => st, historyLines: () => 0, pane: () => live });
    const agentOf = async () => (await capture.take()).windows[0].panes[0].agent;

    assert.deepEqual(await agentOf(), { name: 'qwen' }, 'only a conversation from before the pane: not its own');
    writeFileSync(join(chats, 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28.jsonl'), '{}\n');
    writeFileSync(join(chats, 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28.runtime.json'), '{}\n');
    assert.deepEqual(await agentOf(), { name: 'qwen', sessionId: 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28', sessionFrom: 'files' });
    writeFileSync(join(chats, 'another-pane-0001.jsonl'), '{}\n');
    assert.deepEqual(await agentOf(), { name: 'qwen' }, 'two candidates: none is chosen');
    // A file name that is no plain id is never a session id, whatever else is there.
    rmSync(join(chats, 'another-pane-0001.jsonl'));
    rmSync(join(chats, 'f8c59044-e0cc-411a-9e4b-fe1c979c9c28.jsonl'));
    writeFileSync(join(chats, '$(touch x);.jsonl'), '{}\n');
    assert.deepEqual(await agentOf(), { name: 'qwen' });
  } finally {
    if (root) kill(root);
    rmSync(dir, { recursive: true, force: true });
  }
});
