// The input parser: every key family, mouse, focus, paste, chunk splits, flush, and raw byte-exactness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyParser, keyToBytes, type InputEvent } from '../../src/input/keys.js';

/** Parses everything (then flushes) and returns the events. */
function parse(...chunks: string[]): InputEvent[] {
  const p = new KeyParser();
  const out = chunks.flatMap((c) => p.feed(c));
  out.push(...p.flush());
  return out;
}
const keys = (...chunks: string[]): string[] => parse(...chunks).map((e) => (e.type === 'key' ? e.key : `<${e.type}>`));
const raws = (evs: InputEvent[]): string => evs.map((e) => e.raw).join('');

test('printable characters, including non-ASCII and astral ones, are themselves', () => {
  assert.deepEqual(keys('a%"A é😀'), ['a', '%', '"', 'A', 'Space', 'é', '😀']);
});

test('control bytes', () => {
  assert.deepEqual(keys('\r\t\x7f\x08\x01\x1a\x00\x1c\x1d\x1e\x1f\n\x03'), [
    'Enter', 'Tab', 'BSpace', 'C-h', 'C-a', 'C-z', 'C-Space', 'C-\\', 'C-]', 'C-^', 'C-_', 'C-j', 'C-c',
  ]);
  assert.deepEqual(keys('\x1b[Z'), ['BTab']);
});

test('arrows and editing keys in their CSI, SS3, vt220 and rxvt forms', () => {
  assert.deepEqual(keys('\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1bOD'), ['Up', 'Down', 'Right', 'Left', 'Up', 'Left']);
  assert.deepEqual(keys('\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~\x1b[7~\x1b[8~'), ['Home', 'End', 'Home', 'End', 'Home', 'End', 'Home', 'End']);
  assert.deepEqual(keys('\x1b[2~\x1b[3~\x1b[5~\x1b[6~'), ['Insert', 'Delete', 'PageUp', 'PageDown']);
});

