// Restore and governance through the real bin: an untrusted project runs nothing, the user's allow-list does, SessionStart gates a resume; corrupt snapshots; session names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot, snapshotFile } from '../../src/restore/store.js';
import { pidAlive, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { fakeSessionId, writeFakeAgents } from './fake-agents.js';

async function cli(e: TempEnv, args: string[], cwd?: string): Promise<string> {
  const r = await e.cli(args, { timeoutMs: 20_000, cwd });
  assert.equal(r.code, 0, `castellan ${args.join(' ')}: ${r.stderr}\n${e.logTail()}`);
  return r.stdout;
}
const screen = async (e: TempEnv, pane: string, session?: string) => {
  const r = await e.cli([...(session ? ['--session', session] : []), 'pane', 'read', '--pane', pane, '--lines', '60']);
  // Narrow panes wrap long lines: read them as one.
  return r.stdout.replace(/\n/g, '');
};
const send = (e: TempEnv, pane: string, text: string) => e.call('pane.send_text', { pane_id: pane, text: text + '\r' });

/** Processes under this test's HOME whose argv is exactly `argv`. */
function running(e: TempEnv, argv: string[]): number[] {
  return e.processes().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === argv.join('\0') + '\0';
    } catch {
      return false;
    }
  });
}

async function kill9(e: TempEnv): Promise<void> {
  const pid = (await e.serverPid())!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, message: 'server dead' });
}

function setup(t: Parameters<typeof tempEnvFor>[0], userToml: string) {
  const e = tempEnvFor(t);
  const bin = join(e.root, 'fakebin');
  writeFakeAgents(bin);
  e.env.PATH = `${bin}:${e.env.PATH}`;
  mkdirSync(join(e.home, '.castellan'), { recursive: true });
  writeFileSync(join(e.home, '.castellan', 'config.toml'), userToml);
  const proj = join(realpathSync(e.root), 'proj');
  mkdirSync(proj);
  return { e, proj };
}

test('an untrusted project relaunches nothing; the user\'s [session] relaunch does; SessionStart runs for the resumed agent', { timeout: 90_000 }, async (t) => {
  const marker = (e: TempEnv, n: string) => join(e.root, n);
  const { e, proj } = setup(t, '');
  writeFileSync(
    join(e.home, '.castellan', 'config.toml'),
    `[session]\nrelaunch = ["sleep 4343"]\n\n[[hooks.hooks]]\nevent = "SessionStart"\ncommand = "cat >> ${marker(e, 'user-hook.jsonl')}"\n`,
  );
  writeFileSync(join(proj, 'castellan.toml'), `[session]\nrelaunch = ["sleep 4242"]\nrestore = "auto"\n\n[[hooks.hooks]]\nevent = "SessionStart"\ncommand = "touch ${marker(e, 'project-hook-ran')}"\n`);
  await cli(e, ['server', 'start', '--cols', '160', '--rows', '48'], proj);
  await cli(e, ['pane', 'split', '--pane', 'w1:p1'], proj);
  await cli(e, ['pane', 'split', '--pane', 'w1:p2'], proj);
  await send(e, 'w1:p1', 'sleep 4242');
  await send(e, 'w1:p2', 'sleep 4343');
  await send(e, 'w1:p3', 'claude --model sonnet');
  await waitFor(
    () => {
      const r = readSnapshot({ stateDir: e.stateDir, session: 'default' });
      if (r.kind !== 'ok') return false;
      const p = Object.fromEntries(r.snapshot.windows[0].panes.map((x) => [x.id, x]));
      return p['w1:p1']?.foreground?.join(' ') === 'sleep 4242' && p['w1:p2']?.foreground?.join(' ') === 'sleep 4343' && !!p['w1:p3']?.agent?.sessionId;
    },
    { timeoutMs: 20_000, message: 'snapshot with both sleeps and the agent' },
  );
  await kill9(e);
  await waitFor(() => running(e, ['sleep', '4242']).length === 0 && running(e, ['sleep', '4343']).length === 0, { timeoutMs: 5000, message: 'the old programs ended with their ptys' });
  await cli(e, ['server', 'start'], proj);
  await waitFor(async () => (await screen(e, 'w1:p3')).includes(`FAKE claude argv: --model sonnet --resume ${fakeSessionId('claude')}`), { timeoutMs: 15_000, message: 'claude resumed', observe: () => screen(e, 'w1:p3') });
  await waitFor(() => running(e, ['sleep', '4343']).length === 1, { timeoutMs: 10_000, message: 'the user-allowed program relaunched', observe: () => screen(e, 'w1:p2') });
  assert.match(await screen(e, 'w1:p1'), /was running: sleep 4242 \(not relaunched; add it to \[session\] relaunch/);
  assert.deepEqual(running(e, ['sleep', '4242']), [], 'the project\'s relaunch list is ignored');
  const hook = readFileSync(marker(e, 'user-hook.jsonl'), 'utf8');
  assert.match(hook, /"plugin":"claude"/);
  assert.match(hook, /"pane_id":"w1:p3"/);
  assert.match(hook, /"resumed":true/, 'the hook is told the agent is resumed');
  assert.equal(existsSync(marker(e, 'project-hook-ran')), false, 'an untrusted project\'s hook never runs');
});

test('a SessionStart hook that fails refuses the resume: the pane stays a shell and says why', { timeout: 60_000 }, async (t) => {
  const { e, proj } = setup(t, `[[hooks.hooks]]\nevent = "SessionStart"\ncommand = "echo no resuming today >&2; exit 1"\n`);
  await cli(e, ['server', 'start'], proj);
  await send(e, 'w1:p1', 'gemini --yolo');
  await waitFor(() => {
    const r = readSnapshot({ stateDir: e.stateDir, session: 'default' });
    return r.kind === 'ok' && !!r.snapshot.windows[0].panes[0].agent?.sessionId;
  }, { timeoutMs: 20_000, message: 'snapshot with the agent' });
  await kill9(e);
  await cli(e, ['server', 'start'], proj);
  await waitFor(async () => /not resumed: a SessionStart hook refused it: no resuming today/.test(await screen(e, 'w1:p1')), { timeoutMs: 10_000, message: 'refusal shown', observe: () => screen(e, 'w1:p1') });
  assert.doesNotMatch(await screen(e, 'w1:p1'), /FAKE gemini argv: .*--resume/);
});

test('a corrupt snapshot: a clear message, kept aside, a fresh start', { timeout: 60_000 }, async (t) => {
  const { e } = setup(t, '');
  const file = snapshotFile({ stateDir: e.stateDir, session: 'default' });
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, '{"version":1,"windows":[{"id":"w1"', { mode: 0o600 });
  await cli(e, ['server', 'start']);
  const panes = await e.call<{ panes: unknown[] }>('pane.list', {});
  assert.equal(panes.panes.length, 1);
  await waitFor(() => /restore: the snapshot .* is not valid JSON \(truncated or corrupt\); kept aside as .*\.bad-.*, starting fresh/.test(e.logTail(50)), { timeoutMs: 5000, message: 'message in the log', observe: () => e.logTail() });
  const list = JSON.parse(await cli(e, ['session', 'snapshots', '--json'])) as Array<{ status: string }>;
  assert.ok(list.some((r) => r.status === 'bad'), JSON.stringify(list));
});

