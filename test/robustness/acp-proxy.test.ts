// castellan acp against hostile peers: too-long lines and malformed JSON-RPC both ways, an agent that dies, floods, or never starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/wait-for.js';
import { agentSaw, makeRig, messages, prompt, session } from '../acp/support.js';

const errorsIn = (lines: string[]) =>
  lines.flatMap((l) => {
    try {
      const m = JSON.parse(l) as { id?: unknown; error?: { code: number; message: string }; method?: string };
      return m.error && !m.method ? [{ id: m.id ?? null, code: m.error.code, message: m.error.message }] : [];
    } catch {
      return [];
    }
  });

test('from the editor: bad JSON, a batch, a non-object, a line over the limit, an unknown method: each gets a JSON-RPC error; the session goes on', async () => {
  const r = await makeRig({ proxy: { maxLineBytes: 64 * 1024 } });
  try {
    const sid = await session(r);
    r.rawToProxy('{"jsonrpc":"2.0","id":5,"method":\n');
    r.rawToProxy('[{"jsonrpc":"2.0","id":6,"method":"initialize"}]\n');
    r.rawToProxy('42\n');
    r.rawToProxy(`{"jsonrpc":"2.0","id":"big-1","method":"session/prompt","params":{"sessionId":"${sid}","prompt":[{"type":"text","text":"${'x'.repeat(200 * 1024)}"}]}}\n`);
    r.rawToProxy('{"jsonrpc":"2.0","id":9,"method":"castellan/nonsense","params":{}}\n');
    const errs = await waitFor(() => {
      const e = errorsIn(r.fromProxy());
      return e.length >= 5 ? e : undefined;
    }, { timeoutMs: 15_000, message: 'five error answers', observe: () => r.fromProxy().slice(-5) });
    // The oversize line is answered at once by the guard, the others in order by the SDK.
    assert.deepEqual(errs.map((e) => e.code).sort(), [-32600, -32600, -32600, -32601, -32700]);
    const big = errs.find((e) => e.id === 'big-1');
    assert.ok(big, 'the oversize request is answered with its own id, so the editor is not left waiting');
    assert.match(big.message, /over the 65536-byte limit; dropped/);
    assert.ok(errs.some((e) => e.id === 9 && e.code === -32601), 'an unknown method is "method not found" from the agent, relayed');
    const res = await prompt(r, sid, 'hello after all that');
    assert.equal(res.stopReason, 'end_turn');
    assert.ok(messages(r).includes('echo: hello after all that'));
  } finally {
    await r.close();
  }
});

test('from the agent: a line that is not JSON and a line over the limit are answered to the agent; the editor is unaffected', async () => {
  const r = await makeRig({ proxy: { maxLineBytes: 1024 * 1024 } });
  try {
    const sid = await session(r);
    await prompt(r, sid, 'GARBAGE');
    assert.ok(messages(r).includes('still here'));
    const toAgent = await waitFor(() => {
      const e = errorsIn(agentSaw(r).split('\n'));
      return e.length >= 2 ? e : undefined;
    }, { timeoutMs: 15_000, message: 'the agent got two error answers' });
    assert.deepEqual(toAgent.map((e) => [e.id, e.code]), [[null, -32700], [777, -32600]]);
    const res = await prompt(r, sid, 'still fine?');
    assert.equal(res.stopReason, 'end_turn');
  } finally {
    await r.close();
  }
});

test('an agent that dies mid-turn: the pending prompt fails with a clear error, the editor\'s session ends, SessionEnd fires', async () => {
  const r = await makeRig({ config: '[[hooks.hooks]]\nevent = "SessionEnd"\ncommand = "cat > $HOME/end.json"\n' });
  try {
    const sid = await session(r);
    await assert.rejects(prompt(r, sid, 'DIE'), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32001);
      assert.match(e.message, /the agent exited \(code 3\): fake agent: dying on purpose/);
      return true;
    });
    const done = await r.done;
    assert.equal(done.code, 1);
    assert.match(done.error ?? '', /the agent exited \(code 3\)/);
    assert.ok(r.events.some((e) => e.type === 'acp_agent_exited'));
    const { readFileSync } = await import('node:fs');
    assert.match(readFileSync(`${r.home}/end.json`, 'utf8'), /"status":"failed"/);
  } finally {
    await r.close();
  }
});

test('an agent that cannot start: the proxy ends at once with code 1 and the reason', async () => {
  const r = await makeRig({ command: ['/nonexistent/acp-agent', '--acp'] });
  try {
    const done = await r.done;
    assert.equal(done.code, 1);
    assert.match(done.error ?? '', /could not start: .*ENOENT/);
  } finally {
    await r.close();
  }
});

test('an agent that floods: 5,000 session updates all reach the editor, and the proxy still answers', async () => {
  const r = await makeRig();
  try {
    const sid = await session(r);
    const before = process.memoryUsage().rss;
    await prompt(r, sid, 'FLOOD 5000');
    await waitFor(() => messages(r).includes('flood done'), { timeoutMs: 30_000, message: 'the flood drained' });
    await waitFor(() => messages(r).length >= 5001, { timeoutMs: 30_000, message: 'every chunk arrived', observe: () => messages(r).length });
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 400, `rss grew ${grown.toFixed(0)} MiB`);
    assert.equal((await prompt(r, sid, 'after the flood')).stopReason, 'end_turn');
  } finally {
    await r.close();
  }
});
