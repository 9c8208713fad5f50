// The agent picker: `prefix a` lists definitions (name, description), arrows choose, Enter launches into a split of the
// focused pane, Esc closes; untrusted ones say why instead of starting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { ClientApp, type ClientConfig } from '../../src/client/app.js';
import { overlayInput } from '../../src/client/overlays.js';
import { composed } from '../../src/client/ui/chrome-lines.js';
import type { LocalUi, Overlay, PickerAgent } from '../../src/client/ui-state.js';
import { loadTheme } from '../../src/config/themes.js';
import type { ViewModel } from '../../src/core/view.js';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { writeAgent, writeFakeAgent } from './support.js';

const items: PickerAgent[] = [
  { name: 'reviewer', description: 'Reviews diffs', command: 'claude', source: 'user', startable: true },
  { name: 'repo-bot', description: 'From the repo', command: 'codex', source: 'project', startable: false, reason: '.castellan/agents/repo-bot.md is not trusted' },
];
const key = (k: string) => ({ type: 'key' as const, key: k, raw: '' });

test('picker keys: arrows move (clamped), Enter launches a startable agent or explains, Esc closes', () => {
  let o: Overlay = { kind: 'agents', items, index: 0, loading: false, target: 'w1:p1' };
  const step = (k: string) => overlayInput(o, key(k), 20);
  let r = step('Up');
  assert.equal(r.kind === 'update' && r.overlay?.kind === 'agents' && r.overlay.index, 0);
  r = step('Enter');
  assert.deepEqual(r.kind === 'launch-agent' && [r.name, r.overlay.target], ['reviewer', 'w1:p1']);
  r = step('Down');
  o = (r as { overlay: Overlay }).overlay;
  assert.equal(step('Down').kind === 'update' && (step('Down') as { overlay: { index: number } }).overlay.index, 1);
  r = step('Enter');
  assert.equal(r.kind, 'update');
  assert.match((r as { overlay: { message: string } }).overlay.message, /repo-bot cannot start: .*not trusted/);
  assert.deepEqual(step('Escape'), { kind: 'update', overlay: undefined });
});

test('the picker overlay shows names, sources and descriptions, and the selected one\'s command', () => {
  const theme = loadTheme('default', {}).theme;
  const view: ViewModel = {
    session: 's',
    area: { cols: 80, rows: 23 },
    windows: [{ id: 'w1', index: 1, name: 'a', current: true, alert: false, panes: 1, rollup: 'idle', zoomed: false }],
    window: { id: 'w1', zoomed: false, panes: [{ id: 'w1:p1', title: 'sh', rect: { x: 0, y: 0, w: 80, h: 23 }, focused: true, state: 'unknown', waiting: false }] },
    counts: { blocked: 0, done: 0, working: 0, idle: 0, unknown: 1 },
  };
  const local: LocalUi = { prefix: false, overlay: { kind: 'agents', items, index: 0, loading: false } };
  const lines = composed({ view, local, theme, cols: 80, rows: 24, barAtTop: false, borders: 'rounded', bindings: DEFAULT_BINDINGS, prefixKey: 'C-b' })!.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
  assert.match(lines[0], /launch an agent in a new pane/);
  assert.match(lines[2], /^ › reviewer +user +Reviews diffs/);
  assert.match(lines[3], /^ {3}repo-bot +project ✗ +From the repo/);
  assert.match(lines[22], /runs: claude/);
});

describe('prefix a in a real client', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let app: ClientApp;
  before(async () => {
    srv = await startInProcess({ cols: 120, rows: 30 });
    const fake = writeFakeAgent(srv.home);
    writeAgent(join(srv.home, '.castellan', 'agents'), 'a.md', `name: alpha\ndescription: first\ncommand: sh ${fake}`);
    writeAgent(join(srv.home, '.castellan', 'agents'), 'b.md', `name: beta\ndescription: second\ncommand: sh ${fake}`);
    api = await srv.connect();
    const cfg = await api.request<ClientConfig>('client.attach', { cols: 120, rows: 30 });
    app = new ClientApp(api, cfg, { write: () => {}, size: () => ({ cols: 120, rows: 30 }), exit: () => {} });
    await waitFor(() => (app as unknown as { view?: unknown }).view, { message: 'first frame' });
  });
  after(async () => {
    app.dispose();
    await srv.stop();
  });
  const overlay = () => (app as unknown as { local: LocalUi }).local.overlay;

  test('prefix a opens the list; Down + Enter starts the second agent in a split of the focused pane; Esc closes', async () => {
    app.input('\x02a');
    const o = (await waitFor(() => {
      const x = overlay();
      return x?.kind === 'agents' && !x.loading ? x : undefined;
    }, { message: 'picker loaded' }))!;
    assert.deepEqual(o.items.map((a) => a.name), ['alpha', 'beta']);
    assert.equal(o.target, 'w1:p1');
    app.input('\x1b[B');
    app.input('\r');
    assert.equal(overlay(), undefined);
    const started = await waitFor(() => srv.session.agents.registry.list()[0], { message: 'agent started' });
    assert.equal(started.agentType, 'beta');
    assert.equal(srv.session.state().panes[started.paneId!]?.window, 'w1', 'the new pane is a split in the focused pane\'s window');
    assert.equal(Object.keys(srv.session.state().panes).length, 2);

    app.input('\x02a');
    await waitFor(() => overlay()?.kind === 'agents');
    app.input('\x1b');
    await waitFor(() => overlay() === undefined, { message: 'Esc closes the picker' });
    assert.equal(srv.session.agents.registry.size, 1, 'nothing else started');
  });
});
