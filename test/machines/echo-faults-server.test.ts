// Issue 31's faults of the far side, seen from the keyboard: the remote server restarted, a machine that never answers.
// The measurement and its bound: echo-faults.ts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { background, echoDuring, remoteCli, skip } from './echo-faults.js';

test('echo stays fast while the remote server is restarted', { skip, timeout: 240_000 }, async (t) => {
  await echoDuring(t, 'remote restarted', async (m) => {
    assert.equal(await remoteCli(m, 'server', 'stop'), 0);
    assert.equal(await remoteCli(m, 'server', 'start'), 0);
  });
});

test('echo stays fast while a machine never answers (a port that accepts and never speaks)', { skip, timeout: 240_000 }, async (t) => {
  const mute = net.createServer((s) => s.on('error', () => undefined));
  const held: net.Socket[] = [];
  mute.on('connection', (s) => held.push(s));
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of held) s.destroy();
    mute.close();
  });
  await echoDuring(t, 'machine never answers', async (m, bare) => {
    // A script asks every machine; the same script with no machines runs in the other world.
    background(m.local, ['herd', 'list', '--all-machines']);
    background(bare, ['herd', 'list']);
  }, async (m) => {
    m.sshd.addHost('castellan-mute', (mute.address() as net.AddressInfo).port);
    await m.local.cli(['machine', 'add', 'mute', 'castellan-mute']);
  });
});
