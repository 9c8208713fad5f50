// Issue 30 item 16: an agent whose directory was deleted is resumed elsewhere, and its own screen clear wiped the dim line
// that said so. The pane keeps the fact: in its border (`dir gone: …`) and in `herd list` (a `cwd_gone` field in --json,
// a `!` mark and a line under the table), for its life.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot } from '../../src/restore/store.js';
import { planRestore } from '../../src/restore/plan.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { buildView } from '../../src/core/view.js';
import { frameParts } from '../../src/client/ui/frame-parts.js';
import { loadTheme as load } from '../../src/config/themes.js';
const loadTheme = (n: string) => load(n, {}).theme;
import { BIN, tempEnvFor, pidAlive } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import type { Snapshot } from '../../src/restore/schema.js';

const snap = (cwd: string): Snapshot => ({
  version: 1,
  session: 't',
  savedAt: 0,
  cwd: '/',
  size: { cols: 100, rows: 30 },
  windows: [{ id: 'w1', layout: { kind: 'leaf', pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd, kind: 'agent', foreground: ['claude', '--model', 'opus'], agent: { name: 'claude', sessionId: 'abc-1', sessionFrom: 'hook' } }] }],
});

test('the plan, the state and the border carry the gone directory; a directory still there carries nothing', () => {
  const ctx = (there: boolean) => ({ shell: ['/bin/sh'], relaunch: [], isDir: (p: string) => there || p === '/', fallbackCwd: '/' });
  const gone = planRestore(snap('/work/deleted-proj'), ctx(false));
  const kept = planRestore(snap('/work/proj'), ctx(true));
  assert.equal(gone.action.windows[0].panes[0].cwdGone, '/work/deleted-proj');
  assert.equal(kept.action.windows[0].panes[0].cwdGone, undefined);
  const st = reduce(emptyState('t', { cols: 100, rows: 30 }), gone.action, { now: 1, defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state;
  assert.equal(st.panes['w1:p1'].cwdGone, '/work/deleted-proj');
  assert.equal(st.panes['w1:p1'].cwd, '/');
  // The agent's reports do not clear it.
  const after = reduce(st, { type: 'agent.report', pane: 'w1:p1', agent: 'claude', state: 'working', source: 'hook' }, { now: 2, defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state;
  const st2 = reduce(after, { type: 'client.attach', client: 'c1', cols: 100, rows: 30 } as never, { now: 3, defaultCommand: ['/bin/sh'], defaultCwd: '/' }).state;
  const view = buildView(st2, 'c1') ?? buildView(after, Object.keys(after.clients)[0] ?? 'none');
  const pane = view?.window.panes[0];
  assert.equal(pane?.cwdGone, '/work/deleted-proj');
  const parts = frameParts(pane!, loadTheme('default'), 'round');
  const text = [...parts.left, ...parts.right].map((s) => s.text).join('|');
  assert.match(text, /dir gone: \/work\/deleted-proj/);
  // A deep path keeps its end (the part that names the project).
  const deep = frameParts({ ...pane!, cwdGone: `/home/someone/${'very/'.repeat(12)}my-project` }, loadTheme('default'), 'round');
  assert.match([...deep.left, ...deep.right].map((s) => s.text).join('|'), /dir gone: …[^|]*my-project/);
  // Hostile: control characters in a recorded directory never reach the border or herd list.
  const evil = planRestore(snap('/x/\x1b]0;pwned\x07dir'), ctx(false));
  assert.doesNotMatch(evil.action.windows[0].panes[0].cwdGone!, /[\x00-\x1f]/);
});

test('kill -9, the directory deleted, start: the resumed agent\'s pane says so in herd list, table and --json', { timeout: 120_000 }, async (t) => {
  const e = tempEnvFor(t);
  const bin = join(e.root, 'fakebin');
  mkdirSync(bin);
  // A fake claude that reports its session id through the real bridge, then clears its screen and scrollback as Claude does.
  const payload = JSON.stringify({ session_id: 'gone-sess-0001', prompt: 'hi', hook_event_name: 'UserPromptSubmit' });
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s' '${payload}' | '${process.execPath}' '${BIN}' hook claude UserPromptSubmit >/dev/null 2>&1\nprintf '\\033[2J\\033[3J\\033[H'\necho "FAKE claude argv: $*"\nwhile :; do sleep 1; done\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  e.env.PATH = `${bin}:${e.env.PATH}`;
  const proj = realpathSync(e.root) + '/doomed-proj';
  mkdirSync(proj);
  const cli = async (args: string[]) => {
    const r = await e.cli(args, { timeoutMs: 20_000 });
    assert.equal(r.code, 0, `castellan ${args.join(' ')}: ${r.stderr}\n${e.logTail()}`);
    return r.stdout;
  };
  await cli(['server', 'start']);
  await e.call('pane.send_text', { pane_id: 'w1:p1', text: `cd ${proj} && claude --model opus\r` });
  const paths = { stateDir: e.stateDir, session: 'default' };
  await waitFor(() => {
    const r = readSnapshot(paths);
    const p = r.kind === 'ok' ? r.snapshot.windows[0].panes[0] : undefined;
    return p?.agent?.sessionId === 'gone-sess-0001' && p.cwd === proj;
  }, { timeoutMs: 30_000, message: 'the snapshot has the agent in its directory' });
  const pid = (await e.serverPid())!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, message: 'server dead' });
  rmSync(proj, { recursive: true, force: true });
  await cli(['server', 'start']);
  const screen = async () => (await e.call<{ lines: string[] }>('pane.read', { pane_id: 'w1:p1', lines: 40 })).lines.join('\n');
  await waitFor(async () => (await screen()).includes('FAKE claude argv: --model opus --resume gone-sess-0001'), { timeoutMs: 20_000, message: 'claude resumed elsewhere', observe: screen });
  // The agent's clear wiped the dim line: the screen no longer says the directory was gone.
  assert.doesNotMatch(await screen(), /is gone/);
  const rows = JSON.parse(await cli(['herd', 'list', '--json'])) as Array<{ pane_id: string; cwd_gone: string | null }>;
  assert.deepEqual(rows.map((r) => [r.pane_id, r.cwd_gone]), [['w1:p1', proj]]);
  const table = await cli(['herd', 'list']);
  assert.match(table, /^w1:p1 !/m);
  assert.ok(table.includes(`! w1:p1: its directory ${proj} was gone when it was restored`), table);
});
