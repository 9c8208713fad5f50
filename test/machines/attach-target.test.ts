// `attach -t SESSION@MACHINE` (and `a -t @MACHINE`): the target's machine part, and hostile targets refused as usage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machineTarget } from '../../src/cli/commands/attach.js';
import { UsageError } from '../../src/cli/define-command.js';
import { makeTempEnv } from '../support/temp-env.js';

test('SESSION@MACHINE, @MACHINE, a plain session, --machine, and local', () => {
  assert.deepEqual(machineTarget('work@build', undefined), { session: 'work', machine: 'build' });
  assert.deepEqual(machineTarget('@build', undefined), { machine: 'build' });
  assert.deepEqual(machineTarget('work', undefined), { session: 'work' });
  assert.deepEqual(machineTarget(undefined, 'build'), { machine: 'build' });
  assert.deepEqual(machineTarget('work', 'build'), { session: 'work', machine: 'build' });
  assert.deepEqual(machineTarget('work@build', 'build'), { session: 'work', machine: 'build' });
  // `local` is this machine: a local session, as without a machine.
  assert.deepEqual(machineTarget('work@local', undefined), { session: 'work' });
  assert.deepEqual(machineTarget(undefined, undefined), {});
});

test('a target naming no machine after @, or another machine than --machine, is a usage error', () => {
  assert.throws(() => machineTarget('work@', undefined), (e) => e instanceof UsageError && /name a machine after '@'/.test(e.message));
  assert.throws(() => machineTarget('work@a', 'b'), (e) => e instanceof UsageError && /give one/.test(e.message));
});

test('hostile targets on the CLI: a bad session part, -d with a machine, an unknown machine; nothing is started', async (t) => {
  const env = makeTempEnv();
  t.after(() => env.cleanup());
  const bad = await env.cli(['attach', '--target=-oProxyCommand=x@box']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /invalid session name/);
  const ctl = await env.cli(['a', '-t', 'a\u001b[2Jb@box']);
  assert.equal(ctl.code, 2, ctl.stderr);
  assert.doesNotMatch(ctl.stderr, /\u001b/, 'the control sequence is not echoed raw');
  const long = await env.cli(['attach', '-t', `${'s'.repeat(5000)}@box`]);
  assert.equal(long.code, 2);
  assert.ok(long.stderr.length < 1000, 'the message is bounded');
  const d = await env.cli(['attach', '-d', '-t', 'work@box']);
  assert.equal(d.code, 2);
  assert.match(d.stderr, /never starts anything on another machine/);
  assert.equal(await env.serverRunning(), false, 'no server started here');
});
