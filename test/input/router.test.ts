// The prefix state machine: prefix flows, root bindings, repeat windows on a fake clock, coalescing, byte-exactness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';
import { buildKeymap } from '../../src/input/keymap.js';
import { KeyParser, type InputEvent } from '../../src/input/keys.js';
import { Router, type RouterOutput } from '../../src/input/router.js';

const keymap = (user: Record<string, string> = {}) => buildKeymap(DEFAULT_BINDINGS, user).keymap;
const ev = (data: string): InputEvent[] => {
  const p = new KeyParser();
  return [...p.feed(data), ...p.flush()];
};
/** A compact view of outputs: send:"..", cmd:<text>, prefix:on/off, unbound:<key>, paste/mouse/focus. */
const view = (outs: RouterOutput[]): string[] => outs.map((o) => {
  switch (o.kind) {
    case 'send': return `send:${JSON.stringify(o.data)}`;
    case 'command': return `cmd:${o.command.text}`;
    case 'prefix': return `prefix:${o.active ? 'on' : 'off'}`;
    case 'unbound': return `unbound:${o.key}`;
    case 'paste': return `paste:${o.text}`;
    case 'mouse': return `mouse:${o.event.action}`;
    case 'focus': return `focus:${o.focused}`;
  }
});

test('plain typing is one coalesced send with the exact bytes', () => {
  const r = new Router(keymap());
  assert.deepEqual(r.feed(ev('ls -la\r\x1b[A\x1bx\x03é'), 0), [{ kind: 'send', data: 'ls -la\r\x1b[A\x1bx\x03é' }]);
  assert.equal(r.prefixActive, false);
});

test('prefix then a bound key fires its command', () => {
  const r = new Router(keymap());
  const out = r.feed(ev('ab\x02%cd'), 0);
  assert.deepEqual(view(out), ['send:"ab"', 'prefix:on', 'prefix:off', 'cmd:pane.split right', 'send:"cd"']);
  const cmd = out[3];
  assert.ok(cmd.kind === 'command' && cmd.command.scope === 'server' && cmd.command.action.type === 'pane.split');
  assert.equal(cmd.kind === 'command' && cmd.binding.key, '%');
});

test('the prefix may arrive in one batch and its key in the next', () => {
  const r = new Router(keymap());
  assert.deepEqual(view(r.feed(ev('\x02'), 0)), ['prefix:on']);
  assert.equal(r.prefixActive, true);
  assert.deepEqual(view(r.feed(ev('d'), 5000)), ['prefix:off', 'cmd:client.detach']);
  assert.equal(r.prefixActive, false);
});

test('prefix + unbound key is swallowed and reported', () => {
  const r = new Router(keymap());
  assert.deepEqual(view(r.feed(ev('\x02Kx'), 0)), ['prefix:on', 'prefix:off', 'unbound:K', 'send:"x"']);
});

test('prefix twice is the send-prefix binding, also after moving the prefix', () => {
  assert.deepEqual(view(new Router(keymap()).feed(ev('\x02\x02'), 0)), ['prefix:on', 'prefix:off', 'cmd:client.send-prefix']);
  const r = new Router(keymap({ prefix: 'C-a' }));
  assert.deepEqual(view(r.feed(ev('\x02\x01\x01'), 0)), ['send:"\\u0002"', 'prefix:on', 'prefix:off', 'cmd:client.send-prefix']);
});

test('root-table bindings fire without the prefix', () => {
  const r = new Router(keymap({ 'M-Left': 'pane.focus left' }));
  assert.deepEqual(view(r.feed(ev('a\x1b[1;3Db\x1b[1;3C'), 0)), ['send:"a"', 'cmd:pane.focus left', 'send:"b\\u001b[1;3C"']);
});

test('repeat window: repeatable keys fire without the prefix until it lapses', () => {
  const r = new Router(keymap(), { repeatMs: 500 });
  const cUp = '\x1b[1;5A';
  assert.deepEqual(view(r.feed(ev(`\x02${cUp}`), 1000)), ['prefix:on', 'prefix:off', 'cmd:pane.resize up 1']);
  assert.deepEqual(view(r.feed(ev(cUp), 1400)), ['cmd:pane.resize up 1'], 'inside the window');
  assert.deepEqual(view(r.feed(ev('\x1b[1;3B'), 1850)), ['cmd:pane.resize down 5'], 'each repeat extends the window');
  assert.deepEqual(view(r.feed(ev(cUp), 2400)), [`send:${JSON.stringify(cUp)}`], 'after the window the key goes to the pane');
});

