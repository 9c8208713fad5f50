// An agent started under a wrapper that stays in the foreground (`sh -c 'run-agent.sh claude; …'`) is identified.
//
// The group leader stays `sh` and its name never changes while the script under it execs the agent, so a
// cache keyed on the foreground group alone never looked again (the lab's `/bin/sh -c run-agent.sh` Claude had no badge).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { waitForPane } from '../support/api.js';

test('an agent exec\'d by a script under a foreground sh -c gets its name and badge', async (t) => {
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const bin = join(env.home, 'fake-agents');
  mkdirSync(bin);
  // A script named claude: the kernel names the process after it (comm "claude"). It draws Claude's input box
  // in two paints, as the real one draws its UI, then waits.
  const claude = join(bin, 'claude');
  writeFileSync(claude, `#!/bin/sh\necho 'Claude Code (fake)'\nsleep 1.2\nprintf '%s\\n' '────────────────────' '❯ ' '────────────────────'\nwhile :; do sleep 1; done\n`, { mode: 0o755 });
  const wrapper = join(bin, 'run-agent.sh');
  writeFileSync(wrapper, `#!/bin/bash\necho 'agent-lab: starting claude'\nsleep 0.6\nexec ${claude}\n`, { mode: 0o755 });
  // "; true": sh cannot exec the wrapper in its place, it stays the foreground group's leader
  const { pane_id } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: ['/bin/sh', '-c', `${wrapper}; true`] });
  const p = await waitForPane(env, pane_id, (x) => x.agent.name === 'claude' && x.agent.state !== 'unknown', { timeoutMs: 15_000, message: 'claude identified under sh -c' })
    .catch(async (e) => { throw new Error(`${(e as Error).message}; detection: ${JSON.stringify((await env.call<{ identification?: unknown }>('pane.explain', { pane_id })).identification)}`); });
  // its prompt after start-up output: idle, or done in a pane nobody looks at
  assert.ok(['idle', 'done'].includes(p.agent.state), p.agent.state);
});
