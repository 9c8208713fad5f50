// The hand-composed chrome (chrome-lines.ts) against Ink's: every cell - character, colours and attributes - alike on
// a terminal, over the chrome's cases and a few hundred random layouts; and its cost in a budget Ink's misses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openChooser } from '../../src/client/chooser/index.js';
import { composed } from '../../src/client/ui/chrome-lines.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import type { Overlay } from '../../src/client/ui-state.js';
import { inkLines } from '../../src/client/ui/ink-chrome.js';
import { loadTheme } from '../../src/config/themes.js';
import type { PaneView, ViewModel } from '../../src/core/view.js';
import { chromeProps, view } from '../support/chrome-view.js';
import { prng } from '../support/prng.js';
import { sameCells, withLevel } from '../support/screen-cells.js';
import type { AgentState } from '../../src/core/types.js';

const THEMES = ['default', 'light', 'high-contrast'].map((n) => loadTheme(n, {}).theme);

async function same(p: ChromeProps, what: string): Promise<void> {
  const mine = composed(p);
  assert.ok(mine, `${what}: composed by hand`);
  assert.equal(mine.length, p.rows, `${what}: one line per row`);
  await sameCells(mine, inkLines(p), p.cols, p.rows, what);
}

const pane = (over: Partial<PaneView>, i: number): PaneView => ({ id: `w1:p${i}`, title: 'sh', rect: { x: 0, y: 0, w: 10, h: 5 }, focused: false, state: 'unknown', waiting: false, ...over });

test('the composed chrome draws what Ink draws, cell for cell, in the chrome cases', async () => {
  const v = view();
  const cases: Array<[string, Partial<ChromeProps>]> = [
    ['two panes', {}],
    ['bar at the top', { barAtTop: true }],
    ['prefix and a notice', { local: { prefix: true, notice: { level: 'warning', text: 'castellan.toml:3: bad value' } } }],
    ['an error notice', { local: { prefix: false, notice: { level: 'error', text: 'no such pane' } } }],
    ['a prompt', { local: { prefix: false, overlay: { kind: 'prompt', label: 'rename pane w1:p2:', text: 'wor', purpose: 'rename-pane' } } }],
    ['a confirmation', { local: { prefix: false, overlay: { kind: 'confirm', label: 'close pane w1:p2?', purpose: 'close-pane' } } }],
    ['a larger client (dotted fill)', { cols: 90, rows: 26 }],
    ['a larger client, bar at the top', { cols: 90, rows: 26, barAtTop: true }],
    ['a smaller client (clipped)', { cols: 60, rows: 15 }],
    ['exited, waiting, children, worktree, note', {
      view: view({ window: { id: 'w1', zoomed: false, panes: [
        { ...v.window.panes[0], exited: { code: 7 }, waiting: true },
        { ...v.window.panes[1], waiting: true, message: 'needs permission\tto rm -rf  build', worktree: { branch: 'castellan/claude-3f2a', files: 2, added: 10, removed: 3, ahead: 1 }, children: { live: 2, total: 3, counts: { blocked: 1, done: 0, working: 1, idle: 0, unknown: 0 }, rollup: 'blocked' } },
      ] } }),
    }],
    ['a killed pane, a missing worktree, a sub-harness child', {
      view: view({ window: { id: 'w1', zoomed: false, panes: [
        { ...v.window.panes[0], exited: { code: null, signal: 9 } },
        { ...v.window.panes[1], parent: 'w1:p1', worktree: { branch: 'castellan/x', files: 0, added: 0, removed: 0, ahead: 0, missing: true } },
      ] } }),
    }],
    ['wide titles cut', { view: view({ window: { id: 'w1', zoomed: false, panes: [{ ...v.window.panes[0], title: '漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字' }, { ...v.window.panes[1], title: 'x😀y'.repeat(12) }] } }) }],
    ['zoomed', { view: view({ window: { id: 'w1', zoomed: true, panes: [{ ...v.window.panes[1], rect: { x: 0, y: 0, w: 80, h: 23 } }] } }) }],
    ['narrow panes', { view: view({ window: { id: 'w1', zoomed: false, panes: [3, 4, 5, 6, 7, 8, 12, 35].map((w, i, all) => pane({ rect: { x: all.slice(0, i).reduce((n, x) => n + x, 0), y: 0, w, h: 23 }, state: 'working', agent: 'codex', focused: i === 2 }, i + 1)) } }) }],
    ['many tabs dropped from the end', { view: view({ windows: Array.from({ length: 14 }, (_, i) => ({ id: `w${i + 1}`, index: i + 1, name: `window-${i + 1}`, current: i === 9, alert: i % 3 === 0, panes: 1, rollup: 'idle' as AgentState, zoomed: false })), window: { ...v.window, id: 'w10' } }) }],
  ];
  // Every case at every colour level in every theme, and in every border style: a border style changes which characters
  // are drawn, not their colours, so the styles take turns over the colour runs and each also runs every case once in
  // full colour (240 comparisons, not the 720 of the whole product: a third of the file's CPU).
  const BORDERS = ['rounded', 'single', 'heavy', 'double'];
  for (const level of [0, 1, 2, 3] as const) {
    await withLevel(level, async () => {
      for (const [t, theme] of THEMES.entries()) {
        for (const [c, [what, p]] of cases.entries()) {
          const borders = BORDERS[(level + t + c) % BORDERS.length];
          await same(chromeProps({ theme, borders, ...p }), `${what} (${borders}, theme ${t}, colour level ${level})`);
        }
      }
    });
  }
  await withLevel(3, async () => {
    for (const borders of BORDERS) for (const [what, p] of cases) await same(chromeProps({ theme: THEMES[0], borders, ...p }), `${what} (${borders})`);
  });
});

