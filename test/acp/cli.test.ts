// The real `castellan acp` binary between the SDK's client and the scripted agent: relays, survives bad lines, exits cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { loadSdk } from '../../src/acp/sdk.js';
import { BIN } from '../support/temp-env.js';
import { FAKE_AGENT } from './support.js';

test('castellan acp -- AGENT: a session and a prompt through the real binary; a bad line is answered; EOF ends it with 0', { timeout: 60_000 }, async () => {
  const sdk = await loadSdk();
  const home = mkdtempSync(join(tmpdir(), 'cacpbin-'));
  const env = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
  const child = spawn(process.execPath, [BIN, 'acp', '--no-pane', '--', process.execPath, FAKE_AGENT], { env, cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const chunks: string[] = [];
    const editor = sdk.client({ name: 'bin-editor' }).onNotification('session/update', ({ params }) => {
      const u = params.update as { sessionUpdate: string; content?: { text?: string } };
      if (u.sessionUpdate === 'agent_message_chunk' && u.content?.text) chunks.push(u.content.text);
    });
    const conn = editor.connect(sdk.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
    const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    const s = await conn.agent.request('session/new', { cwd: home, mcpServers: [] });
    child.stdin.write('this is not json\n');
    const r = await conn.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi there' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(chunks, ['echo: hi there']);
    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    conn.close();
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
});

test('castellan acp without an agent is a usage error (exit 2)', async () => {
  const child = spawn(process.execPath, [BIN, 'acp'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 2);
  assert.match(err, /give the agent after --/);
});

test('castellan acp -- AGENT --yolo under shell = "deny" is refused with exit 2 and the reason on stderr; the agent never starts', async () => {
  const home = mkdtempSync(join(tmpdir(), 'cacpbin-'));
  const { mkdirSync, writeFileSync, existsSync } = await import('node:fs');
  mkdirSync(join(home, '.castellan'));
  writeFileSync(join(home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
  const env = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', FAKE_ACP_LOG: join(home, 'agent-in.log') };
  const child = spawn(process.execPath, [BIN, 'acp', '--no-pane', '--', process.execPath, FAKE_AGENT, '--yolo'], { env, cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    child.stdin.end();
    assert.equal(await code, 2);
    assert.match(err, /castellan acp refused to start node: --yolo makes it run tools without asking for permission, and castellan's policy gates shell/);
    assert.equal(existsSync(env.FAKE_ACP_LOG), false, 'the agent never started');
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
});
