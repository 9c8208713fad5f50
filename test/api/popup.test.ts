// popup.open / popup.close over the socket: the attached client gets the popup's frames, keys reach its pty, exit closes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiClient } from '../../src/api/client.js';
import { startInProcess, waitFor, type InProcessServer } from './in-process.js';

interface PopupMsg { id: string; open?: { rect: { x: number; y: number; w: number; h: number }; title: string }; lines?: Array<[number, string]>; closed?: { code: number | null; reason: string } }

async function attached(srv: InProcessServer, cols = 100, rows = 30): Promise<{ api: ApiClient; id: string; popups: PopupMsg[]; rows: Map<string, string[]> }> {
  const api = await srv.connect();
  const popups: PopupMsg[] = [];
  const rowsOf = new Map<string, string[]>();
  api.onMessage((m) => {
    const p = m.popup as PopupMsg | undefined;
    if (!p) return;
    popups.push(p);
    const r = rowsOf.get(p.id) ?? [];
    for (const [y, t] of p.lines ?? []) r[y] = t;
    rowsOf.set(p.id, r);
  });
  const r = await api.request<{ client_id: string }>('client.attach', { cols, rows });
  return { api, id: r.client_id, popups, rows: rowsOf };
}

test('popup.open draws on the latest client, takes its keys, closes on exit and is never a pane', async (t) => {
  const srv = await startInProcess({ cols: 100, rows: 30 });
  t.after(() => srv.stop());
  const c = await attached(srv);
  const cli = await srv.connect();
  const events: string[] = [];
  srv.session.subscribe({ types: ['popup_opened', 'popup_closed'] }, (e) => events.push(`${e.type}:${(e as unknown as { reason?: string }).reason ?? ''}`));
  const r = await cli.request<{ popup_id: string; client_id: string; cols: number; rows: number; cwd: string }>('popup.open', { command: ['/bin/sh', '-c', 'echo popup-says-hi; read x; echo got-$x; exit 3'], width: 40, height: '50%', title: 'hello' });
  assert.equal(r.client_id, c.id);
  assert.deepEqual([r.cols, r.rows], [38, 13]);
  const open = c.popups.find((p) => p.open);
  assert.deepEqual(open?.open, { rect: { x: 30, y: 7, w: 40, h: 15 }, title: 'hello' });
  await waitFor(() => c.rows.get(r.popup_id)?.some((l) => l.includes('popup-says-hi')), { message: 'popup output reaches the client' });
  // Keys of that client go to the popup, not to the pane under it.
  c.api.notify('client.input', { kind: 'data', data: 'abc\r' });
  await waitFor(() => c.rows.get(r.popup_id)?.some((l) => l.includes('got-abc')), { message: 'typed keys reach the popup' });
  const closed = (await waitFor(() => c.popups.find((p) => p.closed)))!;
  assert.equal(closed.closed?.code, 3);
  assert.equal(closed.closed?.reason, 'exited');
  assert.deepEqual(Object.keys(srv.session.state().panes), ['w1:p1'], 'a popup is never a pane');
  assert.deepEqual(events, ['popup_opened:', 'popup_closed:exited']);
  // Keys go back to the pane once it is gone.
  c.api.notify('client.input', { kind: 'data', data: 'echo back-in-pane\r' });
  await waitFor(async () => (await cli.request<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes('back-in-pane'));
});

test('popup.close kills the program early; closing a client\'s popup twice says there was none', async (t) => {
  const srv = await startInProcess();
  t.after(() => srv.stop());
  const c = await attached(srv);
  const r = await c.api.request<{ popup_id: string; client_id: string }>('popup.open', { command: ['sleep', '60'] });
  assert.equal(r.client_id, c.id, 'the caller\'s own client by default');
  const pid = await waitFor(() => srv.session.popups.list()[0]?.popup_id);
  assert.equal(pid, r.popup_id);
  assert.deepEqual(await c.api.request('popup.close', {}), { closed: true, popup_id: r.popup_id });
  await waitFor(() => c.popups.find((p) => p.closed?.reason === 'closed'));
  assert.deepEqual(srv.session.popups.list(), []);
  assert.deepEqual(await c.api.request('popup.close', {}), { closed: false });
});

test('a client that detaches takes its popup with it; the client is resized, so is the popup', async (t) => {
  const srv = await startInProcess();
  t.after(() => srv.stop());
  const c = await attached(srv, 100, 30);
  await c.api.request('popup.open', { command: ['sleep', '60'], width: '50%', height: '50%' });
  await c.api.request('client.resize', { cols: 60, rows: 20 });
  await waitFor(() => srv.session.popups.list()[0]?.cols === 28, { message: 'popup pty resized with the client' });
  assert.deepEqual(c.popups.filter((p) => p.open).at(-1)?.open?.rect, { x: 15, y: 5, w: 30, h: 10 });
  await c.api.request('client.detach', {});
  await waitFor(() => srv.session.popups.list().length === 0, { message: 'popup gone with its client' });
});
