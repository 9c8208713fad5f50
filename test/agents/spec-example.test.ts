// The per-agent hooks spec's own example, verbatim: it loads, it starts (program from the default agent), and each hook fires.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstAgentOnPath, loadAgents, parseAgentFile } from '../../src/config/agents.js';
import type { ApiClient } from '../../src/api/client.js';
import { startInProcess, waitFor, type InProcessServer } from '../api/in-process.js';
import { collectEvents, markReady, outOf, writeFakeAgent } from './support.js';

/** Exactly as the spec writes it. */
const SPEC = `---
name: my-agent
description: My custom agent
hooks:
  SubagentStart:
    - command: "echo 'Agent started: {{agentType}}'"
      type: "command"
  UserPromptSubmit:
    - command: "node .pi/hooks/validate-input.js"
      type: "command"
  SubagentStop:
    - pattern: "edit"
      type: "deny"
      reason: "My agent cannot edit files"
---
`;

const NO_TRUST = { version: 1 as const, files: {} };

function tmp(t: { after(fn: () => void): void }): string {
  const d = mkdtempSync(join(tmpdir(), 'cspec-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function fakeBin(dir: string, names: string[]): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const n of names) {
    writeFileSync(join(bin, n), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, n), 0o755);
  }
  return bin;
}

test('the spec example parses with no diagnostics; without `command` it names no program yet', () => {
  const r = parseAgentFile(SPEC, '/h/.castellan/agents/my-agent.md', 'user');
  assert.deepEqual(r.diagnostics, []);
  const a = r.agent!;
  assert.deepEqual([a.name, a.description, a.command, a.commandFrom, a.hooksValid], ['my-agent', 'My custom agent', '', 'none', true]);
  assert.deepEqual(Object.keys(a.hooks), ['SubagentStart', 'UserPromptSubmit', 'SubagentStop']);
  assert.equal(a.hooks.SubagentStop?.[0].reason, 'My agent cannot edit files');
});

test('the program: `agent:` first, else `[agents] default`, else the first of claude/codex/gemini/pi on PATH, else not startable', (t) => {
  const home = tmp(t);
  const dir = join(home, '.castellan', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'my-agent.md'), SPEC);
  writeFileSync(join(dir, 'named.md'), SPEC.replace('name: my-agent', 'name: named\nagent: codex'));
  const load = (o: { defaultAgent?: 'claude' | null; pathEnv?: string }) => {
    const r = loadAgents({ cwd: home, home, trust: NO_TRUST, ...o });
    return Object.fromEntries(r.agents.map((a) => [a.name, [a.command, a.commandFrom, a.kind, a.startable]]));
  };
  const bin = fakeBin(home, ['gemini', 'pi']);
  assert.deepEqual(load({ defaultAgent: 'claude', pathEnv: bin }), { 'my-agent': ['claude', 'default', 'claude', true], named: ['codex', 'agent', 'codex', true] });
  assert.deepEqual(load({ defaultAgent: null, pathEnv: `relative/dir:${bin}` })['my-agent'], ['gemini', 'path', 'gemini', true]);
  const none = loadAgents({ cwd: home, home, trust: NO_TRUST, defaultAgent: null, pathEnv: join(home, 'empty') }).agents.find((a) => a.name === 'my-agent')!;
  assert.deepEqual([none.command, none.commandFrom, none.startable], ['', 'none', false]);
  assert.match(none.reason!, /names no program: give it a `command` or an `agent`, set `\[agents\] default`/);
  assert.equal(firstAgentOnPath(`${bin}:/nonexistent`), 'gemini');
});

test('`[agents] default` comes from the merged config: the user file sets it, an untrusted repository file cannot', (t) => {
  const root = tmp(t);
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  mkdirSync(join(home, '.castellan', 'agents'), { recursive: true });
  mkdirSync(join(proj, '.git'), { recursive: true });
  writeFileSync(join(home, '.castellan', 'agents', 'my-agent.md'), SPEC);
  const load = () => loadAgents({ cwd: proj, home, trust: NO_TRUST, pathEnv: join(root, 'nothing') }).agents[0];
  writeFileSync(join(proj, 'castellan.toml'), '[agents]\ndefault = "codex"\n');
  assert.deepEqual([load().command, load().commandFrom], ['', 'none'], 'an untrusted castellan.toml does not choose the program');
  writeFileSync(join(home, '.castellan', 'config.toml'), '[agents]\ndefault = "claude"\n');
  assert.deepEqual([load().command, load().commandFrom], ['claude', 'default']);
});

test('`Stop` is SubagentStop; a prompt entry may carry its text in `command` (the HookCommand shape)', () => {
  const r = parseAgentFile(
    `---\nname: x\ncommand: sh a.sh\nhooks:\n  SubagentStop:\n    - type: deny\n      pattern: Bash\n  Stop:\n    - type: deny\n      pattern: edit\n  UserPromptSubmit:\n    - type: prompt\n      command: "Answer in French."\n---\n`,
    'x.md',
    'user',
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.agent!.hooks.SubagentStop?.map((e) => e.pattern), ['Bash', 'edit']);
  assert.equal(r.agent!.hooks.UserPromptSubmit?.[0].prompt, 'Answer in French.');
  const only = parseAgentFile('---\nname: y\ncommand: sh a.sh\nhooks:\n  Stop:\n    - type: deny\n      reason: no tools\n---\n', 'y.md', 'user');
  assert.equal(only.agent!.hooks.SubagentStop?.[0].reason, 'no tools');
  const empty = parseAgentFile('---\nname: z\ncommand: sh a.sh\nhooks:\n  UserPromptSubmit:\n    - type: prompt\n---\n', 'z.md', 'user');
  assert.match(empty.diagnostics[0].message, /needs its text in "prompt" \(or "command"\)/);
});

