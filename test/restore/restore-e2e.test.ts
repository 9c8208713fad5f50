// End to end through the real bin: a session with 2 windows, 6 panes (4 fake agents), zoom, a cd and 5,000 lines; kill -9 or stop; start again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot } from '../../src/restore/store.js';
import { tempEnvFor, pidAlive, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { fakeSessionId, writeFakeAgents } from './fake-agents.js';

interface PaneRow { pane_id: string; window_id: string; cwd: string; cols: number; rows: number; agent: { name?: string } }
interface WindowRow { window_id: string; index: number; name: string; active_pane: string; zoomed: boolean; panes: string[] }

const FLAGS: Record<string, { typed: string; expect: string }> = {
  claude: { typed: 'claude --model opus --permission-mode plan "first prompt"', expect: `FAKE claude argv: --model opus --permission-mode plan --resume ${fakeSessionId('claude')}` },
  codex: { typed: 'codex -m gpt-5 --yolo', expect: `FAKE codex argv: resume -m gpt-5 --yolo ${fakeSessionId('codex')}` },
  gemini: { typed: 'gemini --yolo -m flash', expect: `FAKE gemini argv: --yolo -m flash --resume ${fakeSessionId('gemini')}` },
  pi: { typed: 'pi --model mock --thinking high', expect: `FAKE pi argv: --model mock --thinking high --session ${fakeSessionId('pi')}` },
};

async function cli(e: TempEnv, args: string[]): Promise<string> {
  const r = await e.cli(args, { timeoutMs: 20_000 });
  assert.equal(r.code, 0, `castellan ${args.join(' ')}: ${r.stderr}\n${e.logTail()}`);
  return r.stdout;
}

async function screen(e: TempEnv, pane: string, lines = 40): Promise<string> {
  const r = await e.call<{ lines: string[] }>('pane.read', { pane_id: pane, lines }, 5000);
  return r.lines.join('\n');
}

async function send(e: TempEnv, pane: string, text: string): Promise<void> {
  await e.call('pane.send_text', { pane_id: pane, text: text + '\r' });
}

/** The shape a user sees: windows in order with names and zoom, panes with sizes (so the ratios) and focus. */
async function shape(e: TempEnv) {
  const w = await e.call<{ windows: WindowRow[] }>('window.list', {});
  const p = await e.call<{ panes: PaneRow[] }>('pane.list', {});
  return {
    windows: w.windows.map((x) => ({ id: x.window_id, index: x.index, name: x.name, active: x.active_pane, zoomed: x.zoomed, panes: [...x.panes].sort() })),
    panes: p.panes.map((x) => ({ id: x.pane_id, cols: x.cols, rows: x.rows })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

async function build(e: TempEnv, proj: string) {
  await cli(e, ['server', 'start', '--cols', '200', '--rows', '60']);
  const split = async (pane: string, dir: string, percent?: string) => (await cli(e, ['pane', 'split', '--pane', pane, '--direction', dir, ...(percent ? ['--percent', percent] : [])])).trim();
  const p2 = await split('w1:p1', 'right', '30');
  const p3 = await split('w1:p1', 'down');
  const p4 = await split(p2, 'down');
  assert.deepEqual([p2, p3, p4], ['w1:p2', 'w1:p3', 'w1:p4']);
  await send(e, 'w1:p2', `cd ${proj} && seq 1 5000`);
  await send(e, 'w1:p3', FLAGS.claude.typed);
  await send(e, 'w1:p4', FLAGS.codex.typed);
  const w2 = (await cli(e, ['window', 'new', '--name', 'agents'])).trim().split(/\s+/);
  assert.deepEqual(w2, ['w2', 'w2:p1']);
  const p22 = await split('w2:p1', 'right');
  await send(e, 'w2:p1', FLAGS.gemini.typed);
  await send(e, p22, FLAGS.pi.typed);
  // Zoom a pane of window 1 and focus pane 3 there (a client-less action goes to the current window).
  await e.call('window.select', { window_id: 'w1' });
  await e.call('pane.focus', { pane_id: 'w1:p2' });
  const c = await e.api();
  await c.request('client.attach', { cols: 200, rows: 60 }, { timeoutMs: 5000 });
  await c.request('client.action', { action: { type: 'pane.zoom', pane: 'w1:p2', mode: 'on' } }, { timeoutMs: 5000 });
  c.close();
  for (const [pane, agent] of [['w1:p3', 'claude'], ['w1:p4', 'codex'], ['w2:p1', 'gemini'], ['w2:p2', 'pi']] as const) {
    await waitFor(async () => (await screen(e, pane)).includes(`FAKE ${agent} argv:`), { timeoutMs: 15_000, message: `${agent} started`, observe: () => screen(e, pane) });
  }
}

/** The snapshot on disk has caught up: every agent with its hook-reported id, the cd, the history. */
async function snapshotCaughtUp(e: TempEnv, proj: string) {
  const paths = { stateDir: e.stateDir, session: 'default' };
  await waitFor(
    () => {
      const r = readSnapshot(paths);
      if (r.kind !== 'ok') return false;
      const panes = r.snapshot.windows.flatMap((w) => w.panes);
      const ids = panes.filter((p) => p.agent?.sessionId).map((p) => p.agent!.sessionId).sort();
      const p2 = panes.find((p) => p.id === 'w1:p2');
      return ids.length === 4 && p2?.cwd === proj && (p2.historyLines ?? 0) > 1000 && r.snapshot.windows[0].zoomed === 'w1:p2';
    },
    { timeoutMs: 20_000, message: 'the snapshot to catch up', observe: () => JSON.stringify(readSnapshot(paths)).slice(0, 3000) },
  );
}

async function checkRestored(e: TempEnv, proj: string, before: Awaited<ReturnType<typeof shape>>) {
  assert.deepEqual(await shape(e), before);
  const p2 = await e.call<PaneRow>('pane.get', { pane_id: 'w1:p2' });
  await waitFor(async () => (await e.call<PaneRow>('pane.get', { pane_id: 'w1:p2' })).cwd === proj, { timeoutMs: 5000, message: `w1:p2 in ${proj}, was ${p2.cwd}` });
  const text = await screen(e, 'w1:p2', 12);
  assert.match(text, /4999\n5000\n/);
  assert.match(text, /restored by castellan, snapshot of/);
  for (const [pane, agent] of [['w1:p3', 'claude'], ['w1:p4', 'codex'], ['w2:p1', 'gemini'], ['w2:p2', 'pi']] as const) {
    await waitFor(async () => (await screen(e, pane, 60)).includes(FLAGS[agent].expect), { timeoutMs: 15_000, message: `${agent} resumed with its flags`, observe: () => screen(e, pane, 60) });
  }
}

test('kill -9, then start: same windows, layout, zoom, focus, cwd, history, and every agent resumed with its flags', { timeout: 120_000 }, async (t) => {
  const e = tempEnvFor(t);
  const bin = join(e.root, 'fakebin');
  writeFakeAgents(bin);
  e.env.PATH = `${bin}:${e.env.PATH}`;
  const proj = realpathSync(e.root) + '/proj';
  mkdirSync(proj);
  await build(e, proj);
  const before = await shape(e);
  await snapshotCaughtUp(e, proj);
  const pid = (await e.serverPid())!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, message: 'server dead' });
  await cli(e, ['server', 'start']);
  await checkRestored(e, proj, before);

  // The same after a polite stop, which writes the snapshot itself.
  await snapshotCaughtUp(e, proj);
  const out = await cli(e, ['server', 'stop']);
  assert.match(out, /will be restored at the next start/);
  await cli(e, ['server', 'start']);
  await checkRestored(e, proj, before);

  // --forget: nothing left to restore.
  await cli(e, ['server', 'stop', '--forget']);
  assert.equal(readSnapshot({ stateDir: e.stateDir, session: 'default' }).kind, 'none');
  await cli(e, ['server', 'start']);
  assert.equal((await shape(e)).panes.length, 1);
});
