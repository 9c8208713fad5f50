// Ink comes in through its door only when the chrome needs it (a pane under 2x2; every overlay is drawn by hand): meanwhile a tiny pane gets no chrome; once it is in, every waiter hears so once.
// test: own process (the door's loaded state is process-wide)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openChooser } from '../../src/client/chooser/index.js';
import { chromeLines } from '../../src/client/ui/chrome-lines.js';
import { forgetInk, inkLoaded, inkNow, loadInk } from '../../src/client/ui/ink-door.js';
import type { PaneView } from '../../src/core/view.js';
import { chromeProps, defaultTheme, view } from '../support/chrome-view.js';
import { nodeChildJson } from '../support/node-child.js';
import { REPO } from '../support/temp-env.js';

const HELP = { prefix: false, overlay: { kind: 'help' as const, filter: '', scroll: 0, filtering: false } };
const PICKER = { prefix: false, overlay: { kind: 'agents' as const, items: [], index: 0, loading: true } };
const CHOOSER = { prefix: false, overlay: openChooser('windows') };
const pane = (over: Partial<PaneView>, i: number): PaneView => ({ id: `w1:p${i}`, title: 'sh', rect: { x: 0, y: 0, w: 10, h: 5 }, focused: false, state: 'unknown', waiting: false, ...over });
const tiny = view({ window: { id: 'w1', zoomed: false, panes: [pane({ rect: { x: 0, y: 0, w: 1, h: 23 } }, 1), pane({ rect: { x: 1, y: 0, w: 79, h: 23 } }, 2)] } });

/** Resolves when called, rejects after ms: a waiter with a deadline that counts its calls. */
function waiter(ms: number): { fn: (e?: Error) => void; called: Promise<Error | undefined>; calls: () => number } {
  let n = 0;
  let resolve!: (e: Error | undefined) => void;
  const called = new Promise<Error | undefined>((r, reject) => {
    resolve = r;
    setTimeout(() => reject(new Error(`not called within ${ms} ms`)), ms).unref();
  });
  // Only an awaited waiter's deadline is a failure (c and gone below are never called, by design).
  called.catch(() => {});
  return { fn: (e) => (n++, resolve(e)), called, calls: () => n };
}

test('the overlays never wait for Ink; until it is in a pane under 2x2 gets no chrome, then Ink draws it, and each waiter is told once (a forgotten one never)', async () => {
  assert.equal(inkLoaded(), false, 'nothing loaded Ink before the chrome asked for it');
  const a = waiter(20_000);
  const b = waiter(20_000);
  // The overlays are drawn by hand, over a tiny pane too: they wait for nothing and load nothing.
  for (const [local, title] of [[HELP, /castellan keys/], [PICKER, /loading agent definitions/], [CHOOSER, /choose a pane/]] as const) {
    for (const v of [view(), tiny]) {
      const drawn = chromeLines(chromeProps({ local, view: v }), a.fn);
      assert.equal(drawn.covers, true);
      assert.equal(drawn.lines.length, 24);
      assert.match(drawn.lines.join('\n'), title);
    }
  }
  assert.equal(inkLoaded(), false, 'no overlay loaded Ink');
  // The same waiter twice, and a second one: a and b are each told once.
  assert.deepEqual(chromeLines(chromeProps({ view: tiny }), a.fn), { lines: [], covers: false }, 'a pane under 2x2 gets no chrome yet');
  assert.equal(inkNow(b.fn), undefined);
  // A client app disposed meanwhile (a switch to another session) must not draw over its successor.
  const gone = waiter(20_000);
  assert.equal(inkNow(gone.fn), undefined);
  forgetInk(gone.fn);
  assert.equal(await a.called, undefined);
  assert.equal(await b.called, undefined);
  assert.equal(inkLoaded(), true);
  const c = waiter(1000);
  assert.equal(chromeLines(chromeProps({ view: tiny }), c.fn).lines.length, 24, 'Ink draws the tiny pane, every row');
  await loadInk();
  assert.equal(a.calls(), 1);
  assert.equal(b.calls(), 1);
  assert.equal(c.calls(), 0, 'a chrome drawn at once waits for nothing');
  assert.equal(gone.calls(), 0, 'a forgotten waiter is not called');
  assert.equal(typeof fetch, 'function', 'fetch is back after the guarded load');
});

test('an install whose Ink will not load: the help, the picker and the chooser all work without it, and keys go back to the pane', async (t) => {
  // The unbundled client, copied without the module behind the door.
  const dir = mkdtempSync(join(tmpdir(), 'cst-ink-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') && !/[\\/]dist[\\/](bundle|server|cli|acp)([\\/]|$)/.test(f) && !f.endsWith('ink-chrome.js') });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const app = JSON.stringify(pathToFileURL(join(dir, 'dist', 'client', 'app.js')).href);
  const cfg = { ui: { mouse: false, status_position: 'bottom', pane_borders: 'rounded', notify: 'none', theme: 'default' }, keys: {}, theme: defaultTheme, themes: ['default'], notices: [] };
  const r = await nodeChildJson<{ shown: Array<[string | null, boolean]>; after: string | null; sent: string[] }>(`
    const { ClientApp } = await import(${app});
    let push; const sent = [];
    let out = '';
    // The picker's list is empty; the chooser's tree never comes (it stays up, loading).
    const api = { onMessage: (f) => ((push = f), () => {}), request: (m) => (m === 'agent.list' ? Promise.resolve({ agents: [] }) : new Promise(() => {})), notify: (m, p) => sent.push(p.data ?? '') };
    const a = new ClientApp(api, ${JSON.stringify(cfg)}, { write: (s) => (out += s), size: () => ({ cols: 80, rows: 24 }), exit: () => {} });
    push({ frame: { reset: true, view: ${JSON.stringify(view())}, panes: {} } });
    const shown = [];
    for (const [keys, title] of [['\\x02?', 'castellan keys'], ['\\x02a', 'no agent definitions'], ['\\x02w', 'choose a pane']]) {
      out = '';
      a.input(keys);
      await new Promise((r) => setTimeout(r, 0));
      shown.push([a.local.overlay?.kind ?? null, out.includes(title)]);
      a.input('q');
    }
    a.input('x');
    process.stdout.write(JSON.stringify({ shown, after: a.local.overlay?.kind ?? null, sent }));
    a.dispose();
  `, { NODE_ENV: 'production' });
  assert.deepEqual(r.shown, [['help', true], ['agents', true], ['chooser', true]], 'each overlay opened and was drawn at once, with no Ink');
  assert.equal(r.after, null, 'q closed the last one');
  assert.deepEqual(r.sent, ['x'], 'the next key goes to the pane');
});