test('function keys', () => {
  assert.deepEqual(keys('\x1bOP\x1bOQ\x1bOR\x1bOS'), ['F1', 'F2', 'F3', 'F4']);
  assert.deepEqual(keys('\x1b[11~\x1b[14~\x1b[15~\x1b[17~\x1b[18~\x1b[19~\x1b[20~\x1b[21~\x1b[23~\x1b[24~'),
    ['F1', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9', 'F10', 'F11', 'F12']);
  assert.deepEqual(keys('\x1b[[A\x1b[[E'), ['F1', 'F5']);
});

test('xterm modifier parameters, in C- M- S- order', () => {
  const mods = ['S-', 'M-', 'M-S-', 'C-', 'C-S-', 'C-M-', 'C-M-S-'];
  mods.forEach((m, n) => assert.deepEqual(keys(`\x1b[1;${n + 2}A`), [`${m}Up`], m));
  assert.deepEqual(keys('\x1b[1;5P\x1b[1;2S\x1b[5;5~\x1b[3;3~\x1b[15;2~\x1b[1;5H'), ['C-F1', 'S-F4', 'C-PageUp', 'M-Delete', 'S-F5', 'C-Home']);
  assert.deepEqual(keys('\x1bO5A\x1bO2P'), ['C-Up', 'S-F1']);
});

test('rxvt modifier forms', () => {
  assert.deepEqual(keys('\x1b[a\x1b[d\x1bOa\x1bOc'), ['S-Up', 'S-Left', 'C-Up', 'C-Right']);
  assert.deepEqual(keys('\x1b[2$\x1b[5^\x1b[3@\x1b[11^'), ['S-Insert', 'C-PageUp', 'C-S-Delete', 'C-F1']);
  assert.deepEqual(keys('\x1b\x1b[A\x1b\x1bOB'), ['M-Up', 'M-Down']);
});

test('keypad in application mode', () => {
  assert.deepEqual(keys('\x1bOM\x1bOp\x1bOy\x1bOk'), ['KPEnter', 'KP0', 'KP9', 'KP+']);
});

test('ESC-prefixed keys are M-', () => {
  assert.deepEqual(keys('\x1bx\x1bX\x1b\x02\x1b\r\x1b\x7f\x1b \x1b\x1b\x1bé'), ['M-x', 'M-X', 'C-M-b', 'M-Enter', 'M-BSpace', 'M-Space', 'M-Escape', 'M-é']);
});

test('CSI u and modifyOtherKeys forms', () => {
  assert.deepEqual(keys('\x1b[13;2u\x1b[13;5u\x1b[97;5u\x1b[9;5u\x1b[27;5;49~\x1b[97;6u'), ['S-Enter', 'C-Enter', 'C-a', 'C-Tab', 'C-1', 'C-S-a']);
});

test('a lone ESC is held until more bytes or flush', () => {
  const p = new KeyParser();
  assert.deepEqual(p.feed('a\x1b'), [{ type: 'key', key: 'a', raw: 'a' }]);
  assert.equal(p.pending, true);
  assert.deepEqual(p.flush(), [{ type: 'key', key: 'Escape', raw: '\x1b' }]);
  assert.equal(p.pending, false);
  p.feed('\x1b');
  assert.deepEqual(p.feed('[A'), [{ type: 'key', key: 'Up', raw: '\x1b[A' }]);
});

test('incomplete sequences at a flush fall back to M- keys and keep every byte', () => {
  assert.deepEqual(keys('\x1b['), ['M-[']);
  assert.deepEqual(keys('\x1bO'), ['M-O']);
  assert.deepEqual(keys('\x1b[1;5'), ['M-[', '1', ';', '5']);
  assert.deepEqual(keys('\x1bP'), ['M-P']);
  assert.deepEqual(keys('\x1b]x\r'), ['M-]', 'x', 'Enter']);
  assert.deepEqual(keys('\x1b[M a'), ['M-[', 'M', 'Space', 'a']);
});

test('a sequence split across feeds parses as one event', () => {
  const seqs = ['\x1b[1;5A', '\x1bOP', '\x1b[15;2~', '\x1b[<0;10;5M', '\x1b[M !!', '\x1b]11;rgb:1/2/3\x1b\\', '\x1b\x1b[A', '😀'];
  for (const s of seqs) {
    for (let k = 1; k < s.length; k++) {
      const evs = parse(s.slice(0, k), s.slice(k));
      assert.equal(evs.length, 1, `${JSON.stringify(s)} split at ${k}: ${JSON.stringify(evs)}`);
      assert.equal(evs[0].raw, s);
    }
  }
});

test('focus events', () => {
  assert.deepEqual(parse('\x1b[I\x1b[O'), [{ type: 'focus', focused: true, raw: '\x1b[I' }, { type: 'focus', focused: false, raw: '\x1b[O' }]);
});

test('SGR mouse: buttons, release, motion, wheel, modifiers, 0-based coordinates', () => {
  const [press, release, move, up, down, mods] = parse('\x1b[<0;10;5M\x1b[<2;10;5m\x1b[<35;3;4M\x1b[<64;1;1M\x1b[<65;200;100M\x1b[<28;7;8M');
  assert.deepEqual(press, { type: 'mouse', action: 'press', button: 0, x: 9, y: 4, shift: false, meta: false, ctrl: false, raw: '\x1b[<0;10;5M' });
  assert.deepEqual([release.type === 'mouse' && release.action, release.type === 'mouse' && release.button], ['release', 2]);
  assert.ok(move.type === 'mouse' && move.action === 'move' && move.button === 3 && move.x === 2 && move.y === 3);
  assert.ok(up.type === 'mouse' && up.action === 'wheel-up');
  assert.ok(down.type === 'mouse' && down.action === 'wheel-down' && down.x === 199 && down.y === 99);
  assert.ok(mods.type === 'mouse' && mods.shift && mods.meta && mods.ctrl && mods.action === 'press');
});

test('X10 mouse, including coordinates past 95 (code points >= 0x80) and urxvt 1015', () => {
  const [press, release, far, urxvt] = parse('\x1b[M !!', '\x1b[M#!!', `\x1b[M\x20${String.fromCharCode(32 + 150)}${String.fromCharCode(32 + 300)}`, '\x1b[32;10;5M');
  assert.ok(press.type === 'mouse' && press.action === 'press' && press.button === 0 && press.x === 0 && press.y === 0);
  assert.ok(release.type === 'mouse' && release.action === 'release');
  assert.ok(far.type === 'mouse' && far.x === 149 && far.y === 299);
  assert.ok(urxvt.type === 'mouse' && urxvt.action === 'press' && urxvt.x === 9 && urxvt.y === 4);
  assert.deepEqual(keys('\x1b[M \uFFFD!'), ['Unknown'], 'a coordinate lost to UTF-8 decoding is not guessed');
});

test('unknown sequences pass through whole', () => {
  const evs = parse('\x1b[?1;2c\x1b]11;rgb:0/0/0\x07\x1bP1$r0m\x1b\\\x1b_Gi=1;OK\x1b\\\x1b[12;40R\x1b[99x\x1bOz\x1b[<66;1;1M');
  assert.deepEqual(evs.map((e) => (e.type === 'key' ? e.key : e.type)), Array(8).fill('Unknown'));
  assert.deepEqual(evs.map((e) => e.raw), ['\x1b[?1;2c', '\x1b]11;rgb:0/0/0\x07', '\x1bP1$r0m\x1b\\', '\x1b_Gi=1;OK\x1b\\', '\x1b[12;40R', '\x1b[99x', '\x1bOz', '\x1b[<66;1;1M']);
});

test('bracketed paste spanning many chunks, containing ESC bytes and a split end marker', () => {
  const p = new KeyParser();
  const out: InputEvent[] = [];
  for (const c of ['x\x1b[20', '0~line 1\r\x1b[A', 'more\x1b', 'x\x1b[201', '~after']) out.push(...p.feed(c));
  assert.equal(p.pending, false);
  assert.deepEqual(out.map((e) => e.type), ['key', 'paste', 'key', 'key', 'key', 'key', 'key']);
  const paste = out[1];
  assert.ok(paste.type === 'paste');
  assert.equal(paste.text, 'line 1\r\x1b[Amore\x1bx');
  assert.equal(raws(out), 'x\x1b[200~line 1\r\x1b[Amore\x1bx\x1b[201~after');
});

test('an open paste survives a flush; abandonPaste delivers it', () => {
  const p = new KeyParser();
  assert.deepEqual(p.feed('\x1b[200~abc'), []);
  assert.deepEqual(p.flush(), []);
  assert.equal(p.pending, true);
  assert.deepEqual(p.feed('def\x1b[201~'), [{ type: 'paste', text: 'abcdef', raw: '\x1b[200~abcdef\x1b[201~' }]);
  p.feed('\x1b[200~xyz\x1b[2');
  assert.deepEqual(p.flush({ abandonPaste: true }), [{ type: 'paste', text: 'xyz\x1b[2', raw: '\x1b[200~xyz\x1b[2' }]);
  assert.equal(p.pending, false);
});

/** Small deterministic PRNG so a failure reproduces. */
function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

test('property: raw of all events reproduces the input under random chunking', () => {
  const pieces = [
    'a', 'Z', ' ', 'é', '😀', '\r', '\t', '\x7f', '\x01', '\x00', '\x1b', '\x1b[', '\x1bO', '\x1b[1;5A', '\x1bOP', '\x1b[15;2~',
    '\x1b[<0;3;4M', '\x1b[<3;3;4m', '\x1b[M !!', '\x1b[I', '\x1b[O', '\x1b[200~paste\x1b[Ain\x1b[201~', '\x1b[200~', '\x1b[201~',
    '\x1b]0;t\x07', '\x1bP', '\x1b]', '\x1b\x1b', '\x1bx', '\x1b[2$', '\x1b[?1;2c', '1', ';', '~', '[', 'M', '\x1b[[A', '\x1b[13;2u',
  ];
  const rand = rng(42);
  for (let round = 0; round < 400; round++) {
    let input = '';
    const n = 1 + Math.floor(rand() * 25);
    for (let k = 0; k < n; k++) input += pieces[Math.floor(rand() * pieces.length)];
    const p = new KeyParser();
    const out: InputEvent[] = [];
    let at = 0;
    while (at < input.length) {
      const len = 1 + Math.floor(rand() * 6);
      out.push(...p.feed(input.slice(at, at + len)));
      at += len;
      if (rand() < 0.15) out.push(...p.flush());
    }
    out.push(...p.flush({ abandonPaste: true }));
    assert.equal(raws(out), input, `round ${round}: ${JSON.stringify(input)}`);
    assert.equal(p.pending, false);
  }
});

test('property: without flushes, chunking does not change the events', () => {
  const rand = rng(7);
  const input = 'ab\x1b[1;5A\x1bOP\x1b[<0;10;5M\x1b[200~p\x1b[Ax\x1b[201~\x1bx😀\x1b[15;2~\x1b]0;t\x07\x1b\x1b[B\r';
  const whole = parse(input);
  for (let round = 0; round < 200; round++) {
    const chunks: string[] = [];
    for (let at = 0; at < input.length;) {
      const len = 1 + Math.floor(rand() * 5);
      chunks.push(input.slice(at, at + len));
      at += len;
    }
    assert.deepEqual(parse(...chunks), whole, JSON.stringify(chunks));
  }
});

test('keyToBytes: normal-mode bytes that parse back to the same name', () => {
  const names = [
    'a', 'A', '%', 'é', 'Space', 'Enter', 'Tab', 'BTab', 'BSpace', 'C-a', 'C-c', 'C-h', 'C-Space', 'C-\\', 'C-_',
    'M-x', 'M-X', 'C-M-b', 'M-Enter', 'M-Space', 'M-Escape', 'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp',
    'PageDown', 'Insert', 'Delete', 'F1', 'F4', 'F5', 'F12', 'C-Up', 'S-Up', 'M-Up', 'C-M-S-Left', 'S-F1', 'C-F5',
    'M-PageUp', 'S-Enter', 'C-Enter', 'C-Tab', 'C-1', 'M-BTab', 'M-[', 'M-O', 'M-P',
  ];
  for (const name of names) {
    const bytes = keyToBytes(name);
    assert.ok(bytes !== undefined, name);
    assert.deepEqual(keys(bytes), [name], `${name} → ${JSON.stringify(bytes)}`);
  }
  assert.equal(keyToBytes('C-b'), '\x02');
  assert.equal(keyToBytes('Escape'), '\x1b');
  assert.equal(keyToBytes('Up'), '\x1b[A');
  assert.equal(keyToBytes('S-C-Up'), '\x1b[1;6A', 'modifiers in any order');
  assert.equal(keyToBytes('KP5'), '5');
  assert.equal(keyToBytes('Unknown'), undefined);
  assert.equal(keyToBytes('NoSuchKey'), undefined);
  assert.equal(keyToBytes(''), undefined);
});
