// Tests for a pane's Screen: parsing, modes, events, replies, scrollback reads and change tracking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';

const make = (cols = 20, rows = 5, scrollback = 1000) => new Screen({ cols, rows, scrollback });
const write = (s: Screen, data: string | Uint8Array) => new Promise<void>((resolve) => s.write(data, resolve));

test('plain text shows up in viewportRows, snapshot and cursor', async () => {
  const s = make();
  await write(s, 'hello\r\n  world');
  assert.deepEqual(s.viewportRows(), ['hello', '  world', '', '', '']);
  const snap = s.snapshot();
  assert.deepEqual(snap, {
    cols: 20, rows: 5, lines: ['hello', '  world', '', '', ''], title: '', cursor: { x: 7, y: 1 }, alternateScreen: false,
    signals: { seq: 0, progress: 0, progressSeq: 0, bellSeq: 0, notifySeq: 0, titleSeq: 0 },
  });
  assert.equal(s.snapshot(), snap, 'unchanged screen: cached snapshot');
  assert.deepEqual(s.cursor(), { x: 7, y: 1, visible: true, shape: 'block', blink: false, isDefault: true });
  s.dispose();
});

test('bytes are parsed as UTF-8, even split across writes', async () => {
  const s = make();
  const bytes = new TextEncoder().encode('漢字 ok');
  await write(s, bytes.subarray(0, 2));
  await write(s, bytes.subarray(2));
  assert.equal(s.snapshot().lines[0], '漢字 ok');
  s.dispose();
});

test('styled rows come from sgr.ts', async () => {
  const s = make();
  await write(s, '\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m');
  assert.equal(s.viewportRows()[0], '\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m');
  s.dispose();
});

test('cursor stays inside the screen when a row is filled to the last column', async () => {
  const s = make(10, 3);
  await write(s, '0123456789');
  assert.deepEqual([s.cursor().x, s.cursor().y], [9, 0]);
  s.dispose();
});

test('alternate screen enter/exit restores the main screen', async () => {
  const s = make();
  await write(s, 'main text');
  await write(s, '\x1b[?1049h\x1b[H\x1b[2Jfull screen app');
  assert.equal(s.modes.alternateScreen, true);
  assert.equal(s.snapshot().alternateScreen, true);
  assert.equal(s.snapshot().lines[0], 'full screen app');
  await write(s, '\x1b[?1049l');
  assert.equal(s.modes.alternateScreen, false);
  assert.equal(s.snapshot().lines[0], 'main text');
  assert.equal(s.viewportRows()[0], 'main text');
  s.dispose();
});

test('modes: bracketed paste, mouse tracking and encoding, app cursor, focus, cursor visibility', async () => {
  const s = make();
  const base = s.modes;
  assert.deepEqual(
    [base.bracketedPaste, base.mouseTracking, base.mouseEncoding, base.applicationCursorKeys, base.sendFocus, base.cursorVisible],
    [false, 'none', 'default', false, false, true],
  );
  await write(s, '\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1h\x1b[?1004h\x1b[?25l\x1b=');
  let m = s.modes;
  assert.deepEqual(
    [m.bracketedPaste, m.mouseTracking, m.mouseEncoding, m.applicationCursorKeys, m.sendFocus, m.cursorVisible, m.applicationKeypad],
    [true, 'vt200', 'sgr', true, true, false, true],
  );
  assert.equal(s.cursor().visible, false);
  await write(s, '\x1b[?1002h');
  assert.equal(s.modes.mouseTracking, 'drag');
  await write(s, '\x1b[?1003h');
  assert.equal(s.modes.mouseTracking, 'any');
  // Several modes in one sequence, including encodings xterm itself does not implement.
  await write(s, '\x1b[?1003;1006l\x1b[?1000;1015h');
  assert.deepEqual([s.modes.mouseTracking, s.modes.mouseEncoding], ['vt200', 'urxvt']);
  await write(s, '\x1b[?1006l'); // resetting a mode that is not the current encoding changes nothing
  assert.equal(s.modes.mouseEncoding, 'urxvt');
  await write(s, '\x1b[?1015l\x1b[?1005h');
  assert.equal(s.modes.mouseEncoding, 'utf8');
  await write(s, '\x1b[?1016h');
  assert.equal(s.modes.mouseEncoding, 'sgr-pixels');
  await write(s, '\x1b[?2004l\x1b[?1000l\x1b[?1l\x1b[?1004l\x1b[?25h');
  m = s.modes;
  assert.deepEqual(
    [m.bracketedPaste, m.mouseTracking, m.applicationCursorKeys, m.sendFocus, m.cursorVisible],
    [false, 'none', false, false, true],
  );
  s.dispose();
});

