// E2E: a fake agent runs the hook lines castellan installs (sh -c, payload on stdin): state-only events in the
// background still reach the server in order, a big payload whole; the agent never waits for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedHookCommand } from '../../src/integrations/command-line.js';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { waitForPane } from '../support/term-harness.js';

const line = (event: string) => installedHookCommand([process.execPath, BIN], 'claude', event);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

test('background hook lines report SessionStart, a 200 KB prompt and Stop in order', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '120', '--rows', '30'])).code, 0);
  const agent = join(env.home, 'fake-agent.sh');
  const big = 'p'.repeat(200_000);
  writeFileSync(
    agent,
    [
      '#!/bin/sh',
      `echo '{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}' | sh -c ${q(line('SessionStart'))}`,
      'echo "agent ready"',
      'read -r go',
      // Prompt and Stop back to back, as a fast turn does: the background bridges race, seq orders them.
      `printf '{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"${big}"}' | sh -c ${q(line('UserPromptSubmit'))}`,
      'echo "prompt hook returned"',
      'read -r go',
      `echo '{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"ok"}' | sh -c ${q(line('Stop'))}`,
      'echo "turn finished"',
      'read -r go',
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [agent] });
  await waitForPane(env, pane_id, (x) => x.agent.name === 'claude' && x.agent.state === 'idle' && x.agent.source === 'hook', { message: 'SessionStart reported idle', timeoutMs: 15_000 });
  await env.call('pane.send_text', { pane_id, text: 'go', enter: true });
  await waitForPane(env, pane_id, (x) => x.agent.state === 'working' && x.agent.source === 'hook', { message: 'the 200 KB prompt reported working', timeoutMs: 15_000 });
  await env.call('pane.send_text', { pane_id, text: 'go', enter: true });
  await waitForPane(env, pane_id, (x) => x.agent.state === 'done' && x.agent.source === 'hook', { message: 'Stop reported done', timeoutMs: 15_000 });
});