/** A random tiling of the area (splits as the layout makes them) with random states and titles. */
function randomView(rand: () => number, cols: number, rows: number): ViewModel {
  const rects: PaneView['rect'][] = [];
  const split = (r: PaneView['rect'], depth: number) => {
    const vertical = rand() < 0.5;
    const size = vertical ? r.w : r.h;
    if (depth > 3 || size < 6 || rand() < 0.25) return void rects.push(r);
    const cut = 2 + Math.floor(rand() * (size - 4));
    if (vertical) (split({ ...r, w: cut }, depth + 1), split({ ...r, x: r.x + cut, w: r.w - cut }, depth + 1));
    else (split({ ...r, h: cut }, depth + 1), split({ ...r, y: r.y + cut, h: r.h - cut }, depth + 1));
  };
  split({ x: 0, y: 0, w: cols, h: rows }, 0);
  const states: AgentState[] = ['idle', 'working', 'blocked', 'done', 'unknown'];
  const words = ['bash', 'claude', 'vim src/a.ts', '漢字', 'htop — 4 cores', 'pi', 'a very long title that does not fit anywhere at all'];
  const pick = <T,>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const panes = rects.map((rect, i) => pane({
    rect, title: pick(words), state: pick(states), agent: rand() < 0.5 ? pick(['claude', 'codex', 'gemini']) : undefined, focused: i === 0, waiting: rand() < 0.2,
    message: rand() < 0.3 ? 'waiting for approval of a shell command' : undefined,
    exited: rand() < 0.1 ? { code: 1 } : undefined,
    worktree: rand() < 0.2 ? { branch: 'castellan/agent-1', files: 3, added: 4, removed: 5, ahead: 0 } : undefined,
  }, i + 1));
  return view({ area: { cols, rows }, window: { id: 'w1', zoomed: false, panes } });
}

test('the composed chrome draws what Ink draws over random layouts, client sizes and states', async () => {
  const rand = prng(14);
  await withLevel(3, async () => {
    for (let i = 0; i < 150; i++) {
      const cols = 20 + Math.floor(rand() * 120);
      const rows = 6 + Math.floor(rand() * 40);
      const v = randomView(rand, cols, rows - 1);
      const client = rand() < 0.7 ? { cols, rows } : { cols: cols + Math.floor(rand() * 30) - 15, rows: Math.max(3, rows + Math.floor(rand() * 10) - 5) };
      await same(chromeProps({ view: v, ...client, barAtTop: rand() < 0.3, theme: THEMES[i % 3], local: { prefix: rand() < 0.3 } }), `random layout ${i} (${cols}x${rows} on ${client.cols}x${client.rows})`);
    }
  });
});

test('panes under 2x2 are left to Ink (test/client/ink-door.test.ts: how chromeLines waits for it); an overlay over them is not', () => {
  const tiny = view({ window: { id: 'w1', zoomed: false, panes: [pane({ rect: { x: 0, y: 0, w: 1, h: 23 } }, 1), pane({ rect: { x: 1, y: 0, w: 79, h: 23 } }, 2)] } });
  assert.equal(composed(chromeProps({ view: tiny })), undefined);
  // An overlay covers every cell of the window area: drawn by hand over a tiny pane too.
  const overlays: Overlay[] = [{ kind: 'help', filter: '', scroll: 0, filtering: false }, { kind: 'agents', items: [], index: 0, loading: true }, openChooser('windows')];
  for (const overlay of overlays) {
    assert.equal(composed(chromeProps({ view: tiny, local: { prefix: false, overlay } }))?.length, 24, overlay.kind);
  }
});

test('a title carrying control characters cannot move the cursor', () => {
  const v = view();
  v.window.panes[0] = { ...v.window.panes[0], title: 'a\x1b[2J\rb\nc\x9bd' };
  const lines = composed(chromeProps({ view: v }))!;
  assert.equal(lines.length, 24);
  assert.doesNotMatch(lines[0], /[\r\n\x9b]|\x1b\[2J/);
});

test('composing the chrome of a 202x53 screen with 8 panes costs well under Ink\'s', () => {
  const rand = prng(7);
  const p = chromeProps({ view: randomView(rand, 202, 52), cols: 202, rows: 53 });
  const time = (f: () => unknown, n: number) => {
    for (let i = 0; i < 3; i++) f();
    const xs: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return xs.sort((a, b) => a - b)[n >> 1];
  };
  const mine = time(() => composed(p), 40);
  const ink = time(() => inkLines(p), 10);
  // Measured here: ~0.3 ms against Ink's ~15-35 ms. The bound leaves room for a loaded CI machine.
  assert.ok(mine < 5, `composed chrome took ${mine.toFixed(2)} ms`);
  assert.ok(mine * 4 < ink, `composed ${mine.toFixed(2)} ms vs Ink ${ink.toFixed(2)} ms`);
});
