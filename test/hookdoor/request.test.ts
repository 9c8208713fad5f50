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

test('the splitter: lines across chunks, overlong lines dropped whole with their tail, binary harmless', () => {
  const s = new LineSplitter();
  const got: string[] = [];
  const push = (x: string | Buffer) => s.push(Buffer.isBuffer(x) ? x : Buffer.from(x, 'latin1'), (l) => got.push(l));
  push('v1 1 cla');
  push('ude PreToolUse\nv1 2 claude Stop\n');
  push('x'.repeat(MAX_LINE_BYTES + 10));
  push('y'.repeat(100) + 'v1 3 claude Stop\n');
  push(Buffer.from([0xff, 0x00, 0x0a]));
  push('v1 4 claude Stop\n');
  assert.deepEqual(got, ['v1 1 claude PreToolUse', 'v1 2 claude Stop', '\u00ff\u0000', 'v1 4 claude Stop']);
  assert.equal(s.dropped, 1);
  // A line just at the cap is kept; one past it is not.
  const t = new LineSplitter();
  const lines: string[] = [];
  t.push(Buffer.from('a'.repeat(MAX_LINE_BYTES) + '\n' + 'b'.repeat(MAX_LINE_BYTES + 1) + '\n'), (l) => lines.push(l));
  assert.deepEqual(lines.map((l) => l.length), [MAX_LINE_BYTES]);
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