test('repeat window: a non-repeatable key ends it and is handled normally', () => {
  const r = new Router(keymap());
  r.feed(ev('\x02\x1b[1;5A'), 0);
  assert.deepEqual(view(r.feed(ev('o'), 100)), ['send:"o"'], 'o is a prefix binding but not repeatable');
  assert.deepEqual(view(r.feed(ev('\x1b[1;5A'), 150)), ['send:"\\u001b[1;5A"'], 'the window is closed now');
  r.feed(ev('\x02\x1b[1;5A'), 1000);
  assert.deepEqual(view(r.feed(ev('\x02z'), 1100)), ['prefix:on', 'prefix:off', 'cmd:pane.zoom'], 'the prefix still works inside a window');
});

test('a non-repeat binding opens no window', () => {
  const r = new Router(keymap());
  r.feed(ev('\x02%'), 0);
  assert.deepEqual(view(r.feed(ev('\x1b[1;5A'), 10)), ['send:"\\u001b[1;5A"']);
});

test('paste or mouse while the prefix is pending cancels it', () => {
  const r = new Router(keymap());
  assert.deepEqual(view(r.feed(ev('\x02\x1b[200~hi\x1b[201~z'), 0)), ['prefix:on', 'prefix:off', 'paste:hi', 'send:"z"']);
  assert.deepEqual(view(r.feed(ev('\x02\x1b[<0;1;1Mz'), 0)), ['prefix:on', 'prefix:off', 'mouse:press', 'send:"z"']);
  assert.equal(r.prefixActive, false);
});

test('focus events pass through and keep the prefix; unknown sequences go to the pane', () => {
  const r = new Router(keymap());
  assert.deepEqual(view(r.feed(ev('\x02\x1b[O\x1b[?1;2c%'), 0)), ['prefix:on', 'focus:false', 'send:"\\u001b[?1;2c"', 'prefix:off', 'cmd:pane.split right']);
});

test('reset and setKeymap', () => {
  const r = new Router(keymap());
  r.feed(ev('\x02'), 0);
  r.reset();
  assert.equal(r.prefixActive, false);
  assert.deepEqual(view(r.feed(ev('%'), 0)), ['send:"%"']);
  r.setKeymap(keymap({ prefix: 'C-a' }));
  assert.deepEqual(view(r.feed(ev('\x02\x01c'), 0)), ['send:"\\u0002"', 'prefix:on', 'prefix:off', 'cmd:window.new']);
});

test('property: sends are exactly the input minus the prefix and the key after it (any batching)', () => {
  let seed = 99;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  // No repeatable keys here: the model below is tmux's rule without repeat windows.
  const pieces = ['a', 'é', '\r', '\x1b[A', '\x02', '%', 'o', 'K', '\x1bx', '\x1b[<0;1;1M', '\x1b[200~p\x1b[201~', '\x1b[I', '\x1b[?1;2c', '\x1b[15~'];
  for (let round = 0; round < 300; round++) {
    let input = '';
    for (let k = 0; k < 30; k++) input += pieces[Math.floor(rand() * pieces.length)];
    const events = ev(input);
    let expected = '';
    let prefix = false;
    for (const e of events) {
      if (e.type === 'paste' || e.type === 'mouse') prefix = false;
      else if (e.type !== 'key') continue;
      else if (e.key === 'Unknown') expected += e.raw;
      else if (prefix) prefix = false;
      else if (e.key === 'C-b') prefix = true;
      else expected += e.raw;
    }
    const r = new Router(keymap());
    const outs: RouterOutput[] = [];
    for (let at = 0; at < events.length;) {
      const n = 1 + Math.floor(rand() * 4);
      outs.push(...r.feed(events.slice(at, at + n), round * 10_000 + at * 1000));
      at += n;
    }
    const sent = outs.map((o) => (o.kind === 'send' ? o.data : '')).join('');
    assert.equal(sent, expected, JSON.stringify(input));
    const whole = new Router(keymap()).feed(events, 0);
    assert.equal(whole.map((o) => (o.kind === 'send' ? o.data : '')).join(''), expected);
    for (let k = 1; k < whole.length; k++) assert.ok(!(whole[k].kind === 'send' && whole[k - 1].kind === 'send'), 'sends are coalesced');
  }
});