test('session names: the snapshot, the bar and server status follow --session in any position; --no-restore starts fresh once', { timeout: 60_000 }, async (t) => {
  const { e } = setup(t, '');
  await cli(e, ['--session', 'work', 'server', 'start']);
  assert.match(await cli(e, ['--session', 'work', 'server', 'status']), /session work/);
  await cli(e, ['server', 'start', '--session', 'foo']);
  assert.match(await cli(e, ['server', 'status', '--session', 'foo']), /session foo/);
  await cli(e, ['--session', 'work', 'pane', 'split']);
  await waitFor(() => {
    const r = readSnapshot({ stateDir: e.stateDir, session: 'work' });
    return r.kind === 'ok' && r.snapshot.windows[0].panes.length === 2;
  }, { timeoutMs: 10_000, message: 'work.json with two panes' });
  assert.equal(readSnapshot({ stateDir: e.stateDir, session: 'default' }).kind, 'none');
  const r = await e.cli(['--session', 'work', 'server', 'status', '--json']);
  const pid = (JSON.parse(r.stdout) as { pid: number }).pid;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, message: 'work server dead' });
  await cli(e, ['--no-restore', '--session', 'work', 'server', 'start']);
  const panes = JSON.parse(await cli(e, ['--session', 'work', 'pane', 'list', '--json'])) as unknown[];
  assert.equal(panes.length, 1);
  await cli(e, ['--session', 'work', 'server', 'stop']);
  // foo was started inside work's server process (src/server/host, as tmux's sessions share one server): the kill -9
  // ended it too, and it comes back from its own snapshot only when started again.
  const foo = await e.cli(['server', 'stop', '--session', 'foo']);
  assert.equal(foo.code, 3, foo.stdout + foo.stderr);
});

test('an agent started from a definition comes back from it: resumed with its flags, its hooks armed again', { timeout: 60_000 }, async (t) => {
  const { e, proj } = setup(t, '');
  mkdirSync(join(e.home, '.castellan', 'agents'), { recursive: true });
  writeFileSync(
    join(e.home, '.castellan', 'agents', 'helper.md'),
    '---\nname: helper\ncommand: claude --model haiku\nagent: claude\nhooks:\n  UserPromptSubmit:\n    - command: "true"\n      type: "command"\n---\nYou help.\n',
  );
  await cli(e, ['server', 'start', '--cols', '160', '--rows', '48'], proj);
  await cli(e, ['agent', 'start', 'helper'], proj);
  await waitFor(() => {
    const r = readSnapshot({ stateDir: e.stateDir, session: 'default' });
    return r.kind === 'ok' && r.snapshot.windows[0].panes.some((p) => p.definition === 'helper' && p.agent?.sessionId);
  }, { timeoutMs: 20_000, message: 'snapshot with the definition pane' });
  await kill9(e);
  await cli(e, ['server', 'start'], proj);
  await waitFor(async () => (await screen(e, 'w1:p2')).includes(`FAKE claude argv: --model haiku --resume ${fakeSessionId('claude')}`), { timeoutMs: 15_000, message: 'helper resumed', observe: () => screen(e, 'w1:p2') });
  const list = await e.call<{ running: Array<{ agent_type: string; pane_id: string | null }> }>('agent.list', {});
  assert.deepEqual(list.running.map((r) => [r.agent_type, r.pane_id]), [['helper', 'w1:p2']], 'its hooks are registered for the restored pane');
});
