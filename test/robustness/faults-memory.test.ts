// Hostile case: panes whose program exited and that were then closed must give back their screen and scrollback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startInProcess } from '../api/in-process.js';
import { listPanes } from '../support/api.js';
import { tempEnvFor } from '../support/temp-env.js';
import { liveMemory } from '../support/live-memory.js';
import { waitFor } from '../support/wait-for.js';

const PANES = 20;
/** ~12,000 lines: more than the default 10,000 lines of scrollback, so every pane's history is full (~1 MB each in the history store). */
// Exits 1: a failed pane stays (remain_on_exit "failed"), holding its scrollback until closed.
const FLOOD = ['sh', '-c', 'seq -f "%08g a line of scrollback text" 1 12000; exit 1'];
const MB = 1024 * 1024;


test(`${PANES} exited panes with full scrollback, once closed, leave the server's live memory near its baseline`, async (t) => {
  const srv = await startInProcess({ command: ['sh', '-c', 'while :; do sleep 1; done'] });
  t.after(() => srv.stop());
  const before = await liveMemory();
  const ids: string[] = [];
  for (let i = 0; i < PANES; i++) {
    const r = srv.session.dispatch({ type: 'window.new', command: FLOOD });
    ids.push((r.result as { pane: string }).pane);
  }
  await waitFor(() => ids.every((id) => srv.session.state().panes[id]?.exited), { timeoutMs: 60_000, message: 'every flood pane exits' });
  const full = await liveMemory();
  for (const id of ids) srv.session.dispatch({ type: 'pane.close', pane: id });
  const after = await liveMemory();
  t.diagnostic(`live memory: baseline ${(before / MB).toFixed(1)} MB, ${PANES} exited panes ${(full / MB).toFixed(1)} MB, after closing them ${(after / MB).toFixed(1)} MB`);
  assert.ok(full - before > PANES * 0.5 * MB, `the panes held their scrollback while open (${((full - before) / MB).toFixed(1)} MB)`);
  assert.equal(srv.session.stats().panes, 1, 'only the first pane keeps a runtime');
  assert.ok(after - before < (full - before) / 2, `closing the exited panes gives their memory back: ${((after - before) / MB).toFixed(1)} MB above baseline`);
});

test(`ping counts the ${PANES} closed panes out again (real server)`, async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--', 'sh', '-c', 'while :; do sleep 1; done'])).code, 0, env.logTail());
  const pid = (await env.serverPid())!;
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const ping = () => env.call<{ panes: number }>('ping');
  const base = await ping();
  const baseRss = rss();
  const ids: string[] = [];
  for (let i = 0; i < PANES; i++) ids.push((await env.call<{ pane_id: string }>('window.new', { command: FLOOD })).pane_id);
  await waitFor(async () => (await listPanes(env)).filter((p) => p.exited).length === PANES, { timeoutMs: 60_000, message: 'every flood pane exits' });
  const fullRss = rss();
  assert.equal((await ping()).panes, base.panes + PANES);
  for (const id of ids) await env.call('pane.close', { pane_id: id });
  assert.equal((await ping()).panes, base.panes, 'ping counts only the panes still open');
  // RSS is reported, not asserted: freed memory goes back to the allocator, which need not return it to the OS.
  t.diagnostic(`server RSS: baseline ${baseRss.toFixed(0)} MB, ${PANES} exited panes ${fullRss.toFixed(0)} MB, closed ${rss().toFixed(0)} MB`);
});
