// The keystroke fast paths (client: typed text skips the key parser and router; server: client.input skips zod) do
// exactly what the slow paths do, on random and hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchLine } from '../../src/api/dispatch.js';
import type { ClientInput, Connection, SessionApi } from '../../src/api/context.js';
import clientInput from '../../src/api/methods/client-input.js';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';
import { buildKeymap } from '../../src/input/keymap.js';
import { KeyParser } from '../../src/input/keys.js';
import { Router } from '../../src/input/router.js';
import { typedKeys } from '../../src/input/typed-text.js';
import { prng } from '../support/prng.js';


// Units around every boundary typedKeys draws: controls, space, DEL, C1, NBSP, surrogates (paired and lone), BMP, astral.
const POOL = ['a', 'Z', '~', '!', ' ', '\x1b', '\r', '\t', '\x00', '\x02', '\x7f', '\x80', '\x9f', '\xa0', 'é', '日', '\ud83d\ude00', '\ud83d', '\ude00', '\uffff', '\ue000', '[', 'O', ';', '`'];
const randomText = (rnd: () => number, max: number): string => {
  let s = '';
  const n = 1 + Math.floor(rnd() * max);
  for (let i = 0; i < n; i++) s += POOL[Math.floor(rnd() * POOL.length)];
  return s;
};

test('typedKeys: whenever it says "typed text", the key parser names the same keys with the same bytes', () => {
  const rnd = prng(14);
  let typed = 0;
  for (let i = 0; i < 20_000; i++) {
    const s = randomText(rnd, 4);
    const keys = typedKeys(s);
    if (!keys) continue;
    typed++;
    const p = new KeyParser();
    const events = p.feed(s);
    assert.equal(p.pending, false, `nothing held back for ${JSON.stringify(s)}`);
    assert.deepEqual(events, keys.map((k) => ({ type: 'key', key: k, raw: k })), JSON.stringify(s));
  }
  assert.ok(typed > 500, `the pool produced typed text (${typed})`);
});

test('typedKeys: controls, ESC, space, C1, lone surrogates, empty and long chunks are not typed text', () => {
  for (const s of ['', ' ', '\x1b', 'a\x1b', '\x1b[A', '\r', 'a\r', '\x7f', '\x80', '\x9f', '\ud83d', '\ude00', 'a\ud83d', '\x00', 'x'.repeat(65), '\x1b[200~x\x1b[201~']) {
    assert.equal(typedKeys(s), undefined, JSON.stringify(s));
  }
  assert.deepEqual(typedKeys('x'.repeat(64)), Array(64).fill('x'));
  assert.deepEqual(typedKeys('a\ud83d\ude00日'), ['a', '\ud83d\ude00', '日']);
});

test('Router.passesThrough: a key it lets through is what feed() would send as typed, leaving the router as it was', () => {
  const keymaps = [
    buildKeymap(DEFAULT_BINDINGS, {}).keymap,
    // A printable prefix and printable root bindings: the cases a fast path could get wrong.
    buildKeymap(DEFAULT_BINDINGS, { prefix: '`', x: 'pane.focus left', 'é': 'pane.focus right' }).keymap,
  ];
  // Keys that open the prefix, run repeatable bindings (M-Left after the prefix opens a repeat window), or are typed.
  const keys = ['a', 'x', 'é', '`', '日', 'C-b', 'M-Left', 'M-Right', 'o', '%', 'Enter'];
  const raw: Record<string, string> = { 'C-b': '\x02', 'M-Left': '\x1b[1;3D', 'M-Right': '\x1b[1;3C', Enter: '\r' };
  const rnd = prng(17);
  for (const km of keymaps) {
    const r = new Router(km, { repeatMs: 500 });
    const shadow = new Router(km, { repeatMs: 500 });
    let now = 0;
    let passed = 0;
    for (let i = 0; i < 5000; i++) {
      now += Math.floor(rnd() * 400);
      const key = keys[Math.floor(rnd() * keys.length)];
      const bytes = raw[key] ?? key;
      const events = new KeyParser().feed(bytes);
      if (r.passesThrough(key)) {
        passed++;
        assert.deepEqual(shadow.feed(events, now), [{ kind: 'send', data: bytes }], `${key} at step ${i}`);
        // The real router skips feed() on the fast path; the shadow did feed: both must still agree on every key.
        for (const k of keys) assert.equal(shadow.passesThrough(k), r.passesThrough(k), `state after ${key}, then ${k}`);
      } else {
        r.feed(events, now);
        shadow.feed(events, now);
      }
      assert.equal(r.prefixActive, shadow.prefixActive);
    }
    assert.ok(passed > 500, `keys went through (${passed})`);
    assert.equal(r.passesThrough(km.prefix), false, 'the prefix never passes through');
  }
  const custom = buildKeymap(DEFAULT_BINDINGS, { prefix: '`', x: 'pane.focus left' }).keymap;
  const r = new Router(custom);
  assert.equal(r.passesThrough('x'), false, 'a root binding never passes through');
  assert.equal(r.passesThrough('`'), false);
  assert.equal(r.passesThrough('y'), true);
});

/** A session that records client.input, and a connection attached as client c1. */
function harness(attached = true) {
  const clientId = attached ? 'c1' : undefined;
  const got: ClientInput[] = [];
  const session = { clientInput: (_id: string, m: ClientInput) => void got.push(m) } as unknown as SessionApi;
  const conn = { id: 'k1', clientId, subscriptions: new Map(), closed: false, send: () => true, onClose: () => {} } as unknown as Connection;
  return { got, ctx: { session, conn } };
}

