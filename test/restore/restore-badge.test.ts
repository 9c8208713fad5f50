// Painting a restored pane's history is not the pane working. Found in a live check (kill -9, then a start): restored
// shells (seq 1 20000) in background windows went working, then "done", and resumed Gemini CLI panes said "done"
// (status line "gemini in w1:p4 is done") though nothing had run since the restore. PaneRuntime.showing keeps
// detection off the screen while castellan's own text is parsed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSnapshot } from '../../src/restore/store.js';
import { tempEnvFor, pidAlive, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

interface PaneRow { pane_id: string; agent: { state: string } }

async function cli(e: TempEnv, args: string[]): Promise<string> {
  const r = await e.cli(args, { timeoutMs: 20_000 });
  assert.equal(r.code, 0, `castellan ${args.join(' ')}: ${r.stderr}\n${e.logTail()}`);
  return r.stdout;
}

const screen = async (e: TempEnv, pane: string) => (await e.call<{ lines: string[] }>('pane.read', { pane_id: pane, lines: 60 }, 5000)).lines.join('\n');
const state = async (e: TempEnv, pane: string) => (await e.call<PaneRow>('pane.get', { pane_id: pane })).agent.state;

test('restored shells whose long histories were seen before the crash, in background windows, are not "working" or "done" after the restore paints it', { timeout: 90_000 }, async (t) => {
  const e = tempEnvFor(t);
  await cli(e, ['server', 'start', '--cols', '160', '--rows', '48']);
  // A client looks at each of three more windows while its pane prints 10 000 coloured lines, so each finished
  // command is seen (idle); then the user goes back to window 1, the restore's current window.
  const c = await e.api();
  t.after(() => c.close());
  await c.request('client.attach', { cols: 160, rows: 48 }, { timeoutMs: 5000 });
  const panes: string[] = [];
  for (let w = 0; w < 3; w++) {
    const p = (await cli(e, ['window', 'new'])).trim().split(/\s+/)[1];
    panes.push(p);
    await e.call('pane.focus', { pane_id: p });
    await e.call('pane.send_text', { pane_id: p, text: 'for i in $(seq 1 10000); do printf "\\033[3%dm line %d \\033[1mbold\\033[0;4m under\\033[0m some more text here\\n" $((i%8)) $i; done; echo FILLED\r' });
    await waitFor(async () => /^FILLED$/m.test(await screen(e, p)) && (await state(e, p)) === 'idle', { timeoutMs: 30_000, message: `${p} filled and seen`, observe: () => state(e, p) });
  }
  await e.call('window.select', { window_id: 'w1' });
  for (const p of panes) assert.equal(await state(e, p), 'idle', p);
  const paths = { stateDir: e.stateDir, session: 'default' };
  await waitFor(() => {
    const r = readSnapshot(paths);
    const all = r.kind === 'ok' ? r.snapshot.windows.flatMap((w) => w.panes) : [];
    return panes.every((id) => (all.find((p) => p.id === id)?.historyLines ?? 0) >= 9000);
  }, { timeoutMs: 30_000, message: 'the snapshot to hold the histories' });
  c.close();

  const pid = (await e.serverPid())!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, message: 'server dead' });
  await cli(e, ['server', 'start']);
  const c2 = await e.api();
  t.after(() => c2.close());
  const seen: string[] = [];
  c2.onMessage((m) => {
    const ev = m.event as { type?: string; pane?: string; new?: string } | undefined;
    if (ev?.type === 'pane_agent_status_changed' && ev.pane && panes.includes(ev.pane) && ev.new) seen.push(`${ev.pane}=${ev.new}`);
  });
  await c2.request('events.subscribe', { types: ['pane_agent_status_changed'] }, { timeoutMs: 5000 });
  await c2.request('client.attach', { cols: 160, rows: 48 }, { timeoutMs: 5000 });
  for (const p of panes) await waitFor(async () => (await screen(e, p)).includes('restored by castellan'), { timeoutMs: 20_000, message: `${p} history painted` });
  // Quiet for the detector's settle time: whatever it read from the paint has shown by then.
  const until = Date.now() + 4000;
  const states: string[] = [];
  await waitFor(async () => {
    for (const p of panes) states.push(`${p}=${await state(e, p)}`);
    return Date.now() > until;
  }, { timeoutMs: 10_000, intervalMs: 100, message: 'sampling' });
  const wrong = [...new Set([...states, ...seen])].filter((s) => /=(working|done)$/.test(s));
  assert.deepEqual(wrong, [], `restored shells read as busy or finished: ${wrong.join(', ')} (sampled: ${[...new Set(states)].join(', ')}; events: ${seen.join(', ')})`);
});
