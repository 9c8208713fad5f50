// The delegation flags of the CLI commands, where they refuse before reaching a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import agentStart from '../../src/cli/commands/agent-start.js';
import herdWait from '../../src/cli/commands/herd-wait.js';
import paneSplit from '../../src/cli/commands/pane-split.js';
import run from '../../src/cli/commands/run.js';
import { UsageError } from '../../src/cli/define-command.js';
import { fakeCtx, makeWorld } from '../hooks/helpers.js';

const w = makeWorld();
test.after(() => w.cleanup());

test('run --rlm needs a castellan pane, and runs the agent there (not with --pane new)', async () => {
  const ctx = fakeCtx(w);
  assert.equal(await run.run(ctx, { values: { rlm: true }, positionals: [], rest: ['true'] }), 1);
  assert.match(ctx.stderr.join('\n'), /--rlm needs a castellan pane \(CASTELLAN_PANE_ID is not set\): run it inside castellan/);
  await assert.rejects(run.run(fakeCtx(w), { values: { rlm: true, pane: 'new' }, positionals: [], rest: ['true'] }), (e) => e instanceof UsageError && /drop --pane new/.test(e.message));
});

test('herd wait --children takes one parent; pane split --sub-harness and agent start --parent need a pane', async () => {
  await assert.rejects(herdWait.run(fakeCtx(w), { values: { children: true, pane: ['w1:p1', 'w1:p2'], status: ['idle'] }, positionals: [], rest: [] }), /--children takes one --pane PARENT/);
  await assert.rejects(herdWait.run(fakeCtx(w), { values: { children: true, status: ['idle'] }, positionals: [], rest: [] }), /--children needs --pane PARENT outside a castellan pane/);
  await assert.rejects(paneSplit.run(fakeCtx(w), { values: { 'sub-harness': true }, positionals: [], rest: ['true'] }), /--sub-harness needs --pane PARENT outside a castellan pane/);
  await assert.rejects(agentStart.run(fakeCtx(w), { values: { parent: '.' }, positionals: ['x'], rest: [] }), /--parent needs a pane id/);
  await assert.rejects(agentStart.run(fakeCtx(w), { values: { parent: 'w1:p1', pane: 'w1:p2' }, positionals: ['x'], rest: [] }), /--parent and --pane exclude each other/);
});
