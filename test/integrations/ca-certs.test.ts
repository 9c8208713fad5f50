// The hook command starts node without NODE_EXTRA_CA_CERTS and the bridge hands the agent's value on to what it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { agentEnv, CA_CERTS_ASSIGNMENTS } from '../../src/integrations/ca-certs.js';
import { codexNotifyArgv, hookCommand } from '../../src/integrations/command-line.js';

const probe = [process.execPath, '-e', 'process.stdout.write(JSON.stringify([process.env.CASTELLAN_CA_CERTS ?? null, process.env.NODE_EXTRA_CA_CERTS ?? null]))'];

/** Runs a hook command line as an agent does (sh -c), with the node argv replaced by a probe that prints its env. */
function seen(env: Record<string, string>): [string | null, string | null] {
  const cmd = `[ -z "$CASTELLAN_ENV" ] || ${CA_CERTS_ASSIGNMENTS} ${probe.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  return JSON.parse(execFileSync('/bin/sh', ['-c', cmd], { env: { PATH: process.env.PATH ?? '', CASTELLAN_ENV: '1', ...env } }).toString());
}

test('the hook command carries the assignments before node, after the plain-session guard', () => {
  const c = hookCommand(['/usr/bin/node', '/x/bin/castellan.js'], 'claude', 'PreToolUse');
  assert.equal(c, `[ -z "$CASTELLAN_ENV" ] || ${CA_CERTS_ASSIGNMENTS} /usr/bin/node /x/bin/castellan.js hook claude PreToolUse`);
  const notify = codexNotifyArgv(['/usr/bin/node', '/x/bin/castellan.js']);
  assert.match(notify[2]!, /\|\| CASTELLAN_CA_CERTS="\$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= exec \/usr\/bin\/node/);
});

test('through sh, node starts with NODE_EXTRA_CA_CERTS empty and the value parked', () => {
  assert.deepEqual(seen({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' }), ['/etc/corp-ca.pem', '']);
  assert.deepEqual(seen({}), ['', '']);
  // A value with spaces and quotes survives the shell word as it is.
  assert.deepEqual(seen({ NODE_EXTRA_CA_CERTS: `/a b/it's "x".pem` }), [`/a b/it's "x".pem`, '']);
});

test('codex notify through sh exec keeps the same environment', () => {
  const argv = codexNotifyArgv([process.execPath, '-e', 'process.stdout.write(JSON.stringify([process.env.CASTELLAN_CA_CERTS, process.env.NODE_EXTRA_CA_CERTS, process.argv.slice(-2)]))']);
  const out = execFileSync(argv[0]!, [...argv.slice(1), '{"type":"x"}'], { env: { PATH: process.env.PATH ?? '', CASTELLAN_ENV: '1', NODE_EXTRA_CA_CERTS: '/ca.pem' } }).toString();
  assert.deepEqual(JSON.parse(out), ['/ca.pem', '', ['notify', '{"type":"x"}']]);
});

test('agentEnv gives back what the agent had, and leaves an old hook line alone', () => {
  assert.deepEqual(agentEnv({ A: '1', CASTELLAN_CA_CERTS: '/ca.pem', NODE_EXTRA_CA_CERTS: '' }), { A: '1', NODE_EXTRA_CA_CERTS: '/ca.pem' });
  assert.deepEqual(agentEnv({ A: '1', CASTELLAN_CA_CERTS: '', NODE_EXTRA_CA_CERTS: '' }), { A: '1' });
  const old = { A: '1', NODE_EXTRA_CA_CERTS: '/ca.pem' };
  assert.equal(agentEnv(old), old);
});

test('empty NODE_EXTRA_CA_CERTS is what node takes as none (no file read at start)', () => {
  // If a Node version read an empty value as a path, every hook would print a warning on the agent's stderr.
  const run = (v: string) => spawnSync(process.execPath, ['-e', '0'], { env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: v } }).stderr.toString();
  assert.match(run('/nonexistent/ca.pem'), /extra certs/i, 'control: a path that cannot be read is warned about');
  assert.equal(run(''), '');
});