describe('the spec example in a server', () => {
  let srv: InProcessServer;
  let api: ApiClient;
  let work: string;
  before(async () => {
    const base = mkdtempSync(join(tmpdir(), 'cspecsrv-'));
    // The "pi" on PATH is the fake agent (pi's first message is typed, so the test can read it).
    const bin = join(base, 'bin');
    mkdirSync(bin);
    srv = await startInProcess({ cols: 160, rows: 40, env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
    copyFileSync(writeFakeAgent(srv.home), join(bin, 'pi'));
    chmodSync(join(bin, 'pi'), 0o755);
    mkdirSync(join(srv.home, '.castellan', 'agents'), { recursive: true });
    writeFileSync(join(srv.home, '.castellan', 'agents', 'my-agent.md'), SPEC);
    writeFileSync(join(srv.home, '.castellan', 'config.toml'), '[agents]\ndefault = "pi"\n');
    work = join(srv.home, 'work');
    mkdirSync(join(work, '.pi', 'hooks'), { recursive: true });
    // The spec's validator: records what it saw, refuses prompts that mention rm -rf.
    writeFileSync(
      join(work, '.pi', 'hooks', 'validate-input.js'),
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);require('fs').appendFileSync('validated.txt',j.prompt+'\\n');if(/rm -rf/.test(j.prompt)){console.error('no rm -rf here');process.exit(2)}});`,
    );
    writeFileSync(join(work, 'package.json'), '{"type":"commonjs"}');
    api = await srv.connect();
    t_cleanup = () => rmSync(base, { recursive: true, force: true });
  });
  let t_cleanup = () => {};
  after(async () => {
    await srv.stop();
    t_cleanup();
  });

  test('agent list says where the program comes from; start runs it; SubagentStart, UserPromptSubmit and SubagentStop each fire', async () => {
    const list = await api.request<{ agents: Array<{ name: string; command: string; command_from: string; startable: boolean }> }>('agent.list', { cwd: work });
    assert.deepEqual(list.agents.map((a) => [a.name, a.command, a.command_from, a.startable]), [['my-agent', 'pi', 'default', true]]);

    const events = await collectEvents(api, ['agent_hook_run', 'agent_started']);
    const r = await api.request<{ agent_id: string; pane_id: string; kind: string }>('agent.start', { name: 'my-agent', cwd: work });
    assert.equal(r.kind, 'pi');
    await waitFor(() => outOf(srv.home, r.agent_id).includes(`env ${r.agent_id} my-agent`), { message: 'the default agent runs in the pane' });
    await markReady(srv, api, r.pane_id);
    // SubagentStart: its output reaches the agent in the first message, with the placeholder filled.
    await waitFor(() => outOf(srv.home, r.agent_id).includes('Agent started: my-agent'), { message: 'SubagentStart output typed' });

    // UserPromptSubmit: the node validator runs in the agent's directory; a refusal keeps the prompt from the agent.
    const ok = await api.request<{ sent: boolean }>('agent.prompt', { agent_id: r.agent_id, text: 'list the files' });
    assert.equal(ok.sent, true);
    const no = await api.request<{ sent: boolean; reason: string }>('agent.prompt', { agent_id: r.agent_id, text: 'now rm -rf /' });
    assert.deepEqual([no.sent, no.reason], [false, 'no rm -rf here']);
    await waitFor(() => outOf(srv.home, r.agent_id).includes('list the files'), { message: 'allowed prompt typed' });

    // SubagentStop: "edit" is denied with the spec's reason; other tools pass.
    const hook = (tool_name: string) => api.request<{ decision: string; reason?: string }>('agent.hook', { agent_id: r.agent_id, pane_id: r.pane_id, hook_type: 'SubagentStop', payload: { tool_name, tool: tool_name.toLowerCase() } });
    const edit = await hook('Edit');
    assert.deepEqual([edit.decision, edit.reason], ['deny', 'My agent cannot edit files']);
    assert.equal((await hook('Read')).decision, 'allow');
    const runs = events.filter((e) => e.type === 'agent_hook_run').map((e) => [e.hook_type, e.outcome]);
    for (const want of [['SubagentStart', 'ok'], ['UserPromptSubmit', 'ok'], ['UserPromptSubmit', 'deny'], ['SubagentStop', 'deny']]) {
      assert.ok(runs.some((x) => x[0] === want[0] && x[1] === want[1]), `${want} in ${JSON.stringify(runs)}`);
    }
    await api.request('pane.close', { pane_id: r.pane_id });
    await waitFor(() => !srv.session.agents.registry.has(r.agent_id), { message: 'unregistered' });
  });
});
