// The harness parity matrix: derived from the bridges' tables, true to what the bridge does, current in the README,
// printed by `castellan integrations matrix`; and where a harness lacks a stage, config check and the server say so.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import configCheck from '../../src/cli/commands/config-check.js';
import installSkill from '../../src/cli/commands/integrations-install-skill.js';
import matrixCmd from '../../src/cli/commands/integrations-matrix.js';
import { agentEventAnswer } from '../../src/integrations/agent-bridge.js';
import { agentRow, harnessMatrix, matrixJson, MATRIX_STAGES, unsupportedStages } from '../../src/integrations/matrix.js';
import { withMatrix } from '../../src/integrations/matrix-readme.js';
import { skillDir } from '../../src/integrations/skill.js';
import { installedEvents } from '../../src/integrations/tables.js';
import { AGENTS } from '../../src/integrations/types.js';
import { REPO } from '../support/temp-env.js';
import { fakeCtx, hookToml, makeWorld } from '../hooks/helpers.js';

const w = makeWorld();
after(() => w.cleanup());

describe('harness parity matrix', () => {
  test('one row per harness castellan integrates, every stage in every row', () => {
    const m = harnessMatrix();
    assert.deepEqual(m.map((r) => r.harness), ['claude', 'codex', 'gemini', 'pi', 'copilot', 'qwen', 'opencode', 'kilo', 'shell', 'mcp']);
    for (const r of m) assert.deepEqual(Object.keys(r.stages), [...MATRIX_STAGES], r.harness);
  });

  test('derived from the tables: installed events only, tool events as the governance pipeline takes them', () => {
    const claude = agentRow('claude');
    assert.deepEqual(claude.stages.PreToolUse.via, ['PreToolUse']);
    assert.deepEqual(claude.stages.PostToolUse.via, ['PostToolUse'], 'PostToolUseFailure is mapped for the badge but not governed');
    assert.deepEqual(claude.stages.PostSampling.via, ['Stop'], 'MessageDisplay (stage PostSampling) is not installed; Stop carries the response');
    assert.deepEqual(agentRow('gemini').stages.PreToolUse.via, ['BeforeTool']);
    assert.deepEqual(agentRow('gemini').stages.PostSampling.via, ['AfterAgent']);
    assert.deepEqual(agentRow('pi').stages.state.via, ['idle', 'working', 'done', 'unknown'], 'pi has no permission prompt: never blocked');
    assert.deepEqual(agentRow('pi').stages.UserPromptSubmit.via, ['agent.prompt']);
    assert.match(agentRow('pi').stages.UserPromptSubmit.note ?? '', /agent_start event cannot be answered/);
    assert.deepEqual(agentRow('codex').stages.PostSampling.via, ['Stop'], 'notify repeats Stop and carries no hook answer');
    for (const a of AGENTS) {
      const installed = new Set(installedEvents(a).map((r) => r.event));
      for (const s of ['PreToolUse', 'PostToolUse', 'SubagentStop', 'PostSampling'] as const) for (const e of agentRow(a).stages[s].via) assert.ok(installed.has(e), `${a} ${s} via ${e} is installed`);
    }
    const mcp = harnessMatrix().find((r) => r.harness === 'mcp')!;
    assert.deepEqual(mcp.stages.SessionStart.via, []);
    assert.deepEqual(mcp.stages.PreToolUse.via, ['tool shell', 'tool exec']);
    const shell = harnessMatrix().find((r) => r.harness === 'shell')!;
    assert.deepEqual(shell.stages.SessionStart.via, ['castellan run', 'sub-harness pane']);
    assert.deepEqual(shell.stages.PostSampling.via, []);
  });

  test('true to the bridge: the events it answers per-agent hooks for are exactly the matrix\'s', async () => {
    // A fake server recording which agent.hook the bridge asks for each installed event.
    const sock = join(w.root, 'fake.sock');
    const asked: string[] = [];
    const server = net.createServer((c) => {
      let buf = '';
      c.on('data', (d) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n')) !== -1) {
          const m = JSON.parse(buf.slice(0, i)) as { id: string; params: { hook_type: string } };
          buf = buf.slice(i + 1);
          asked.push(m.params.hook_type);
          c.write(JSON.stringify({ id: m.id, result: { registered: true, decision: 'allow', contexts: ['<ambient>x</ambient>'] } }) + '\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      for (const a of AGENTS) {
        const got: Record<string, string[]> = { SessionStart: [], UserPromptSubmit: [], PostSampling: [] };
        for (const row of installedEvents(a)) {
          asked.length = 0;
          const payload = { prompt: 'p', last_assistant_message: 'm', source: 'startup', type: 'agent-turn-complete' };
          await agentEventAnswer({ agent: a, event: row.event, payload, env: { CASTELLAN_AGENT_ID: 'x-0001', CASTELLAN_PANE_ID: 'w1:p1' }, socket: sock, log: () => {} });
          for (const h of asked) got[h]?.push(row.event);
        }
        const row = agentRow(a);
        assert.deepEqual(got.UserPromptSubmit, row.stages.UserPromptSubmit.via.filter((x) => x !== 'agent.prompt'), `${a} UserPromptSubmit`);
        assert.deepEqual(got.PostSampling, row.stages.PostSampling.via, `${a} PostSampling`);
        assert.equal(got.SessionStart.length > 0, /through its SessionStart hook/.test(row.stages.SubagentStart.note ?? ''), `${a} first message through SessionStart`);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('unsupported stages: what a harness (or an agent castellan has no bridge for) never fires', () => {
    assert.deepEqual(unsupportedStages('claude', ['PreToolUse', 'PostSampling', 'SessionStart']), []);
    assert.deepEqual(unsupportedStages('mcp', ['PreToolUse', 'SessionStart']).map((u) => u.stage), ['SessionStart']);
    const other = unsupportedStages('cursor', ['PreToolUse', 'PostToolUse', 'PostSampling', 'SubagentStart', 'UserPromptSubmit']);
    assert.deepEqual(other.map((u) => u.stage), ['PreToolUse', 'PostToolUse', 'PostSampling']);
    assert.match(other[0].note ?? '', /cursor has no castellan hook bridge/);
  });

  test('the README block is current (npm run docs writes it)', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    assert.equal(withMatrix(readme), readme, 'README.md harness matrix is stale: run `npm run docs`');
    assert.match(readme, /\| \*\*PostSampling\*\* \(per-agent hook\) \| `Stop` \| `Stop` \| `AfterAgent` \| `agent_end` \| `agentStop` \| `Stop` \| `session.idle` \| `session.idle` \| — \| — \|/);
  });

  test('`castellan integrations matrix` prints the grid and the details; --json the data', async () => {
    const ctx = fakeCtx(w);
    assert.equal(await matrixCmd.run(ctx, { values: {}, positionals: [], rest: [] }), 0);
    const text = ctx.stdout.join('\n');
    assert.match(text, /^ +claude +codex +gemini +pi +copilot +qwen +opencode +kilo +shell +mcp$/m);
    assert.match(text, /^SessionStart +✓ +✓ +✓ +✓ +✓ +✓ +✓ +✓ +✓ +—$/m);
    assert.match(text, /^PostSampling +✓ +✓ +✓ +✓ +✓ +✓ +✓ +✓ +— +—$/m);
    assert.match(text, /^ {2}PreToolUse +BeforeTool {2}\(then the permission policy and plan verify\)$/m);
    const j = fakeCtx(w);
    assert.equal(await matrixCmd.run(j, { values: { json: true }, positionals: [], rest: [] }), 0);
    const data = JSON.parse(j.stdout.join('\n')) as ReturnType<typeof matrixJson>;
    assert.deepEqual(data.stages, [...MATRIX_STAGES]);
    assert.equal(data.kinds.PostSampling, 'agent');
    const mcp = data.harnesses.find((h) => h.harness === 'mcp')!;
    assert.deepEqual(mcp.fires, ['PreToolUse', 'PostToolUse']);
    assert.deepEqual(data.harnesses.find((h) => h.harness === 'pi')!.stages.PreToolUse.via, ['tool_call']);
    // what was verified on this machine, per integrated agent, and the agents that cannot run here, marked so (issue 29)
    assert.deepEqual(data.verified_here.map((a) => a.agent), ['claude', 'codex', 'gemini', 'pi', 'copilot', 'qwen', 'opencode', 'kilo']);
    assert.deepEqual(data.not_verified_here.map((a) => a.agent), ['amp', 'cursor', 'aider', 'crush', 'others']);
    assert.ok(data.not_verified_here.every((a) => /not verified here/.test(a.note)));
    assert.match(text, /^ {2}qwen +Qwen Code 0\.24\.4: .*ACP/m);
    assert.match(text, /^Not verified here \(/m);
  });
});

describe('where a harness lacks a stage, castellan says so', () => {
  test('config check: which harnesses never fire a configured hook; an agent definition with hooks its agent never fires', async () => {
    w.write('home/.castellan/config.toml', hookToml({ event: 'SessionStart', command: 'true' }) + hookToml({ event: 'PreToolUse', command: 'true' }));
    w.write('home/.castellan/agents/aider.md', ['---', 'name: aider', 'command: aider', 'agent: other', 'hooks:', '  PostSampling:', '    - type: command', '      command: ./log.sh', '  SubagentStart:', '    - type: command', '      command: echo hi', '---', ''].join('\n'));
    w.write('home/.castellan/agents/gem.md', ['---', 'name: gem', 'command: gemini', 'hooks:', '  PostSampling:', '    - type: command', '      command: ./log.sh', '---', ''].join('\n'));
    const ctx = fakeCtx(w);
    assert.equal(await configCheck.run(ctx, { values: {}, positionals: [], rest: [] }), 0, 'warnings, not errors');
    const out = ctx.stdout.join('\n');
    assert.match(out, /hook {4}active SessionStart: true {2}\(user\)\n {10}never fired by: mcp \(castellan integrations matrix\)/);
    assert.doesNotMatch(out, /active PreToolUse: true {2}\(user\)\n {10}never fired by/, 'every harness fires PreToolUse');
    assert.match(out, /aider\.md: warning: hooks\.PostSampling: other agents never fire PostSampling, so these hooks will not run \(other has no castellan hook bridge: castellan never sees its responses\)/);
    assert.doesNotMatch(out, /gem\.md: warning/, 'Gemini fires PostSampling (AfterAgent)');
    assert.doesNotMatch(out, /SubagentStart, so these/);
    const j = fakeCtx(w);
    await configCheck.run(j, { values: { json: true }, positionals: [], rest: [] });
    const data = JSON.parse(j.stdout.join('\n')) as { hooks: Array<{ event: string; not_fired_by: string[] }> };
    assert.deepEqual(data.hooks.map((h) => [h.event, h.not_fired_by]), [['SessionStart', ['mcp']], ['PreToolUse', []]]);
  });
});

describe('castellan integrations install-skill', () => {
  test('installs docs/agent-skill/SKILL.md where each agent reads skills; idempotent; backs up a different copy', async () => {
    const env = { CODEX_HOME: join(w.root, 'codex-home') };
    const ctx = fakeCtx(w, { env });
    assert.equal(await installSkill.run(ctx, { values: {}, positionals: ['all'], rest: [] }), 0);
    const want = {
      claude: join(w.home, '.claude', 'skills', 'castellan'),
      codex: join(w.root, 'codex-home', 'skills', 'castellan'),
      gemini: join(w.home, '.gemini', 'skills', 'castellan'),
      pi: join(w.home, '.pi', 'agent', 'skills', 'castellan'),
      copilot: join(w.home, '.copilot', 'skills', 'castellan'),
      qwen: join(w.home, '.qwen', 'skills', 'castellan'),
      opencode: join(w.home, '.config', 'opencode', 'skills', 'castellan'),
      kilo: join(w.home, '.config', 'kilo', 'skills', 'castellan'),
    };
    for (const [a, dir] of Object.entries(want)) {
      assert.equal(skillDir(a as never, 'user', { home: w.home, env, dir: w.project }), dir);
      const text = readFileSync(join(dir, 'SKILL.md'), 'utf8');
      assert.match(text, /^---\nname: castellan\ndescription: Delegate work to helper agents in castellan panes\./);
      assert.match(text, /castellan herd wait --children --status idle,blocked,done/);
      assert.match(text, /wherever this skill says `castellan`, run `\S+ \S+castellan\.js`/, 'this checkout\'s CLI by absolute path');
    }
    assert.deepEqual(ctx.stdout.map((l) => l.split(' ').slice(0, 2).join(' ')), ['claude: created', 'codex: created', 'gemini: created', 'pi: created', 'copilot: created', 'qwen: created', 'opencode: created', 'kilo: created']);
    const again = fakeCtx(w, { env });
    await installSkill.run(again, { values: {}, positionals: ['claude'], rest: [] });
    assert.match(again.stdout[0], /^claude: unchanged /);
    w.write(join(want.claude, 'SKILL.md'), 'mine\n');
    const upd = fakeCtx(w, { env });
    await installSkill.run(upd, { values: {}, positionals: ['claude'], rest: [] });
    assert.match(upd.stdout[0], /^claude: updated .* \(backup: .*SKILL\.md\.castellan-backup-\d{8}-\d{6}\)$/);
    const proj = fakeCtx(w);
    await installSkill.run(proj, { values: { project: true }, positionals: ['claude', 'codex', 'gemini', 'pi'], rest: [] });
    for (const rel of ['.claude/skills', '.agents/skills', '.gemini/skills', '.pi/skills']) assert.ok(existsSync(join(w.project, rel, 'castellan', 'SKILL.md')), rel);
  });
});
