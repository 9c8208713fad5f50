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

  const late = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'working', source: 'hook', integration: true });
  assert.equal(late.state, 'blocked');
  assert.match(late.ignored ?? '', /^late/);
  assert.equal((await waitForPane(env, pane_id, () => true)).agent.state, 'blocked');
  // A report the screen does not contradict still applies (a rejection's idle is the hook's to say).
  const other = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'idle', source: 'hook', integration: true });
  assert.equal(other.ignored, undefined);

  await env.call('pane.report_agent', { pane_id, agent: 'claude', state: 'blocked', source: 'hook', integration: true });
  await env.call('pane.send_keys', { pane_id, keys: ['Enter'] }); // the approval: the hook may now be ahead of the redraw
  const after = await env.call<{ state: string; ignored?: string }>('pane.report_agent', { pane_id, agent: 'claude', state: 'working', source: 'hook', integration: true });
  assert.equal(after.ignored, undefined);
  assert.equal(after.state, 'working');
});

test("a user's own hook report holds against the screen until reset; castellan's integration's report is corrected by it", async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const dir = join(env.home, 'fake-agents');
  mkdirSync(dir);
  // Named claude; after a line of input it draws Claude's permission prompt and waits: the screen then plainly says blocked.
  const claude = join(dir, 'claude');
  writeFileSync(claude, `#!/bin/sh\nprintf '> '\nread x\nprintf '%s\\n' ' Bash command' '   touch x' ' Do you want to proceed?' ' ❯ 1. Yes' '   2. No'\nwhile :; do sleep 1; done\n`, { mode: 0o755 });
  const open = async () => {
    const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [claude] });
    await waitForPane(env, pane_id, (x) => x.agent.name === 'claude', { timeoutMs: 15_000, message: 'claude identified' });
    return pane_id;
  };

  // The contract's shell example: a user's script reports "working" over the socket; it holds, whatever the screen says.
  const mine = await open();
  assert.equal((await env.call<{ state: string }>('pane.report_agent', { pane_id: mine, agent: 'claude', state: 'working', source: 'hook' })).state, 'working');
  await env.call('pane.send_keys', { pane_id: mine, keys: ['Enter'] });
  // The screen's correction would come within DEFAULT_HOOK_GRACE_MS (5 s) plus a detection tick: watch 6.5 s.
  await assert.rejects(waitForPane(env, mine, (x) => x.agent.state !== 'working', { timeoutMs: 6500, message: 'held' }), /held/, "the screen corrected a user's report");
  const heldFor = await waitForPane(env, mine, () => true);
  assert.equal(heldFor.agent.source, 'hook');
  assert.match((await env.cli(['herd', 'explain', '--pane', mine])).stdout, /holds against the screen until reset/);
  // herd reset hands the pane back to the screen.
  assert.equal((await env.cli(['herd', 'reset', '--pane', mine])).code, 0);
  await waitForPane(env, mine, (x) => x.agent.state === 'blocked', { timeoutMs: 10_000, message: 'after reset the screen decides' });

  // castellan's own integration said working, then the agent drew a dialog no hook announced: the screen corrects it.
  assert.equal((await env.cli(['pane', 'close', '--pane', mine])).code, 0, 'room for the dialog on one line');
  const theirs = await open();
  await env.call('pane.report_agent', { pane_id: theirs, agent: 'claude', state: 'working', source: 'hook', integration: true });
  await env.call('pane.send_keys', { pane_id: theirs, keys: ['Enter'] });
  const fixed = await waitForPane(env, theirs, (x) => x.agent.state === 'blocked', { timeoutMs: 15_000, message: 'the screen corrects the integration' }).catch(async (e) => {
    t.diagnostic((await env.cli(['herd', 'explain', '--pane', theirs])).stdout);
    throw e;
  });
  assert.equal(fixed.agent.source, 'heuristic');
  const why = await env.cli(['herd', 'explain', '--pane', theirs]);
  assert.match(why.stdout, /blocked \(from heuristic.*\n.*\n  hook: {6}no hook report/, 'the screen ended the integration\'s report');
});
