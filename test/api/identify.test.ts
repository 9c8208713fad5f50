// Agent identification in a live pane: `exec claude` keeps the pid and process group, and must still be noticed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { backends, setProcBackend } from '../../src/platform/proc/index.js';
import { psRuns } from '../../src/platform/proc/portable.js';
import { startInProcess, waitFor, type InProcessServer } from './in-process.js';

let srv: InProcessServer;
let api: ApiClient;
before(async () => {
  srv = await startInProcess();
  api = await srv.connect();
});
after(() => srv.stop());

test('an agent exec-ed from the shell is identified from the process tree (same pid and group, new program)', async () => {
  const bin = join(srv.home, 'fakebin');
  mkdirSync(bin, { recursive: true });
  // The kernel names a script's process after the script file: this "claude" looks like Claude Code to castellan.
  writeFileSync(join(bin, 'claude'), '#!/bin/sh\nprintf "\\342\\235\\257 \\n"\nwhile read -r line; do echo "got $line"; done\n', { mode: 0o755 });
  const { pane_id } = await api.request<{ pane_id: string }>('pane.split', { command: ['/bin/sh'] });
  await api.request('pane.send_text', { pane_id, text: 'echo at-prompt', enter: true });
  await waitFor(async () => (await api.request<{ text: string }>('pane.read', { pane_id })).text.includes('at-prompt'), { message: 'shell ran' });
  await api.request('pane.send_text', { pane_id, text: `exec ${join(bin, 'claude')}`, enter: true });
  const ex = await waitFor(
    async () => {
      const x = (await srv.session.explainPane(pane_id)) as { identification: { agent?: string; source: string } | null };
      return x.identification?.agent === 'claude' ? x : undefined;
    },
    { message: 'claude identified after exec', timeoutMs: 5000 },
  );
  assert.equal((ex as { identification: { source: string } }).identification.source, 'process');
  await waitFor(async () => (await api.request<{ title: string }>('pane.get', { pane_id })).title === 'claude', { message: 'the pane is named after it' });
});

test('herd explain under the portable backend (ps, as on a Mac) identifies without starting ps on the server\'s thread', async (t) => {
  setProcBackend(backends.portable);
  const s = await startInProcess();
  t.after(async () => {
    await s.stop();
    setProcBackend(undefined);
  });
  const c = await s.connect();
  const bin = join(s.home, 'fakebin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'claude'), '#!/bin/sh\nprintf "\\342\\235\\257 \\n"\nwhile read -r line; do echo "got $line"; done\n', { mode: 0o755 });
  await c.request('pane.send_text', { pane_id: 'w1:p1', text: `exec ${join(bin, 'claude')}`, enter: true });
  const before = psRuns.onThread;
  const ex = await waitFor(async () => {
    const x = await c.request<{ identification: { agent?: string; source: string } | null }>('pane.explain', { pane_id: 'w1:p1' });
    return x.identification?.agent === 'claude' ? x : undefined;
  }, { message: 'claude identified by pane.explain', timeoutMs: 10_000 });
  assert.equal(ex!.identification?.source, 'process');
  assert.equal(psRuns.onThread - before, 0, 'no ps or lsof started on the server\'s thread while explaining');
});
