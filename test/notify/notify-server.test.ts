// [notify] in a real server: the user's command (a curl to a local HTTP receiver) runs once when an agent blocks, and not again for the same event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { waitForPane } from '../support/api.js';
import { waitFor } from '../support/wait-for.js';

test('a real server runs the [notify] command once per change, with the JSON on stdin', { timeout: 60_000 }, async (t) => {
  const got: Array<{ path: string; body: Record<string, unknown> }> = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as { port: number }).port;
  const env = tempEnvFor(t);
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(
    join(env.home, '.castellan', 'config.toml'),
    `[notify]\ncommand = 'curl -s -m 5 -X POST --data-binary @- "http://127.0.0.1:${port}/$CASTELLAN_NOTIFY_EVENT/$CASTELLAN_NOTIFY_AGENT"'\ndebounce_ms = 100\n`,
  );
  assert.equal((await env.cli(['server', 'start', '--cols', '80', '--rows', '24'])).code, 0);
  // The notifier listens inside the server: scripts that wait for `ping`'s subscriber count still see only their own.
  assert.equal((await env.call<{ subscribers: number }>('ping')).subscribers, 0);
  const report = (state: string, message?: string) => env.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'claude', state, source: 'api', ...(message ? { message } : {}) });
  await report('working');
  await report('blocked', 'Bash: npm publish');
  await waitForPane(env, 'w1:p1', (p) => p.agent.state === 'blocked');
  await waitFor(() => got.length === 1, { timeoutMs: 10_000, message: 'one notification' });
  assert.equal(got[0].path, '/blocked/claude');
  assert.equal(got[0].body.message, 'Bash: npm publish');
  assert.equal(got[0].body.pane, 'w1:p1');
  // The same state reported again is no change: nothing more. A new change is one more.
  await report('blocked', 'Bash: npm publish');
  await report('done', 'published');
  await waitFor(() => got.length === 2, { timeoutMs: 10_000, message: 'done notification', observe: async () => JSON.stringify({ got, pane: (await env.call<{ panes: unknown[] }>('pane.list')).panes[0] }) });
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(got.map((g) => g.path), ['/blocked/claude', '/done/claude']);
});
