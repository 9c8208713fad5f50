// The row-diff painter: what it writes, replayed into a real terminal emulator, and how little it rewrites.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import xterm from '@xterm/headless';
import { Painter } from '../../src/client/painter.js';

function term(cols = 40, rows = 10) {
  const t = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  let pending = Promise.resolve();
  const write = (s: string) => {
    pending = pending.then(() => new Promise<void>((r) => t.write(s, r)));
  };
  const line = async (y: number) => {
    await pending;
    return t.buffer.active.getLine(y)!.translateToString(true);
  };
  return { t, write, line, flush: () => pending };
}

test('chrome and pane rows are composed; only changed rows are rewritten', async () => {
  const T = term();
  const writes: string[] = [];
  const p = new Painter((s) => {
    writes.push(s);
    T.write(s);
  });
  p.setSlots([{ id: 'a', inner: { x: 1, y: 1, w: 10, h: 3 } }]);
  p.setChrome(['+----------+', '|          |', '|          |', '|          |', '+----------+']);
  p.updateRows('a', [[0, 'hello'], [1, '\x1b[31mred\x1b[0m'], [2, 'x']]);
  p.setCursor({ pane: 'a', x: 5, y: 0, visible: true, shape: 'bar', blink: false });
  p.paint();
  assert.equal(await T.line(0), '+----------+');
  assert.equal(await T.line(1), '|hello     |');
  assert.equal(await T.line(2), '|red       |');
  assert.equal(await T.line(3), '|x         |');
  const cell = T.t.buffer.active.getLine(2)!.getCell(1)!;
  assert.equal(cell.getFgColor(), 1, 'colour kept');
  await T.flush();
  assert.equal(T.t.buffer.active.cursorX, 6);
  assert.equal(T.t.buffer.active.cursorY, 1);
  assert.match(writes[0], /^\x1b\[\?2026h/, 'synchronized output');
  assert.match(writes[0], /\x1b\[\?2026l$/);
  // one row changes: only it is rewritten; a shorter row leaves nothing of the old one
  writes.length = 0;
  p.updateRows('a', [[0, 'hi']]);
  p.paint();
  assert.equal(writes.length, 1);
  assert.doesNotMatch(writes[0], /red|\+---/);
  assert.equal(await T.line(1), '|hi        |');
  // nothing changed: nothing written
  writes.length = 0;
  p.paint();
  assert.equal(writes.length, 0);
});

test('a changed chrome line is redrawn and the pane row on it painted again on top', async () => {
  const T = term();
  const p = new Painter((s) => T.write(s));
  p.setSlots([{ id: 'a', inner: { x: 1, y: 1, w: 10, h: 1 } }]);
  p.setChrome(['+--------+', '|          |', '+--------+']);
  p.updateRows('a', [[0, 'content']]);
  p.paint();
  p.setChrome(['#========#', '#          #', '#========#']);
  p.paint();
  assert.equal(await T.line(1), '#content   #');
});

test('while an overlay covers the screen pane rows are held back, then repainted', async () => {
  const T = term();
  const p = new Painter((s) => T.write(s));
  p.setSlots([{ id: 'a', inner: { x: 0, y: 0, w: 10, h: 1 } }]);
  p.setChrome(['HELP']);
  p.setCovered(true);
  p.updateRows('a', [[0, 'pane text']]);
  p.paint();
  assert.equal(await T.line(0), 'HELP');
  p.setChrome(['']);
  p.setCovered(false);
  p.paint();
  assert.equal(await T.line(0), 'pane text');
});

test('a hidden cursor stays hidden; reset repaints everything', async () => {
  const T = term();
  const writes: string[] = [];
  const p = new Painter((s) => {
    writes.push(s);
    T.write(s);
  });
  p.setSlots([{ id: 'a', inner: { x: 0, y: 0, w: 10, h: 2 } }]);
  p.setChrome(['', '']);
  p.updateRows('a', [[0, 'one'], [1, 'two']]);
  p.setCursor({ pane: 'a', x: 0, y: 0, visible: false, shape: 'block', blink: true });
  p.paint();
  assert.match(writes.at(-1)!, /\x1b\[\?25l\x1b\[\?2026l$/);
  writes.length = 0;
  p.reset();
  p.paint();
  assert.match(writes[0], /one/);
  assert.match(writes[0], /two/);
});
