// An ACP session in a running castellan: a pane shows its log and state (herd list), its governance events reach the socket stream.
import { test } from 'node:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { ServerLink } from '../../src/hooks/emit.js';
import type { PaneInfo } from '../../src/api/pane-info.js';
import { startInProcess, waitFor } from '../api/in-process.js';
import { collectEvents } from '../agents/support.js';
import { makeRig, prompt, session } from './support.js';

test('herd list shows the ACP session\'s pane with its state; events reach subscribers', { timeout: 60_000 }, async () => {
  const srv = await startInProcess({ cols: 160, rows: 40 });
  const api = await srv.connect();
  const link = new ServerLink(srv.paths.socket);
  mkdirSync(join(srv.home, '.castellan'), { recursive: true });
  writeFileSync(join(srv.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  const r = await makeRig({ proxy: { pane: true, paths: srv.paths, link } });
  try {
    const events = await collectEvents(api, ['governance_decision', 'governance_session']);
    const sid = await session(r);
    const panes = async () => (await api.request<{ panes: PaneInfo[] }>('pane.list', {})).panes;
    const pane = (await waitFor(async () => (await panes()).find((p) => p.agent.name === 'node'), { message: 'a pane for the ACP session' }))!;
    await prompt(r, sid, `TOOL ${JSON.stringify({ toolCallId: 'h1', title: 'rm -rf /', kind: 'execute', rawInput: { command: 'rm -rf /' } })}`);
    await waitFor(async () => (await panes()).find((p) => p.pane_id === pane.pane_id)?.agent.state === 'idle', { message: 'idle after the turn' });
    // The pane shows the session log: castellan's denial is there.
    await waitFor(() => srv.session.readPane(pane.pane_id, { source: 'all' }).join('\n').includes('denied rm -rf /'), {
      message: 'the denial in the pane',
      timeoutMs: 10_000,
    });
    await waitFor(() => events.some((e) => e.type === 'governance_decision' && e.decision === 'deny' && e.agent_id === `acp:node:${sid}`), { message: 'the decision on the socket stream' });
    assert.ok(events.some((e) => e.type === 'governance_session' && e.phase === 'start'));
    await r.end();
    await waitFor(async () => (await panes()).find((p) => p.pane_id === pane.pane_id)?.agent.state === 'done', { message: 'done when the editor leaves' });
    await waitFor(() => events.some((e) => e.type === 'governance_session' && e.phase === 'end'), { message: 'SessionEnd on the stream' });
    await api.request('pane.close', { pane_id: pane.pane_id });
  } finally {
    // The proxy first: a link closed under a live proxy would be reopened by its last events.
    await r.close();
    link.close();
    await srv.stop();
  }
});
