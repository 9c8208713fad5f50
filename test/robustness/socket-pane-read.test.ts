// `castellan pane read --scrollback` with no --lines returns the whole history (as far as ui.scrollback keeps it), not one screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPane } from '../support/api.js';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

test('pane read --scrollback without --lines prints all the history the pane keeps', async (t) => {
  const env = tempEnvFor(t);
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[ui]\nscrollback = 100\n');
  const start = await env.cli(['server', 'start', '--cols', '80', '--rows', '10']);
  assert.equal(start.code, 0, `${start.stdout}${start.stderr}`);
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'seq 1 300', enter: true });
  await waitFor(async () => (await readPane(env, 'w1:p1')).includes('300'), { timeoutMs: 10_000, message: 'seq finished' });

  const r = await env.cli(['pane', 'read', '--pane', 'w1:p1', '--scrollback']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  // 100 lines of history plus the 10-row screen; more than a screenful, and the oldest lines are gone.
  assert.ok(lines.length > 10, `only ${lines.length} lines: one screen`);
  assert.ok(lines.length <= 110, `${lines.length} lines: more than ui.scrollback keeps`);
  assert.ok(lines.includes('300') && lines.includes('250') && lines.includes('200'), r.stdout);
  assert.ok(!lines.includes('100'), 'line 100 scrolled out of a 100-line history');

  // --lines still keeps the last N, and the socket method agrees with the CLI.
  const last = await env.cli(['pane', 'read', '--pane', 'w1:p1', '--scrollback', '--lines', '5']);
  assert.equal(last.stdout.trimEnd().split('\n').length, 5);
  assert.deepEqual(await readPane(env, 'w1:p1', { source: 'scrollback' }), lines);
});
