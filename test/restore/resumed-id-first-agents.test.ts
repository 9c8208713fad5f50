// Issue 30, item 14: a resumed Codex or Gemini reports no session id until its next prompt, so a crash soon after a
// restore used to find none and relaunch with --last / latest. The resumed id is carried forward for them too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { Capture } from '../../src/restore/capture.js';
import { planRestore } from '../../src/restore/plan.js';
import { readPaneProcesses } from '../../src/platform/proc/index.js';
import { Screen } from '../../src/server/screen.js';

for (const [agent, id, typed] of [
  ['codex', '019a-resumed', 'codex resume --model m 019a-resumed'],
  ['gemini', 'c0ffee-resumed', 'gemini --model m --resume c0ffee-resumed'],
  ['claude', 'abc-resumed', 'claude --model m --resume abc-resumed'],
] as const) {
  test(`${agent} resumed by id and silent since: the next snapshot still names its id, and a second crash resumes it`, { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cas-resumed14-'));
    let child: ChildProcess | undefined;
    try {
      // A stand-in by the agent's name (/proc shows `/bin/sh …/AGENT --model m`), reporting nothing.
      const fake = join(dir, agent);
      writeFileSync(fake, '#!/bin/sh\nwhile :; do sleep 1; done\n');
      chmodSync(fake, 0o755);
      const windows = [{ id: 'w1', layout: { kind: 'leaf' as const, pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: dir }] }];
      const st = reduce(emptyState('t', { cols: 80, rows: 24 }), { type: 'server.restore', cols: 80, rows: 24, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: dir }).state;
      const screen = new Screen({ cols: 80, rows: 24, scrollback: 10 });
      const live = { exited: false, lastOutputAt: 1, size: { cols: 80, rows: 24 }, screen, pty: { get pid() { return child!.pid!; }, cwd: () => dir, foregroundPid: () => undefined } };
      const capture = new Capture({ session: 't', cwd: dir, home: dir, state: () => st, historyLines: () => 0, pane: () => live });
      // What the restore reports as it types the resume line (restore/index.ts: agent_resumed).
      capture.noteResumed('w1:p1', agent, id);
      child = spawn(fake, ['--model', 'm'], { stdio: 'ignore', cwd: dir, detached: true });
      await waitFor(() => readPaneProcesses(child!.pid!).processes.some((p) => p.argv.join(' ').includes(`${agent} --model m`)), { timeoutMs: 10_000, message: `${agent} in /proc` });
      const snap = await capture.take();
      assert.equal(snap.windows[0].panes[0].agent?.sessionId, id, 'the snapshot carries the resumed id');
      const plan = planRestore({ ...snap, savedAt: 0 }, { shell: ['/bin/sh'], relaunch: [], isDir: () => true, fallbackCwd: dir }).panes.get('w1:p1')!;
      assert.equal(plan.typed, typed);
      screen.dispose();
    } finally {
      try {
        process.kill(-child!.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
