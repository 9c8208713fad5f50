// The installed hook line: a state-only event runs the bridge in the background (the agent does not wait), a tool event
// and any event in a pane started by `castellan agent start` keep the agent waiting for the answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doorCommand, hookCommand, installedHookCommand, isCastellanCommand } from '../../src/integrations/command-line.js';
import { toolEventKind } from '../../src/integrations/govern.js';
import { installedEvents } from '../../src/integrations/tables.js';
import { runLine as runHookLine } from '../support/hook-line.js';
import { waitFor } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'hook-line-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// Stands in for bin/castellan.js: reads all of stdin, waits until the test lets it go, then writes what it saw.
const probe = join(dir, 'probe.cjs');
writeFileSync(
  probe,
  `const fs = require('fs'); let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => {
  // Written aside and renamed: the test reads OUT as soon as it exists, and 300 KB is not written in one go.
  const done = () => { fs.writeFileSync(process.env.OUT + '.part', JSON.stringify({ stdin: s, argv: process.argv.slice(2), ca: process.env.CASTELLAN_CA_CERTS })); fs.renameSync(process.env.OUT + '.part', process.env.OUT); };
  const go = () => fs.existsSync(process.env.GO) ? done() : setTimeout(go, 5);
  go();
});`,
);

/** Runs the line as an agent does (test/support/hook-line.ts), inside a pane (CASTELLAN_ENV) with the test's PATH. */
const runLine = (line: string, env: Record<string, string>, payload: string) => runHookLine(line, { PATH: process.env.PATH ?? '', CASTELLAN_ENV: '1', ...env }, payload);

const files = (name: string) => ({ OUT: join(dir, `${name}.out`), GO: join(dir, `${name}.go`) });

test('a state-only event: the agent gets its hook back before the bridge is done, and the bridge still gets the whole payload', async () => {
  const f = files('bg');
  const payload = JSON.stringify({ hook_event_name: 'Stop', big: 'x'.repeat(300_000) });
  const line = hookCommand([process.execPath, probe], 'claude', 'Stop', { background: true });
  const r = await runLine(line, { ...f, NODE_EXTRA_CA_CERTS: '/ca.pem' }, payload);
  // The bridge is still waiting for GO here, so a line that made the agent wait could not have returned yet.
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.equal(existsSync(f.OUT), false, 'the agent did not wait for the bridge');
  writeFileSync(f.GO, '');
  const seen = JSON.parse(await waitFor(() => (existsSync(f.OUT) ? readFileSync(f.OUT, 'utf8') : undefined), { timeoutMs: 10_000 }));
  assert.equal(seen.stdin, payload, 'the payload arrives whole (300 KB: more than a pipe holds)');
  assert.deepEqual(seen.argv, ['hook', 'claude', 'Stop']);
  assert.equal(seen.ca, '/ca.pem');
});

test('in a pane started by castellan agent start (CASTELLAN_AGENT_ID) the same line makes the agent wait for the answer', async () => {
  const f = files('agent');
  writeFileSync(f.GO, '');
  const line = hookCommand([process.execPath, probe], 'claude', 'UserPromptSubmit', { background: true });
  const r = await runLine(line, { ...f, CASTELLAN_AGENT_ID: 'a1' }, '{"prompt":"hi"}');
  assert.equal(r.code, 0);
  assert.ok(existsSync(f.OUT), 'the bridge had finished when the agent got the hook back');
  assert.equal(JSON.parse(readFileSync(f.OUT, 'utf8')).stdin, '{"prompt":"hi"}');
});

test('outside a castellan pane the background line runs nothing', async () => {
  const f = files('outside');
  writeFileSync(f.GO, '');
  const line = hookCommand([process.execPath, probe], 'claude', 'Stop', { background: true });
  const p = spawn('/bin/sh', ['-c', line], { env: { PATH: process.env.PATH ?? '', ...f }, stdio: ['pipe', 'ignore', 'ignore'] });
  p.stdin.on('error', () => undefined);
  p.stdin.end('{}');
  const code = await new Promise((r) => p.on('close', r));
  assert.equal(code, 0);
  // Give a stray bridge the time it would need to write, measured by a sync run of the same probe.
  const sync = files('outside-sync');
  writeFileSync(sync.GO, '');
  await runLine(hookCommand([process.execPath, probe], 'claude', 'Stop'), sync, '{}');
  assert.equal(existsSync(f.OUT), false);
});

test('tool events castellan governs and the end of a turn keep the agent waiting; every other installed event goes to the background', () => {
  const foreground: string[] = [];
  for (const agent of ['claude', 'codex', 'gemini'] as const) {
    for (const r of installedEvents(agent).filter((x) => x.event !== 'notify')) {
      const line = installedHookCommand(['/n', '/c.js'], agent, r.event);
      const waits = toolEventKind(agent, r.event) !== undefined || r.stage === 'Stop';
      if (waits) foreground.push(`${agent} ${r.event}`);
      assert.equal(line.includes('2>&1 & fi'), !waits, `${agent} ${r.event}`);
      assert.match(line, /^\[ -z "\$CASTELLAN_ENV" \] \|\| /);
    }
  }
  // The foreground ones go through the hook door, whose fallback is the very bridge argv of the plain line.
  assert.equal(installedHookCommand(['/n', '/c.js'], 'claude', 'PreToolUse'), doorCommand(['/n', '/c.js'], 'claude', 'PreToolUse'));
  assert.match(doorCommand(['/n', '/c.js'], 'claude', 'PreToolUse'), / exec \/bin\/sh \S+\/share\/hooks\/door\.sh 10 \/n \/c\.js hook claude PreToolUse$/);
  assert.match(doorCommand(['/n', '/c.js'], 'claude', 'Stop'), /\/door\.sh 1 \/n \/c\.js hook claude Stop$/);
  // `--use-path` installs keep the plain bridge line (no checkout to find door.sh in).
  assert.equal(installedHookCommand(['castellan'], 'claude', 'PreToolUse'), hookCommand(['castellan'], 'claude', 'PreToolUse'));
  assert.ok(isCastellanCommand(installedHookCommand(['/n', '/x/bin/castellan.js'], 'claude', 'PreToolUse')));
  // The turn ends castellan installs for, by name: a table change that moved one of them is seen here.
  for (const e of ['claude Stop', 'claude StopFailure', 'codex Stop', 'gemini AfterAgent']) assert.ok(foreground.includes(e), `${e}: ${foreground.join(', ')}`);
});
