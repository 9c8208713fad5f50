// Hostile popup.open / popup.close params: sizes out of range, missing programs, a second popup, gone panes, no client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcError } from '../../src/api/client.js';
import { startInProcess, waitFor } from '../api/in-process.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof RpcError, String(e));
    return e.code;
  }
}

test('popup.open refuses what it cannot draw or run, and the server carries on', async (t) => {
  const srv = await startInProcess({ cols: 80, rows: 24 });
  t.after(() => srv.stop());
  const cli = await srv.connect();
  assert.equal(await code(cli.request('popup.open', { command: ['true'] })), 'not_attached', 'no client to draw on');
  const ui = await srv.connect();
  await ui.request('client.attach', { cols: 80, rows: 24 });
  for (const params of [
    { width: -5 },
    { height: 0 },
    { width: '0%' },
    { width: '250%' },
    { width: 1e12 },
    { width: 'wide' },
    { width: 10.5 },
    { command: [] },
    { command: Array.from({ length: 300 }, () => 'x') },
    { command: ['x'.repeat(5000)] },
    { title: 't'.repeat(500) },
    { client_id: 'nobody' },
    { pane_id: 'not-a-pane' },
    { nonsense: true },
  ]) assert.equal(await code(cli.request('popup.open', params)), 'invalid_params', JSON.stringify(params).slice(0, 80));
  assert.equal(await code(cli.request('popup.open', { command: ['definitely-not-a-program-xyz'] })), 'invalid_params', 'a missing program is refused, not shown as exit 127');
  assert.equal(await code(cli.request('popup.open', { command: ['true'], cwd: '/nonexistent/dir' })), 'invalid_params');
  assert.equal(await code(cli.request('popup.open', { command: ['true'], client_id: 'c99' })), 'not_attached');
  assert.equal(await code(cli.request('popup.open', { command: ['true'], pane_id: 'w9:p9' })), 'pane_not_found', 'a pane that does not exist');
  // Cells beyond the terminal are cut to fit.
  const big = await cli.request<{ cols: number; rows: number }>('popup.open', { command: ['sleep', '60'], width: 10_000, height: 10_000 });
  assert.deepEqual([big.cols, big.rows], [78, 22]);
  assert.equal(await code(cli.request('popup.open', { command: ['true'] })), 'not_allowed', 'one popup per client');
  assert.equal(await code(cli.request('popup.close', {})), 'invalid_params', 'a CLI connection has no popup of its own');
  assert.equal(await code(cli.request('popup.close', { popup_id: '../etc' })), 'invalid_params');
  assert.deepEqual(await cli.request('popup.close', { popup_id: 'popup999' }), { closed: false });
  assert.equal((await cli.request<{ closed: boolean }>('popup.close', { client_id: 'c1' })).closed, true);
  assert.equal((await cli.request<{ pong?: boolean; version: string }>('ping')).version, 'test');
});

test('a popup over a window that closes stays up; a popup for a closed pane is refused', async (t) => {
  const srv = await startInProcess({ cols: 80, rows: 24 });
  t.after(() => srv.stop());
  const ui = await srv.connect();
  await ui.request('client.attach', { cols: 80, rows: 24 });
  const w2 = await ui.request<{ window_id: string; pane_id: string }>('window.new', {});
  const p = await ui.request<{ popup_id: string }>('popup.open', { command: ['sleep', '60'], pane_id: w2.pane_id });
  await ui.request('window.close', { window_id: w2.window_id });
  assert.equal(srv.session.popups.list()[0]?.popup_id, p.popup_id, 'the popup belongs to the client, not the window');
  await ui.request('popup.close', {});
  assert.equal(await code(ui.request('popup.open', { command: ['true'], pane_id: w2.pane_id })), 'pane_not_found');
  // A flood in a popup does not stall the server.
  await ui.request('popup.open', { command: ['sh', '-c', 'yes popup-flood | head -c 5000000; sleep 60'] });
  const t0 = Date.now();
  await ui.request('ping');
  assert.ok(Date.now() - t0 < 3000, 'ping answers during a popup flood');
  await ui.request('popup.close', {});
  await waitFor(() => srv.session.popups.list().length === 0);
});
