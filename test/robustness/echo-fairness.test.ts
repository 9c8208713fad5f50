// Hostile: a pane flooding 100 MB must not starve another pane's echo, and a client that stops reading must not stall
// the other clients or the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { ApiClient } from '../../src/api/client.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';

type Frame = { panes?: Record<string, { lines: Array<[number, string]> }> };
// 100 MB of numbered coloured lines (every frame differs); `head` may cut the last escape sequence in half.
const FLOOD = `awk 'BEGIN { for (i = 0; ; i++) printf "\\033[1;31mflood\\033[0m %d \\033[38;5;42m%s\\033[0m\\n", i, "abcdefghijklmnopqrstuvwxyz" }' | head -c 104857600`;

async function floodingSession(t: { after(fn: () => unknown): void }): Promise<{ s: InProcessServer; c: ApiClient; frames: Frame[] }> {
  const s = await startInProcess({ command: ['cat'], cols: 160, rows: 40 });
  t.after(() => s.stop());
  const c = await s.connect();
  const frames: Frame[] = [];
  c.onMessage((m) => {
    if (m.frame) frames.push(m.frame as Frame);
  });
  await c.request('client.attach', { cols: 160, rows: 40 });
  await c.request('pane.split', { pane_id: 'w1:p1', direction: 'right', command: ['sh', '-c', FLOOD], focus: false });
  await waitFor(() => frames.filter((f) => f.panes?.['w1:p2']).length >= 3, { timeoutMs: 20_000, message: 'the flood to be painted' });
  return { s, c, frames };
}

test('while another pane floods 100 MB, every key is echoed, and the frame that carries the echo carries nothing of the flood', async (t) => {
  const { c, frames } = await floodingSession(t);
  let code = 0x4e00;
  let alone = 0;
  const between: number[] = [];
  const keys = 20;
  for (let k = 0; k < keys; k++) {
    const ch = String.fromCodePoint(++code);
    const from = frames.length;
    c.notify('client.input', { kind: 'data', data: ch });
    const at = await waitFor(
      () => {
        for (let i = from; i < frames.length; i++) if (frames[i].panes?.['w1:p1']?.lines.some(([, l]) => l.includes(ch))) return i + 1;
        return 0;
      },
      { timeoutMs: 10_000, message: `the echo of key ${k}` },
    );
    const f = frames[at - 1];
    if (!f.panes?.['w1:p2']) alone++;
    // Flood frames that went out before the echo's own frame (the tick runs every ~33 ms; the echo takes ~1 ms).
    between.push(at - 1 - from);
  }
  t.diagnostic(`echo frames without flood rows: ${alone}/${keys}; flood frames before each echo: ${between.join(' ')}`);
  // On an overloaded machine a key can take longer than the 150 ms input window and ride a regular frame: a few may.
  assert.ok(alone >= keys * 0.75, `${alone} of ${keys} echo frames went out on their own`);
  // A sanity bound only (it is wall time against the 33 ms tick): at most ~130 ms for the median echo even under load.
  const sorted = [...between].sort((a, b) => a - b);
  assert.ok(sorted[Math.floor(keys / 2)] <= 4, `median flood frames before an echo: ${sorted[Math.floor(keys / 2)]}`);
  // The server still answers while the flood is parsed.
  const t0 = Date.now();
  await c.request('ping', {});
  assert.ok(Date.now() - t0 < 5000);
});

test('a client that stops reading neither stalls the other client nor grows the server\'s queue without bound', async (t) => {
  const { s, frames } = await floodingSession(t);
  const stalled = net.connect(s.paths.socket);
  try {
    await stalledClient(s, stalled, frames);
  } finally {
    // Before the server stops (it waits for its connections to close).
    stalled.destroy();
  }
});

async function stalledClient(s: InProcessServer, stalled: net.Socket, frames: Frame[]): Promise<void> {
  await new Promise<void>((r) => stalled.once('connect', () => r()));
  stalled.write(JSON.stringify({ id: 1, method: 'client.attach', params: { cols: 160, rows: 40 } }) + '\n');
  // Reads its first bytes, then never again.
  await new Promise<void>((r) => stalled.once('data', () => r()));
  stalled.pause();
  const from = frames.length;
  await waitFor(() => frames.length - from >= 10, { timeoutMs: 20_000, message: 'the reading client to keep getting frames' });
  const c2 = await s.connect();
  const t0 = Date.now();
  await c2.request('ping', {});
  assert.ok(Date.now() - t0 < 5000, 'the server answers');
  // What was queued for the stalled client: frames are skipped once 512 KB wait, so it stays small.
  let backlog = 0;
  stalled.on('data', (d: Buffer) => (backlog += d.length));
  stalled.resume();
  await waitFor(() => backlog > 0, { timeoutMs: 10_000, message: 'the stalled client to get its backlog' });
  const settled = Date.now() + 300;
  await waitFor(() => Date.now() > settled);
  assert.ok(backlog < 8 * 1024 * 1024, `${backlog} bytes were queued for the stalled client`);
}
