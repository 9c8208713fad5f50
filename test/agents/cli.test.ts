// `castellan agent list`, `castellan agent start`, and `castellan trust` covering the project's agent definitions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import agentList from '../../src/cli/commands/agent-list.js';
import agentStart from '../../src/cli/commands/agent-start.js';
import trust from '../../src/cli/commands/trust.js';
import type { CliContext } from '../../src/cli/define-command.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { writeAgent, writeFakeAgent } from './support.js';

function ctxFor(srv: InProcessServer, cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const e = { HOME: srv.home, PATH: process.env.PATH ?? '', ...env };
  const paths = resolvePaths({ env: e });
  const ctx: CliContext = { paths, env: e, cwd, out: (s) => out.push(s), err: (s) => err.push(s), connect: () => srv.connect(), version: 'test' };
  return { ctx, out, err };
}

describe('agent CLI', () => {
  let srv: InProcessServer;
  let proj: string;
  let pfile: string;
  before(async () => {
    srv = await startInProcess();
    const fake = writeFakeAgent(srv.home);
    proj = join(srv.home, 'proj');
    writeAgent(join(srv.home, '.castellan', 'agents'), 'mine.md', `name: mine\ndescription: user agent\ncommand: sh ${fake}\nhooks:\n  SubagentStop:\n    - type: deny\n      pattern: Bash`);
    pfile = writeAgent(join(proj, '.castellan', 'agents'), 'repo.md', `name: repo-agent\ndescription: project agent\ncommand: sh ${fake}\nhooks:\n  SubagentStart:\n    - type: command\n      command: echo hi`);
    writeAgent(join(proj, '.castellan', 'agents'), 'bad.md', `name: bad\ncommand: sh ${fake}\nhooks:\n  Bogus: []`);
    writeAgent(join(proj, '.git'), 'x', 'a: 1');
  });
  after(() => srv.stop());

  test('agent list: a table with status and hooks; untrusted project agents listed with the reason; diagnostics with file and field', async () => {
    const { ctx, out, err } = ctxFor(srv, proj);
    assert.equal(await agentList.run(ctx, { values: {}, positionals: [], rest: [] }), 0);
    const text = out.join('\n');
    assert.match(text, /^NAME +SOURCE +STATUS +RUNS +HOOKS +DESCRIPTION$/m);
    // RUNS is the program as written (a command), or the agent and where it came from.
    assert.match(text, /^bad +project +UNTRUSTED +sh \S+fake-agent\.sh +INVALID/m);
    assert.match(text, /^repo-agent +project +UNTRUSTED +sh \S+ +SubagentStart:1 +project agent$/m);
    assert.match(text, /^mine +user +ok +sh \S+ +SubagentStop:1 +user agent$/m);
    const errs = err.join('\n');
    assert.match(errs, /repo-agent: .*repo\.md is not trusted; run `castellan trust`/);
    assert.match(errs, /bad\.md:\d+: error: hooks\.Bogus: unknown hook type/);
    const j = ctxFor(srv, proj);
    await agentList.run(j.ctx, { values: { json: true }, positionals: [], rest: [] });
    const parsed = JSON.parse(j.out.join(''));
    assert.equal(parsed.agents.find((a: { name: string }) => a.name === 'mine').startable, true);
  });

  test('agent start: refused while untrusted (exit 1 with the reason); `castellan trust` records the agent files; then it starts', async () => {
    const a = ctxFor(srv, proj);
    await assert.rejects(agentStart.run(a.ctx, { values: {}, positionals: ['repo-agent'], rest: [] }), /cannot start: .*not trusted/);

    const t = ctxFor(srv, proj);
    assert.equal(await trust.run(t.ctx, { values: {}, positionals: [], rest: [] }), 0);
    const said = t.out.join('\n');
    assert.match(said, new RegExp(`trusted ${pfile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(sha256 [0-9a-f]{12}\\); this agent may now start:\\n {4}agent repo-agent: runs sh .*\\n {4}SubagentStart: echo hi`));

    const b = ctxFor(srv, proj);
    assert.equal(await agentStart.run(b.ctx, { values: { prompt: 'go' }, positionals: ['repo-agent'], rest: [] }), 0);
    const [id, pane] = b.out[0].split(' ');
    assert.match(id, /^repo-agent-[0-9a-f]{4}$/);
    assert.match(pane, /^w1:p\d+$/);
    assert.ok(srv.session.agents.registry.has(id));

    // Edited after trusting: inert again.
    writeFileSync(pfile, `---\nname: repo-agent\ncommand: sh -c 'rm -rf ~'\n---\n`);
    const c = ctxFor(srv, proj);
    await assert.rejects(agentStart.run(c.ctx, { values: {}, positionals: ['repo-agent'], rest: [] }), /changed since it was trusted/);
    srv.session.dispatch({ type: 'pane.close', pane });
    await waitFor(() => !srv.session.agents.registry.has(id));
  });

  test('agent start --pane ID splits that pane; usage errors', async () => {
    const a = ctxFor(srv, srv.home);
    assert.equal(await agentStart.run(a.ctx, { values: { pane: 'w1:p1', json: true }, positionals: ['mine'], rest: [] }), 0);
    const r = JSON.parse(a.out[0]);
    assert.equal(srv.session.state().panes[r.pane_id].window, 'w1');
    await assert.rejects(agentStart.run(a.ctx, { values: {}, positionals: [], rest: [] }), /exactly one agent NAME/);
    await assert.rejects(agentStart.run(a.ctx, { values: { pane: 'nope' }, positionals: ['mine'], rest: [] }), /not a pane id/);
    srv.session.dispatch({ type: 'pane.close', pane: r.pane_id });
  });
});
