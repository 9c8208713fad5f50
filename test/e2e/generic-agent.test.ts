// E2E (issue 29): a program castellan has never heard of, run from a pane's shell, gets a badge marked generic from
// what it tells the terminal (OSC 9;4, a title spinner, a bell), and the pane is a plain shell again once it exits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { waitForPane } from '../support/term-harness.js';

test('an unknown program reads working, then needs you on its bell; its shell is back unnamed', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const script = join(env.home, 'mystery-agent.mjs');
  writeFileSync(script, [
    "const out = (s) => process.stdout.write(s);",
    "out('\\x1b]0;⠙ mystery\\x07\\x1b]9;4;3\\x07thinking\\r\\n');",
    "process.stdin.once('data', () => {",
    "  out('\\x1b]9;4;0\\x07\\x1b]0;mystery\\x07Edit main.c? \\x07');",
    "  process.stdin.once('data', () => { out('ok\\r\\n'); process.exit(0); });",
    "});",
  ].join('\n'));
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: ['/bin/sh'] });
  await env.call('pane.send_text', { pane_id, text: `exec 2>&1; ${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`, enter: true });
  await waitForPane(env, pane_id, (x) => x.agent.name === 'generic' && x.agent.state === 'working', { message: 'working, named generic', timeoutMs: 15000 }).catch(async (e) => { console.log(JSON.stringify(await env.call('pane.explain', { pane_id }))); throw e; });
  const x = await env.call<{ reading: { rule?: string } | null; identification: { why?: string } | null }>('pane.explain', { pane_id });
  assert.match(x.reading?.rule ?? '', /^generic\./, JSON.stringify(x));
  assert.match(x.identification?.why ?? '', /generic reader/);
  await env.call('pane.send_text', { pane_id, text: 'go', enter: true });
  await waitForPane(env, pane_id, (p) => p.agent.state === 'blocked', { message: 'blocked on its bell', timeoutMs: 15000 });
  await env.call('pane.send_text', { pane_id, text: 'y', enter: true });
  await waitForPane(env, pane_id, (p) => p.agent.name === undefined && p.agent.state !== 'blocked' && p.agent.state !== 'working', { message: 'the shell is back, unnamed', timeoutMs: 15000 });
});