test('DECSTR shows the cursor and keeps mouse reporting; RIS resets everything', async () => {
  const s = make();
  await write(s, '\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[5 q\x1b[!p');
  assert.deepEqual([s.modes.cursorVisible, s.modes.mouseTracking, s.modes.mouseEncoding], [true, 'vt200', 'sgr']);
  assert.equal(s.cursor().isDefault, true);
  await write(s, '\x1b[?25l\x1b[?2004h\x1b[3 q\x1bc');
  const m = s.modes;
  assert.deepEqual(
    [m.cursorVisible, m.mouseTracking, m.mouseEncoding, m.bracketedPaste],
    [true, 'none', 'default', false],
  );
  assert.deepEqual([s.cursor().shape, s.cursor().isDefault], ['block', true]);
  s.dispose();
});

test('DECSCUSR cursor shapes', async () => {
  const s = make();
  const cases: Array<[string, string, boolean]> = [
    ['1', 'block', true], ['2', 'block', false], ['3', 'underline', true],
    ['4', 'underline', false], ['5', 'bar', true], ['6', 'bar', false],
  ];
  for (const [ps, shape, blink] of cases) {
    await write(s, `\x1b[${ps} q`);
    const c = s.cursor();
    assert.deepEqual([c.shape, c.blink, c.isDefault], [shape, blink, false], `DECSCUSR ${ps}`);
  }
  await write(s, '\x1b[0 q');
  assert.deepEqual([s.cursor().shape, s.cursor().isDefault], ['block', true]);
  s.dispose();
});

test('title from OSC 0 and OSC 2, control characters stripped', async () => {
  const s = make();
  const seen: string[] = [];
  s.onTitle((t) => seen.push(t));
  await write(s, '\x1b]0;first\x07');
  assert.equal(s.title, 'first');
  await write(s, '\x1b]2;second\x1b\\');
  assert.equal(s.title, 'second');
  assert.equal(s.snapshot().title, 'second');
  await write(s, '\x1b]2;bad\x7fthing\x07');
  assert.equal(s.title, 'badthing');
  assert.deepEqual(seen, ['first', 'second', 'badthing']);
  s.dispose();
});

test('OSC 9 and OSC 777 notifications; OSC 9;4 progress is not one; OSC 7 cwd', async () => {
  const s = make();
  const notes: Array<{ title?: string; body: string }> = [];
  const cwds: string[] = [];
  s.onNotify((n) => notes.push(n));
  s.onCwd((c) => cwds.push(c));
  await write(s, '\x1b]9;Build finished\x07');
  await write(s, '\x1b]9;4;1;50\x07');
  await write(s, '\x1b]777;notify;Claude;needs; your input\x1b\\');
  await write(s, '\x1b]777;notify;;body only\x07');
  await write(s, '\x1b]7;file://host/home/me/my%20project\x07');
  assert.deepEqual(notes, [
    { body: 'Build finished' },
    { title: 'Claude', body: 'needs; your input' },
    { body: 'body only' },
  ]);
  assert.deepEqual(cwds, ['/home/me/my project']);
  assert.equal(s.cwd, '/home/me/my project');
  assert.deepEqual(s.snapshot().lines, ['', '', '', '', ''], 'nothing leaks onto the screen');
  s.dispose();
});

test('bell', async () => {
  const s = make();
  let bells = 0;
  s.onBell(() => bells++);
  await write(s, 'a\x07b\x07');
  assert.equal(bells, 2);
  s.dispose();
});

