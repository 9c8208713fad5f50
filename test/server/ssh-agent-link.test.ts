// The panes' SSH_AUTH_SOCK follows the terminal the user attached from last (issue 31: herdr's users lost their agent
// after a reattach). A pane's variable is a stable link; each attaching client points it at its own live agent, and
// nothing else moves it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SshAgentLink } from '../../src/server/ssh-agent-link.js';
import { RpcClient } from '../../src/platform/rpc-client.js';
import { makeTempEnv } from '../support/temp-env.js';
import { startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** A listening Unix socket standing in for an ssh-agent. */
async function fakeAgent(path: string): Promise<net.Server> {
  const s = net.createServer((c) => c.destroy());
  await new Promise<void>((r) => s.listen(path, r));
  return s;
}

test('the link: made from the server\'s own agent, moved only to a live Unix socket, replaced in one step, removed at stop', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-agent-'));
  const servers: net.Server[] = [];
  t.after(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const a = join(dir, 'a.sock');
  const b = join(dir, 'b.sock');
  servers.push(await fakeAgent(a), await fakeAgent(b));
  const link = new SshAgentLink(join(dir, 'castellan.sock.ssh-agent'), a);
  const env = link.forPanes({ PATH: '/bin', SSH_AUTH_SOCK: a });
  assert.equal(env.SSH_AUTH_SOCK, link.path);
  assert.equal(env.PATH, '/bin');
  assert.equal(readlinkSync(link.path), a);

  assert.equal(link.retarget(b), true);
  assert.equal(readlinkSync(link.path), b);

  // Hostile or stale: each refused, the link where it was.
  writeFileSync(join(dir, 'file'), 'x');
  mkdirSync(join(dir, 'd'));
  for (const bad of ['relative.sock', join(dir, 'file'), join(dir, 'd'), join(dir, 'gone.sock'), `${a}\0x`, '/' + 'x'.repeat(5000), '', 42, null, { path: a }]) {
    assert.equal(link.retarget(bad), false, `refused: ${JSON.stringify(bad)?.slice(0, 60)}`);
    assert.equal(readlinkSync(link.path), b);
  }
  link.remove();
  assert.throws(() => readlinkSync(link.path));

  // A server with no agent of its own leaves SSH_AUTH_SOCK alone until a client brings one.
  const none = new SshAgentLink(join(dir, 'other.sock.ssh-agent'), undefined);
  assert.equal(none.forPanes({ PATH: '/bin' }).SSH_AUTH_SOCK, undefined);
  assert.equal(none.retarget(a), true);
  assert.equal(none.forPanes({ PATH: '/bin' }).SSH_AUTH_SOCK, none.path);
});

test('a pane started before the reattach reaches the agent of the terminal attached last; a script cannot move it, nor a hostile path', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cst-agent-'));
  const servers: net.Server[] = [];
  const first = join(dir, 'first.sock');
  const second = join(dir, 'second.sock');
  servers.push(await fakeAgent(first), await fakeAgent(second));
  const env = makeTempEnv({ env: { SSH_AUTH_SOCK: first } });
  t.after(async () => {
    await env.cleanup();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal((await env.cli(['server', 'start'])).code, 0);
  const linkPath = `${env.socket}.ssh-agent`;
  // The pane's variable is the link, and the link names the server's own agent.
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'echo "AGENT=$SSH_AUTH_SOCK"', enter: true });
  await waitFor(async () => (await env.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes(`AGENT=${linkPath}`), { timeoutMs: 10_000, message: 'the pane to show the link' });
  assert.equal(readlinkSync(linkPath), first);

  // A login elsewhere: the client attaches with another agent, and the link follows it.
  const h = await startAttached(env, { env: { SSH_AUTH_SOCK: second }, timeoutMs: 30_000 });
  env.onCleanup(() => h.kill());
  await waitFor(() => readlinkSync(linkPath) === second, { timeoutMs: 10_000, message: 'the link to point at the attaching terminal\'s agent' });
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'readlink "$SSH_AUTH_SOCK"', enter: true });
  await waitFor(async () => (await env.call<{ text: string }>('pane.read', { pane_id: 'w1:p1' })).text.includes(second), { timeoutMs: 10_000, message: 'the old pane to reach the new agent' });

  // A connection that is not an attached client may not move it; an attached one may not point it at a file.
  const script = await RpcClient.connect(env.socket);
  t.after(() => script.close());
  await assert.rejects(script.request('client.ssh_agent', { path: first }), /only an attached client/);
  await assert.rejects(script.request('client.ssh_agent', { path: 'x'.repeat(2000) }), /invalid|too|1024/i);
  assert.equal(readlinkSync(linkPath), second);

  assert.equal((await env.cli(['server', 'stop'])).code, 0);
  await waitFor(() => {
    try {
      readlinkSync(linkPath);
      return false;
    } catch {
      return true;
    }
  }, { timeoutMs: 10_000, message: 'the link removed with the server' });
});
