// A hook report the screen has already overtaken is dropped by pane.report_agent, not shown for a frame.
//
// pi's extension runs its hooks without waiting for them: its agent_start ("working") lands after its gate's
// dialog is drawn. Only a key answers a dialog, so a "working" with no key since the dialog is an old event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { waitForPane } from '../support/api.js';

test('a late hook "working" over a dialog no key has answered is ignored; after a key it applies', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const dir = join(env.home, 'fake-agents');
  mkdirSync(dir);
  // Named claude (the process is identified by name); draws Claude's permission prompt and waits.
  const claude = join(dir, 'claude');
  writeFileSync(claude, `#!/bin/sh\nprintf '%s\\n' ' Bash command' '   touch x' ' Do you want to proceed?' ' ❯ 1. Yes' '   2. No'\nwhile :; do sleep 1; done\n`, { mode: 0o755 });
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [claude] });
  await waitForPane(env, pane_id, (x) => x.agent.name === 'claude' && x.agent.state === 'blocked', { timeoutMs: 15_000, message: 'the dialog reads blocked' });

  const late = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'working', source: 'hook' });
  assert.equal(late.state, 'blocked');
  assert.match(late.ignored ?? '', /^late/);
  assert.equal((await waitForPane(env, pane_id, () => true)).agent.state, 'blocked');
  // A report the screen does not contradict still applies (a rejection's idle is the hook's to say).
  const other = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'idle', source: 'hook' });
  assert.equal(other.ignored, undefined);

  await env.call('pane.report_agent', { pane_id, agent: 'claude', state: 'blocked', source: 'hook' });
  await env.call('pane.send_keys', { pane_id, keys: ['Enter'] }); // the approval: the hook may now be ahead of the redraw
  const after = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'working', source: 'hook' });
  assert.equal(after.ignored, undefined);
  assert.equal(after.state, 'working');
});
