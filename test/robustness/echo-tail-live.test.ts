// Hostile: typing without pause into one pane while another prints 2 MB. Its output then waits for turns instead of
// being parsed as it is read (parse-feed.ts): every key is still echoed, and not one byte of the other pane is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcess, waitFor } from '../api/in-process.js';

type Frame = { panes?: Record<string, { lines: Array<[number, string]> }> };
const LINES = 300_000;

test('while the user types into one pane, a pane printing 300k lines loses none of them and every key is echoed', async (t) => {
  const s = await startInProcess({ command: ['cat'], cols: 120, rows: 30 });
  t.after(() => s.stop());
  const c = await s.connect();
  const frames: Frame[] = [];
  c.onMessage((m) => {
    if (m.frame) frames.push(m.frame as Frame);
  });
  await c.request('client.attach', { cols: 120, rows: 30 });
  await c.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['sh', '-c', `seq 1 ${LINES}; echo END-OF-FLOOD; exec cat`], focus: false });
  const flooded = async () => (await c.request<{ text: string }>('pane.read', { pane_id: 'w1:p2' })).text.includes('END-OF-FLOOD');
  let code = 0x4e00;
  let keys = 0;
  const deadline = Date.now() + 120_000;
  // Keys back to back (each waits for its echo), so the flood is parsed while typing all along.
  while (!(await flooded())) {
    assert.ok(Date.now() < deadline, 'the flood ends within 120 s while typing');
    if (keys % 40 === 39) c.notify('client.input', { kind: 'data', data: '\r' });
    const ch = String.fromCodePoint(++code);
    const from = frames.length;
    c.notify('client.input', { kind: 'data', data: ch });
    keys++;
    await waitFor(() => frames.slice(from).some((f) => f.panes?.['w1:p1']?.lines.some(([, l]) => l.includes(ch))), { timeoutMs: 20_000, message: `the echo of key ${keys}` });
  }
  t.diagnostic(`${keys} keys echoed while the flood was parsed`);
  assert.ok(keys >= 3, `typing overlapped the flood (${keys} keys)`);
  const r = await c.request<{ lines: string[] }>('pane.read', { pane_id: 'w1:p2', source: 'scrollback', lines: 5000 });
  const text = r.lines.map((l) => l.trimEnd()).filter((l) => l !== '');
  const end = text.lastIndexOf('END-OF-FLOOD');
  assert.ok(end >= 2000, `END-OF-FLOOD after the numbers (at ${end})`);
  // The 2000 lines before the marker are the last 2000 numbers, each once, in order.
  const tail = text.slice(end - 2000, end);
  tail.forEach((l, i) => assert.equal(l, String(LINES - 2000 + 1 + i), `line ${i} of the tail`));
});