test('replies to cursor position (DSR 6) and device attributes (DA1) go through onReply', async () => {
  const s = make();
  const replies: string[] = [];
  s.onReply((d) => replies.push(d));
  await write(s, '\x1b[3;5H\x1b[6n');
  assert.deepEqual(replies, ['\x1b[3;5R']);
  await write(s, '\x1b[c');
  assert.equal(replies.length, 2);
  assert.match(replies[1], /^\x1b\[\?[\d;]+c$/);
  s.dispose();
});

test('readLines: the last lines of scrollback + screen, plain and ansi', async () => {
  const s = make(20, 10);
  let data = '';
  for (let i = 1; i <= 100; i++) data += `\x1b[32mline ${i}\x1b[0m\r\n`;
  await write(s, data);
  const plain = s.readLines({ lines: 30 });
  assert.equal(plain.length, 30);
  assert.equal(plain[0], 'line 71');
  assert.equal(plain[29], 'line 100', 'the blank row under the last line is dropped');
  const ansi = s.readLines({ lines: 30, ansi: true });
  assert.equal(ansi.length, 30);
  assert.equal(ansi[0], '\x1b[32mline 71\x1b[0m');
  assert.equal(ansi[29], '\x1b[32mline 100\x1b[0m');
  const screenOnly = s.readLines({ lines: 30, source: 'screen' });
  assert.deepEqual(screenOnly, Array.from({ length: 9 }, (_, i) => `line ${92 + i}`));
  assert.deepEqual(s.readLines({}), Array.from({ length: 10 }, (_, i) => `line ${91 + i}`), 'default: one screenful');
  assert.equal(s.readLines({ lines: 1000 }).length, 100);
  assert.deepEqual(s.readLines({ lines: 0 }), []);
  s.dispose();
});

test('readLines on an empty screen is empty', () => {
  const s = make();
  assert.deepEqual(s.readLines({ lines: 10 }), []);
  s.dispose();
});

test('resize changes the size, reflows and bumps the version', async () => {
  const s = make(20, 5);
  // Followed by a newline: xterm leaves the cursor's own line unwrapped on resize (shells redraw it).
  await write(s, 'abcdefghijklmnop\r\n$ ');
  const v = s.version;
  const rows = s.viewportRows();
  s.resize(8, 4);
  assert.deepEqual([s.cols, s.rows], [8, 4]);
  assert.ok(s.version > v);
  const after = s.viewportRows();
  assert.notEqual(after, rows);
  assert.equal(after.length, 4);
  assert.deepEqual(after.slice(0, 3), ['abcdefgh', 'ijklmnop', '$']);
  assert.deepEqual([s.snapshot().cols, s.snapshot().rows], [8, 4]);
  assert.throws(() => s.resize(0, 4), RangeError);
  assert.throws(() => new Screen({ cols: 1.5, rows: 3, scrollback: 0 }), RangeError);
  s.dispose();
});

test('version bumps on output; viewportRows returns the cached array when nothing changed', async () => {
  const s = make();
  await write(s, 'one');
  const v1 = s.version;
  const r1 = s.viewportRows();
  assert.equal(s.viewportRows(), r1, 'no write: same array');
  await write(s, '\x1b[H'); // parsed output that changes no row
  assert.ok(s.version > v1);
  assert.equal(s.viewportRows(), r1, 'rows identical: same array');
  await write(s, '\r\ntwo');
  const r2 = s.viewportRows();
  assert.notEqual(r2, r1);
  assert.deepEqual(r2.slice(0, 2), ['one', 'two']);
  assert.equal(r2[0], r1[0]);
  s.dispose();
});

test('onWriteParsed fires after parsing and can be unsubscribed', async () => {
  const s = make();
  let n = 0;
  const off = s.onWriteParsed(() => n++);
  await write(s, 'x');
  await new Promise<void>((resolve) => { const o = s.onWriteParsed(() => { o(); resolve(); }); s.write('y'); });
  assert.ok(n >= 2);
  off();
  const before = n;
  await write(s, 'z');
  await new Promise<void>((resolve) => { const o = s.onWriteParsed(() => { o(); resolve(); }); s.write('w'); });
  assert.equal(n, before);
  s.dispose();
});

test('pendingBytes counts unparsed input and returns to 0', async () => {
  const s = make(80, 24);
  const chunk = 'x'.repeat(64 * 1024);
  const done = Promise.all([write(s, chunk), write(s, new TextEncoder().encode(chunk)), write(s, chunk)]);
  assert.equal(s.pendingBytes, 3 * chunk.length);
  await done;
  assert.equal(s.pendingBytes, 0);
  s.dispose();
});

test('a throwing listener does not break parsing; its error is reported', async () => {
  const errors: unknown[] = [];
  const s = new Screen({ cols: 20, rows: 5, scrollback: 0, onListenerError: (e) => errors.push(e) });
  s.onBell(() => { throw new Error('listener bug'); });
  await write(s, '\x07after');
  await write(s, ' more');
  assert.equal(s.snapshot().lines[0], 'after more');
  assert.equal((errors[0] as Error).message, 'listener bug');
  s.dispose();
});

test('after dispose, writes are dropped but their callbacks still run', async () => {
  const s = make();
  s.dispose();
  await write(s, 'ignored');
  s.dispose();
});

test('parseNow parses before it returns, every time (the echo path needs no timer)', () => {
  const s = make();
  s.parseNow('a');
  assert.equal(s.viewportRows()[0], 'a');
  s.parseNow(new TextEncoder().encode('漢'));
  assert.equal(s.viewportRows()[0], 'a漢');
  s.parseNow('\r\nb');
  assert.deepEqual(s.viewportRows().slice(0, 2), ['a漢', 'b']);
  assert.equal(s.pendingBytes, 0);
  s.dispose();
});