/** What the schema path does with these params: the message the session gets, or undefined when refused. */
function viaSchema(params: unknown): ClientInput | undefined {
  const r = clientInput.params.safeParse(params === null ? undefined : params);
  return r.success ? (r.data as ClientInput) : undefined;
}

const BIG = { kind: 'data', data: 'x'.repeat(1_000_000) };

test('client.input quick check: never looser than the schema, and the same message when both accept', () => {
  const cases: unknown[] = [
    { kind: 'data', data: 'a' },
    { kind: 'data', data: '' },
    BIG,
    { kind: 'data', data: 'x'.repeat(1_000_001) },
    { kind: 'data', data: 'a', extra: { deep: [1, 2] } },
    { kind: 'data', data: 5 },
    { kind: 'data', data: ['a'] },
    { kind: 'data', data: null },
    { kind: 'data' },
    { kind: 'Data', data: 'a' },
    { kind: 'paste', text: 'a' },
    { kind: 'focus', focused: true },
    { kind: 'mouse', action: 'press', button: 0, x: 1, y: 1 },
    JSON.parse('{"kind":"data","data":"a","__proto__":{"kind":"paste"}}'),
    JSON.parse('{"__proto__":{"kind":"data","data":"a"}}'),
    Object.assign(Object.create({ kind: 'data', data: 'inherited' }), {}),
    ['data', 'a'],
    'data',
    null,
    undefined,
    42,
  ];
  for (const p of cases) {
    const quick = clientInput.quick!(p);
    if (quick === undefined) continue;
    // Compared as JSON: a failing deepEqual would diff two 1 MB strings for minutes.
    assert.equal(JSON.stringify(quick), JSON.stringify(viaSchema(p)), `quick accepted ${JSON.stringify(p)?.slice(0, 80)}: the schema must give the same`);
  }
});

test('dispatchLine: client.input notifications reach the session as through the schemas; requests and odd lines still get their replies', async () => {
  type Expected = null | { id: unknown; result?: unknown; error?: { code: string } };
  const lines: Array<[string, ClientInput | undefined, Expected]> = [
    // [line, what the session gets, the reply]
    ['{"method":"client.input","params":{"kind":"data","data":"日"}}', { kind: 'data', data: '日' }, null],
    ['{"method":"client.input","params":{"kind":"data","data":"a","junk":[[[1]]]}}', { kind: 'data', data: 'a' }, null],
    ['{"params":{"kind":"data","data":"b"},"method":"client.input"}', { kind: 'data', data: 'b' }, null],
    ['{"method":"client.input","params":{"kind":"paste","text":"p"}}', { kind: 'paste', text: 'p' }, null],
    ['{"method":"client.input","params":{"kind":"data","data":7}}', undefined, null],
    ['{"method":"client.input","params":null}', undefined, null],
    ['{"method":"client.input"}', undefined, null],
    ['{"method":"client.inputs","params":{"kind":"data","data":"a"}}', undefined, null],
    ['{"method":"CLIENT.INPUT","params":{"kind":"data","data":"a"}}', undefined, null],
    ['{"method":["client.input"],"params":{"kind":"data","data":"a"}}', undefined, { id: null, error: { code: 'invalid_request' } }],
    ['{"id":1,"method":"client.input","params":{"kind":"data","data":"c"}}', { kind: 'data', data: 'c' }, { id: 1, result: { ok: true } }],
    ['{"id":{"x":1},"method":"client.input","params":{"kind":"data","data":"c"}}', undefined, { id: null, error: { code: 'invalid_request' } }],
    ['{"id":2,"method":"client.input","params":{"kind":"data","data":false}}', undefined, { id: 2, error: { code: 'invalid_params' } }],
    ['{"method":"client.input","params":{"kind":"data","data":"a"},"__proto__":{"id":3}}', { kind: 'data', data: 'a' }, null],
    [`{"method":"client.input","params":{"kind":"data","data":"${'x'.repeat(1_000_001)}"}}`, undefined, null],
    [`{"method":"client.input","params":{"kind":"data","data":"a","n":${'['.repeat(100)}${']'.repeat(100)}}}`, undefined, { id: null, error: { code: 'invalid_params' } }],
    ['[{"method":"client.input","params":{"kind":"data","data":"a"}}]', undefined, { id: null, error: { code: 'invalid_request' } }],
  ];
  for (const [line, expect, reply] of lines) {
    const h = harness();
    const r = await dispatchLine(line, h.ctx);
    // Compared as short JSON: a failing deepEqual would diff megabyte strings for minutes.
    const short = (v: unknown) => JSON.stringify(v)?.slice(0, 300);
    assert.equal(short(h.got), short(expect ? [expect] : []), line.slice(0, 100));
    if (reply?.error) {
      assert.ok(r && 'error' in r, `an error reply for ${line.slice(0, 100)}: ${short(r)}`);
      assert.equal(r.id, reply.id);
      assert.equal(r.error.code, reply.error.code, line.slice(0, 100));
    } else assert.equal(short(r), short(reply), line.slice(0, 100));
  }
  // Not attached: the handler refuses, and a notification still gets no reply (as through the schemas).
  const h = harness(false);
  assert.equal(await dispatchLine('{"method":"client.input","params":{"kind":"data","data":"a"}}', h.ctx), null);
  const asked = await dispatchLine('{"id":"q","method":"client.input","params":{"kind":"data","data":"a"}}', h.ctx);
  assert.ok(asked && 'error' in asked && asked.error.code === 'not_attached');
  assert.deepEqual(h.got, []);
});
