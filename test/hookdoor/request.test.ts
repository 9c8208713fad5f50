// The door's request parsing: the request line, the line splitter's cap and resync, the variables' records, and
// door.sh writing exactly DOOR_VARS (one list, never two that drift).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LineSplitter, MAX_LINE_BYTES, parseRequestLine } from '../../src/hookdoor/request.js';
import { DOOR_VARS, parseEnvRecords } from '../../src/hookdoor/vars.js';
import { DOOR_SH } from '../../src/integrations/command-line.js';

test('request lines: only v1, a pid, a known agent and an event the door serves', () => {
  assert.deepEqual(parseRequestLine('v1 123 claude PreToolUse'), { pid: 123, agent: 'claude', event: 'PreToolUse' });
  assert.deepEqual(parseRequestLine('v1 9 gemini AfterAgent'), { pid: 9, agent: 'gemini', event: 'AfterAgent' });
  assert.deepEqual(parseRequestLine('v1 9 pi tool_call'), { pid: 9, agent: 'pi', event: 'tool_call' });
  for (const bad of [
    '',
    'v2 123 claude PreToolUse',
    'v1 0123 claude PreToolUse',
    'v1 -1 claude PreToolUse',
    'v1 99999999999 claude PreToolUse',
    'v1 4294967295 claude PreToolUse',
    'v1 12 ../x PreToolUse',
    'v1 12 nobody PreToolUse',
    'v1 12 claude UserPromptSubmit', // state-only: the background line's
    'v1 12 claude PreToolUse extra',
    'v1  12 claude PreToolUse',
    'v1 12 claude PreToolUse\r',
    'v1 1\u00002 claude PreToolUse',
  ])
    assert.ok('why' in parseRequestLine(bad), JSON.stringify(bad));
});

test('the splitter: lines across chunks, overlong lines kept as their last 4 KB (cut), binary harmless', () => {
  const s = new LineSplitter();
  const got: Array<[string, boolean]> = [];
  const push = (x: string | Buffer) => s.push(Buffer.isBuffer(x) ? x : Buffer.from(x, 'latin1'), (l, cut) => got.push([l, cut]));
  push('v1 1 cla');
  push('ude PreToolUse\nv1 2 claude Stop\n');
  push('x'.repeat(MAX_LINE_BYTES + 10));
  push('y'.repeat(100) + 'v1 3 claude Stop\n');
  push(Buffer.from([0xff, 0x00, 0x0a]));
  push('v1 4 claude Stop\n');
  assert.deepEqual(got.map(([l]) => l.slice(-16)), ['1 claude PreToolUse'.slice(-16), 'v1 2 claude Stop', 'v1 3 claude Stop', '\u00ff\u0000', 'v1 4 claude Stop']);
  assert.deepEqual(got.map(([, cut]) => cut), [false, false, true, false, false]);
  // The overlong one: only its last MAX_LINE_BYTES, in which the request written after the flood is whole.
  assert.equal(got[2]![0].length, MAX_LINE_BYTES);
  assert.deepEqual(parseRequestLine(got[2]![0]), { pid: 3, agent: 'claude', event: 'Stop' });
  // A line just at the cap is whole; one past it is cut to the cap.
  const t = new LineSplitter();
  const lines: Array<[number, boolean]> = [];
  t.push(Buffer.from('a'.repeat(MAX_LINE_BYTES) + '\n' + 'b'.repeat(MAX_LINE_BYTES + 1) + '\n'), (l, cut) => lines.push([l.length, cut]));
  assert.deepEqual(lines, [[MAX_LINE_BYTES, false], [MAX_LINE_BYTES, true]]);
  // 1 MB without a newline holds no more than the cap.
  const u = new LineSplitter();
  for (let i = 0; i < 256; i++) u.push(Buffer.alloc(4096, 0x7a), () => assert.fail('no line'));
  assert.ok((u as unknown as { buf: string }).buf.length <= MAX_LINE_BYTES);
});

test('a request after a writer\'s unfinished bytes is the tail from the last "v1 "', () => {
  assert.deepEqual(parseRequestLine('v1 12 clav1 13 claude PreToolUse'), { pid: 13, agent: 'claude', event: 'PreToolUse' });
  assert.deepEqual(parseRequestLine('\u0000\u00ffjunk v1 5 codex Stop'), { pid: 5, agent: 'codex', event: 'Stop' });
  for (const bad of ['v1 7 claude Stopv1 ', 'v1 7 claude Stop v1', 'xv1 7 claude Stop extra', 'v1 7 v1 8 claude'])
    assert.ok('why' in parseRequestLine(bad), JSON.stringify(bad));
});

test('variable records: known names once each, NUL-terminated', () => {
  const rec = (...kv: string[]) => Buffer.from(kv.map((x) => `${x}\0`).join(''));
  assert.deepEqual(parseEnvRecords(rec('HOME=/h', 'PWD=/a=b', 'CASTELLAN_ENV=')), { env: { HOME: '/h', PWD: '/a=b', CASTELLAN_ENV: '' } });
  assert.deepEqual(parseEnvRecords(Buffer.alloc(0)), { env: {} });
  assert.ok('why' in parseEnvRecords(rec('PATH=/bin')), 'a name not in the list');
  assert.ok('why' in parseEnvRecords(rec('HOME=/a', 'HOME=/b')), 'twice');
  assert.ok('why' in parseEnvRecords(Buffer.from('HOME=/a')), 'no final NUL');
  assert.ok('why' in parseEnvRecords(rec('=x')));
  assert.ok('why' in parseEnvRecords(Buffer.from([0xff, 0x3d, 0x00])));
  // Not UTF-8 (a Latin-1 é in a working directory): refused, never decoded with U+FFFD.
  assert.deepEqual(parseEnvRecords(Buffer.concat([Buffer.from('PWD=/tmp/caf'), Buffer.from([0xe9, 0x00])])), { why: 'the records are not UTF-8' });
  assert.deepEqual(parseEnvRecords(rec('PWD=/tmp/café')), { env: { PWD: '/tmp/café' } });
});

test('door.sh writes exactly DOOR_VARS, in order, each only when set', () => {
  const sh = readFileSync(DOOR_SH, 'utf8');
  const written = [...sh.matchAll(/^\s*\[ -z "\$\{([A-Z_]+)\+x\}" \] \|\| printf '([A-Z_]+)=%s\\0' "\$([A-Z_]+)"$/gm)].map((m) => {
    assert.ok(m[1] === m[2] && m[2] === m[3], m[0]);
    return m[1];
  });
  assert.match(sh, /printf 'PWD=%s\\0' "\$PWD"/);
  assert.deepEqual([...written, 'PWD'], [...DOOR_VARS]);
  // And no other record is written.
  assert.equal((sh.match(/=%s\\0/g) ?? []).length, DOOR_VARS.length);
});
