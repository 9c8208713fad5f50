// Hooks from three layers add up (duplicates once, snake_case events), and repository files run hooks only while trusted.
import { after, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { effectiveGovernance } from '../../src/hooks/governance-config.js';
import { matches } from '../../src/hooks/match.js';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { hooksFor, planHooks } from '../../src/hooks/plan.js';
import { readTrust, revokeTrust, trustFile, trustStatus } from '../../src/config/trust.js';
import { hookToml, makeWorld, type World } from './helpers.js';

let w: World;
beforeEach(() => {
  w?.cleanup();
  w = makeWorld();
});
after(() => w?.cleanup());

const marker = (w: World, name: string) => `echo ${name} >> ${join(w.root, 'ran.txt')}`;
const ran = (w: World) => (existsSync(join(w.root, 'ran.txt')) ? readFileSync(join(w.root, 'ran.txt'), 'utf8').trim().split('\n') : []);

describe('matchers', () => {
  test('exact, |-list, regex, any; an invalid regex matches nothing', () => {
    assert.equal(matches(undefined, 'shell'), true);
    assert.equal(matches('*', 'x'), true);
    assert.equal(matches('shell', 'shell'), true);
    assert.equal(matches('shell', 'shellx'), false);
    assert.equal(matches('shell|exec', 'exec'), true);
    assert.equal(matches('shell|exec', 'ex'), false);
    assert.equal(matches('mcp__.*', 'mcp__git__log'), true);
    assert.equal(matches('mcp__.*', 'xmcp__'), false);
    assert.equal(matches('(', 'x'), false);
  });
});

describe('layers', () => {
  test('hooks from user, project and local add up; duplicates run once; snake_case events', async () => {
    const dup = { event: 'pre_tool_use', command: marker(w, 'dup') };
    w.write('home/.castellan/config.toml', hookToml({ event: 'PreToolUse', command: marker(w, 'user') }) + hookToml(dup));
    w.write('proj/castellan.toml', hookToml({ event: 'pre_tool_use', command: marker(w, 'project') }) + hookToml(dup));
    w.write('proj/.castellan/local.toml', hookToml({ event: 'PreToolUse', command: marker(w, 'local') }) + hookToml({ ...dup, event: 'PreToolUse' }));
    trustFile(w.paths.trustFile, join(w.project, 'castellan.toml'));
    trustFile(w.paths.trustFile, join(w.project, '.castellan/local.toml'));
    const loaded = loadConfig({ cwd: w.project, home: w.home, trust: readTrust(w.paths.trustFile).data });
    assert.deepEqual(loaded.diagnostics, []);
    const planned = planHooks(loaded);
    assert.deepEqual(planned.map((p) => p.layer), ['user', 'user', 'project', 'local']);
    const r = await governPreToolUse({ tool: 'shell', argv: ['true'], cwd: w.project }, w.opts());
    assert.equal(r.decision, 'allow');
    assert.deepEqual(ran(w), ['user', 'dup', 'project', 'local']);
  });

  test('an unknown event is a diagnostic with file and line, not a silent no-op', () => {
    w.write('proj/castellan.toml', '\n' + hookToml({ event: 'PreToolUs', command: 'true' }));
    const loaded = loadConfig({ cwd: w.project, home: w.home });
    const d = loaded.diagnostics.find((x) => /unknown event/.test(x.message));
    assert.ok(d, JSON.stringify(loaded.diagnostics));
    assert.equal(d.file, join(w.project, 'castellan.toml'));
    assert.equal(typeof d.line, 'number');
  });

  test('a duplicate in an untrusted project does not switch off the trusted user copy', () => {
    const h = { event: 'PreToolUse', command: 'true' };
    w.write('home/.castellan/config.toml', hookToml(h));
    w.write('proj/castellan.toml', hookToml(h));
    const planned = planHooks(loadConfig({ cwd: w.project, home: w.home, trust: readTrust(w.paths.trustFile).data }));
    assert.equal(planned.length, 1);
    assert.equal(planned[0].layer, 'user');
    assert.equal(planned[0].inert, undefined);
  });
});

describe('trust', () => {
  test('untrusted project hook is inert with a reason; trusting runs it; a change makes it inert again', async () => {
    const file = w.write('proj/castellan.toml', hookToml({ event: 'PreToolUse', command: marker(w, 'project'), id: 'p' }));
    let o = w.opts();
    let r = await governPreToolUse({ tool: 'shell', argv: ['true'], cwd: w.project }, o);
    assert.equal(r.decision, 'allow');
    assert.deepEqual(ran(w), []);
    const inert = o.events.find((e) => e.type === 'hook_inert');
    assert.equal(inert?.trust, 'untrusted');
    assert.match(String(inert?.reason), /not trusted.*castellan trust/);

    trustFile(w.paths.trustFile, file);
    assert.equal(statSync(w.paths.trustFile).mode & 0o777, 0o600);
    r = await governPreToolUse({ tool: 'shell', argv: ['true'], cwd: w.project }, w.opts());
    assert.deepEqual(ran(w), ['project']);

    writeFileSync(file, readFileSync(file, 'utf8') + '# edited\n');
    o = w.opts();
    r = await governPreToolUse({ tool: 'shell', argv: ['true'], cwd: w.project }, o);
    assert.deepEqual(ran(w), ['project'], 'did not run again');
    const changed = o.events.find((e) => e.type === 'hook_inert');
    assert.equal(changed?.trust, 'changed');
    assert.match(String(changed?.reason), /changed since it was trusted/);
  });

  test('local.toml needs trust too; the user layer does not', async () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'PreToolUse', command: marker(w, 'user') }));
    w.write('proj/.castellan/local.toml', hookToml({ event: 'PreToolUse', command: marker(w, 'local') }));
    await governPreToolUse({ tool: 'shell', argv: ['true'], cwd: w.project }, w.opts());
    assert.deepEqual(ran(w), ['user']);
  });

  test('revoke, and a hash check keyed by real path', () => {
    const file = w.write('proj/castellan.toml', '# empty\n');
    const { sha256 } = trustFile(w.paths.trustFile, file);
    const data = readTrust(w.paths.trustFile).data;
    assert.equal(trustStatus(data, file, sha256, w.project), 'trusted');
    assert.equal(trustStatus(data, file, '0'.repeat(64), w.project), 'changed');
    assert.equal(revokeTrust(w.paths.trustFile, file), true);
    assert.equal(trustStatus(readTrust(w.paths.trustFile).data, file, sha256, w.project), 'untrusted');
    assert.equal(revokeTrust(w.paths.trustFile, file), false);
  });

  test('a corrupt trust store trusts nothing', () => {
    w.write(w.paths.trustFile, '{not json');
    const r = readTrust(w.paths.trustFile);
    assert.deepEqual(r.data.files, {});
    assert.match(r.problem ?? '', /not valid JSON/);
    unlinkSync(w.paths.trustFile);
  });

  test('an untrusted repository file can tighten the policy but never loosen it', () => {
    w.write('home/.castellan/config.toml', '[governance.permissions]\nshell = "prompt"\ngit = "allow"\n');
    w.write('proj/castellan.toml', '[governance.permissions]\nshell = "allow"\ngit = "deny"\n[governance.plan_verify]\nenabled = true\nallowlisted_tools = ["shell"]\n');
    let g = effectiveGovernance(loadConfig({ cwd: w.project, home: w.home, trust: readTrust(w.paths.trustFile).data }));
    assert.equal(g.permissions.shell, 'prompt');
    assert.equal(g.permissions.git, 'deny');
    assert.equal(g.plan_verify.enabled, true);
    assert.deepEqual(g.plan_verify.allowlisted_tools, []);
    trustFile(w.paths.trustFile, join(w.project, 'castellan.toml'));
    g = effectiveGovernance(loadConfig({ cwd: w.project, home: w.home, trust: readTrust(w.paths.trustFile).data }));
    assert.equal(g.permissions.shell, 'allow', 'once trusted, project > user as usual');
    assert.deepEqual(g.plan_verify.allowlisted_tools, ['shell']);
  });

  test('hooksFor splits runnable and inert hooks by event and subject', () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'PreToolUse', command: 'a', matcher: 'shell' }) + hookToml({ event: 'SessionStart', command: 'b', matcher: 'claude' }));
    w.write('proj/castellan.toml', hookToml({ event: 'PreToolUse', command: 'c' }));
    const planned = planHooks(loadConfig({ cwd: w.project, home: w.home, trust: readTrust(w.paths.trustFile).data }));
    const pre = hooksFor(planned, 'PreToolUse', 'shell');
    assert.deepEqual(pre.run.map((p) => p.hook.command), ['a']);
    assert.deepEqual(pre.inert.map((p) => p.hook.command), ['c']);
    assert.deepEqual(hooksFor(planned, 'SessionStart', 'codex').run, []);
    assert.deepEqual(hooksFor(planned, 'SessionStart', 'claude').run.map((p) => p.hook.command), ['b']);
  });
});
