// Issue 30 item 15: pi sets `process.title = "pi"`, which overwrites its argv, so the process list shows `pi` and none of
// its flags; and before, no pi event carried its conversation id. A restore must bring pi back with its flags (from its
// integration's report, else the line castellan typed to resume it, else the pane's launch command) in its own conversation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import type { State } from '../../src/core/types.js';
import { Capture } from '../../src/restore/capture.js';
import { planRestore } from '../../src/restore/plan.js';
import { foregroundArgv } from '../../src/restore/resume.js';
import { readPaneProcesses } from '../../src/platform/proc/index.js';
import { Screen } from '../../src/server/screen.js';
import { planReport } from '../../src/integrations/resolve.js';
import { PI } from '../../src/integrations/pi.js';
import { importTs } from '../support/pi-extension.js';
import { REPO } from '../support/temp-env.js';

const ID = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
const kill = (c: ChildProcess | undefined) => {
  try {
    if (c?.pid) process.kill(-c.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
};

/** A stand-in pi: a node script named `pi` that rewrites its process title as the real one does (dist/cli.js). */
function fakePi(dir: string): string {
  const file = join(dir, 'pi');
  writeFileSync(file, "process.title = 'pi';\nsetInterval(() => {}, 1000);\n");
  return file;
}

async function startPi(dir: string, args: string[]): Promise<ChildProcess> {
  const c = spawn(process.execPath, [fakePi(dir), ...args], { stdio: 'ignore', cwd: dir, detached: true });
  // Only once the title is rewritten: /proc then shows `pi` alone, as with the real pi.
  await waitFor(() => readPaneProcesses(c.pid!).processes.find((p) => p.pid === c.pid)?.argv.join(' ') === 'pi', { timeoutMs: 10_000, message: 'the fake pi rewrote its title' });
  return c;
}

function harness(dir: string, command: string[], root: () => ChildProcess | undefined) {
  const windows = [{ id: 'w1', layout: { kind: 'leaf' as const, pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command, cwd: dir }] }];
  let st: State = reduce(emptyState('t', { cols: 80, rows: 24 }), { type: 'server.restore', cols: 80, rows: 24, windows }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: dir }).state;
  const live = { exited: false, lastOutputAt: 1, size: { cols: 80, rows: 24 }, screen: new Screen({ cols: 80, rows: 24, scrollback: 10 }), pty: { get pid() { return root()!.pid!; }, cwd: () => dir, foregroundPid: () => undefined } };
  const capture = new Capture({ session: 't', cwd: dir, home: dir, state: () => st, historyLines: () => 0, pane: () => live });
  return {
    capture,
    /** What pi's integration reports, as the bridge and hook.event send it (planReport → pane.report_agent → agent.report). */
    report(event: string, payload: Record<string, unknown>) {
      const plan = planReport(PI, event, payload);
      assert.ok(!('skip' in plan));
      const r = plan.report;
      st = reduce(st, { type: 'agent.report', pane: 'w1:p1', agent: r.agent, state: r.state, source: r.source, sessionId: r.session_id, ...(r.args ? { args: r.args } : {}), integration: true }, { now: Date.now(), defaultCommand: ['/bin/sh'], defaultCwd: dir }).state;
    },
    async typed() {
      const s = await capture.take();
      return planRestore({ ...s, savedAt: 0 }, { shell: ['/bin/sh'], relaunch: [], isDir: () => true, fallbackCwd: dir }).panes.get('w1:p1')!.typed;
    },
  };
}

describe('pi comes back with its flags', () => {
  test('foregroundArgv: the process list wins when it shows flags; else the first source that knows them', () => {
    assert.deepEqual(foregroundArgv('pi', ['pi'], [['--model', 'm'], ['--other']]), ['pi', '--model', 'm']);
    assert.deepEqual(foregroundArgv('pi', ['pi'], [undefined, ['--thinking', 'high']]), ['pi', '--thinking', 'high']);
    assert.deepEqual(foregroundArgv('pi', ['pi'], [[], ['--other']]), ['pi'], 'an integration that says "no flags" is believed');
    assert.deepEqual(foregroundArgv('pi', ['node', '/x/pi', '--model', 'a'], [['--model', 'b']]), ['node', '/x/pi', '--model', 'a']);
    assert.deepEqual(foregroundArgv('claude', ['claude'], [undefined, undefined]), ['claude']);
  });

  test('from the pane\'s launch command when pi runs as the pane itself', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cas-piflags-'));
    let root: ChildProcess | undefined;
    try {
      const h = harness(dir, ['pi', '--model', 'mock/mock-model', '--thinking', 'high'], () => root);
      root = await startPi(dir, ['--model', 'mock/mock-model', '--thinking', 'high']);
      h.report('agent_end', { session_id: ID });
      assert.equal(await h.typed(), `pi --model mock/mock-model --thinking high --session ${ID}`);
    } finally {
      kill(root);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('from the integration\'s report when pi was typed into a shell (the launch command is the shell)', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cas-piflags-'));
    let root: ChildProcess | undefined;
    try {
      const h = harness(dir, ['/bin/sh'], () => root);
      root = await startPi(dir, ['--model', 'mock/mock-model']);
      assert.equal(await h.typed(), 'pi --continue', 'nothing known: pi alone with its latest conversation, as before');
      h.report('session_start', { reason: 'startup', pi_args: ['--model', 'mock/mock-model', '--provider', 'mock', 'say hi'] });
      // A first prompt given on the command line is never replayed.
      assert.equal(await h.typed(), 'pi --model mock/mock-model --provider mock --continue');
      h.report('agent_end', { pi_args: ['--model', 'mock/mock-model', '--provider', 'mock', 'say hi'], session_id: ID });
      assert.equal(await h.typed(), `pi --model mock/mock-model --provider mock --session ${ID}`);
    } finally {
      kill(root);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('from the line castellan typed to resume it, for the crash after the restore (no hook spoke since)', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cas-piflags-'));
    let root: ChildProcess | undefined;
    try {
      const h = harness(dir, ['/bin/sh'], () => root);
      h.capture.noteResumed('w1:p1', 'pi', ID, Date.now(), ['pi', '--model', 'mock/mock-model', '--session', ID]);
      root = await startPi(dir, ['--model', 'mock/mock-model', '--session', ID]);
      assert.equal(await h.typed(), `pi --model mock/mock-model --session ${ID}`);
    } finally {
      kill(root);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('hostile arguments in a report: not an array of short strings, or too many, are not taken', () => {
    for (const bad of ['--model m', [1, 2], ['x'.repeat(5000)], Array.from({ length: 65 }, () => '-v'), { 0: '--model' }, null]) {
      const plan = planReport(PI, 'agent_end', { pi_args: bad });
      assert.ok(!('skip' in plan));
      assert.equal(plan.report.args, undefined, JSON.stringify(bad).slice(0, 40));
    }
    const ok = planReport(PI, 'agent_end', { pi_args: [] });
    assert.ok(!('skip' in ok));
    assert.deepEqual(ok.report.args, []);
  });
});

describe('pi\'s extension sends its arguments and, once its session file exists, its conversation id', () => {
  test('session_id only with a saved session file; pi_args always', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cas-piext-'));
    const saved = { ...process.env };
    const savedArgv = process.argv;
    try {
      const log = join(dir, 'spawned.log');
      const src = readFileSync(join(REPO, 'share/integrations/pi/castellan.ts'), 'utf8');
      const file = join(dir, 'ext.ts');
      // One file per event, written aside and renamed: the three bridges run at once, and appends to one file interleave.
      const argv = ['/bin/sh', '-c', `cat > '${log}'."$3".part && mv '${log}'."$3".part '${log}'."$3"`, 'sh'];
      writeFileSync(file, src.split('\n').map((l) => (l.endsWith('// @castellan-command') ? `const INSTALLED_COMMAND: string[] | null = ${JSON.stringify(argv)}; // @castellan-command` : l)).join('\n'));
      // No socket: every event takes the spawned bridge (the recorder above), which shows the payload as sent.
      Object.assign(process.env, { CASTELLAN_ENV: '1', CASTELLAN_PANE_ID: 'w1:p1' });
      delete process.env.CASTELLAN_SOCKET;
      const mod = (await importTs(file)) as { default: (pi: { on(e: string, h: (e: unknown, c: unknown) => unknown): void }) => void };
      const handlers = new Map<string, (e: unknown, c: unknown) => unknown>();
      process.argv = ['/usr/bin/node', '/opt/pi/dist/cli.js', '--model', 'mock/mock-model'];
      mod.default({ on: (e, h) => handlers.set(e, h) });
      const sessionFile = join(dir, `2026-12-05T10-00-00-000Z_${ID}.jsonl`);
      const ctx = { sessionManager: { getSessionId: () => ID, getSessionFile: () => sessionFile } };
      await handlers.get('session_start')!({ type: 'session_start', reason: 'startup' }, ctx);
      writeFileSync(sessionFile, '{}\n');
      await handlers.get('agent_end')!({ type: 'agent_end', messages: [] }, ctx);
      // A pi whose ctx has no session manager (an older pi) still reports.
      await handlers.get('agent_start')!({ type: 'agent_start' }, {});
      const events = ['session_start', 'agent_end', 'agent_start'];
      const payloads = await waitFor(() => {
        try {
          return events.map((e) => JSON.parse(readFileSync(`${log}.${e}`, 'utf8')) as Record<string, unknown>);
        } catch {
          return undefined;
        }
      }, { timeoutMs: 10_000, message: 'three events recorded' });
      assert.equal(payloads[0].session_id, undefined, 'no file yet: `pi --session ID` would find nothing');
      assert.deepEqual(payloads[0].pi_args, ['--model', 'mock/mock-model']);
      assert.equal(payloads[1].session_id, ID);
      assert.equal(payloads[2].session_id, undefined);
      assert.deepEqual(payloads[2].pi_args, ['--model', 'mock/mock-model']);
    } finally {
      process.argv = savedArgv;
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
