// opencode and Kilo CLI through castellan's plugin (share/integrations/opencode/castellan.js, installed as `integrations install`
// writes it) and the real `castellan hook` bridge: `shell = "deny"` makes tool.execute.before throw castellan's reason (opencode
// stops the call and shows it), an allowed call passes, each is audited once, the bus events move the badge, and a bridge
// that cannot answer or a hostile payload denies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyPlan, planInstall, planUninstall, settingsPath } from '../../src/integrations/install.js';
import { installedEvents } from '../../src/integrations/tables.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { auditRecords, runHook } from '../robustness/bridge-support.js';

type Hooks = Record<string, (...a: unknown[]) => Promise<void>>;
type Plugin = { CastellanPlugin: (ctx: unknown) => Promise<Hooks> };

describe('opencode and Kilo CLI: castellan\'s plugin', { concurrency: false }, () => {
  let env: TempEnv;
  const saved = { ...process.env };
  before(async () => {
    env = makeTempEnv();
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0, env.logTail());
    // The plugin runs inside the agent's process and reads its environment: this process plays the agent in pane w1:p1.
    Object.assign(process.env, env.env, { CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' });
  });
  after(async () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await env.cleanup();
  });

  /** Installs the plugin for `agent` into a config home of its own and loads it as opencode would. */
  async function load(agent: 'opencode' | 'kilo', argv = [process.execPath, BIN], tag: string = agent): Promise<{ hooks: Hooks; path: string; ctx: Parameters<typeof planInstall>[2] }> {
    const ctx = { home: env.home, env: { XDG_CONFIG_HOME: join(env.root, `config-${tag}`) }, dir: env.home, argv };
    applyPlan(planInstall(agent, 'user', ctx), '20261205-000000');
    const path = settingsPath(agent, 'user', ctx);
    const mod = (await import(pathToFileURL(path).href + `?${tag}`)) as Plugin;
    return { hooks: await mod.CastellanPlugin({ directory: env.home }), path, ctx };
  }
  const audited = (marker: string) => auditRecords(env.stateDir).filter((r) => r.type === 'governance_decision' && JSON.stringify(r).includes(marker));
  const state = (want: string, message?: string) =>
    waitFor(async () => {
      const a = (await env.call<{ agent?: { state: string; message?: string; agent?: string } }>('pane.get', { pane_id: 'w1:p1' })).agent;
      return a?.state === want && (message === undefined || a.message === message) ? a : undefined;
    }, { timeoutMs: 10_000, message: `badge ${want}` });

  test('installed: the agent, this checkout\'s command and the installed events filled in; twice changes nothing; uninstall removes it', async () => {
    const { path, ctx } = await load('opencode');
    const text = readFileSync(path, 'utf8');
    assert.match(text, /^const AGENT = "opencode"; \/\/ @castellan-agent$/m);
    assert.ok(text.includes(`const INSTALLED_COMMAND = ${JSON.stringify([process.execPath, BIN])}; // @castellan-command`));
    assert.ok(text.includes(`const EVENTS = ${JSON.stringify(installedEvents('opencode').map((r) => r.event))}; // @castellan-events`));
    assert.ok(planInstall('opencode', 'user', ctx).changes.every((c) => c.before === c.after));
    assert.match(path, /config-opencode\/opencode\/plugins\/castellan\.js$/);
    const kilo = settingsPath('kilo', 'user', ctx);
    assert.match(kilo, /kilo\/plugins\/castellan\.js$/);
    // Another plugin of the user's with that name is never overwritten.
    mkdirSync(join(kilo, '..'), { recursive: true });
    writeFileSync(kilo, 'export const Mine = async () => ({});\n');
    assert.throws(() => planInstall('kilo', 'user', ctx), /not castellan's/);
    applyPlan(planUninstall('opencode', 'user', ctx), 'x');
    assert.throws(() => readFileSync(path));
  });

  for (const agent of ['opencode', 'kilo'] as const)
    test(`${agent}: tool.execute.before throws castellan's reason for a denied bash call; an allowed read passes; each audited once`, async () => {
      const { hooks } = await load(agent, undefined, `${agent}-gate`);
      const marker = `touch ${agent}-denied`;
      await assert.rejects(hooks['tool.execute.before']!({ tool: 'bash', sessionID: 'ses_1', callID: 'call_1' }, { args: { command: marker, description: 'x' } }), /^Error: castellan: .*shell/);
      assert.equal(audited(marker).length, 1);
      assert.equal(audited(marker)[0]!.agent_id, `${agent}:ses_1`);
      const file = join(env.home, `${agent}-read.txt`);
      await hooks['tool.execute.before']!({ tool: 'read', sessionID: 'ses_1', callID: 'call_2' }, { args: { filePath: file } });
      assert.equal(audited('"read"').filter((r) => r.agent_id === `${agent}:ses_1`).length, 1);
    });

  test('opencode bus events (recorded shapes) move the badge: busy → working, permission.asked → blocked, replied once → working, session.idle → done', async () => {
    const { hooks } = await load('opencode', undefined, 'events');
    const bus = (type: string, properties: Record<string, unknown>) => hooks.event!({ event: { type, properties } });
    await bus('session.status', { sessionID: 'ses_1', status: { type: 'busy' } });
    await state('working');
    await bus('permission.asked', { id: 'per_1', sessionID: 'ses_1', permission: 'bash', patterns: ['touch x'], metadata: { command: 'touch x' }, always: ['touch *'], tool: { messageID: 'm', callID: 'c' } });
    await state('blocked', 'bash: touch x');
    await bus('permission.replied', { sessionID: 'ses_1', requestID: 'per_1', reply: 'once' });
    await state('working');
    await bus('session.idle', { sessionID: 'ses_1' });
    await state('done');
    await bus('message.part.delta', { sessionID: 'ses_1', delta: 'x' }); // not installed: nothing
    await hooks['chat.message']!({ sessionID: 'ses_1', agent: 'build', model: {}, messageID: 'm2' });
    await state('working');
  });

  test('a bridge that cannot run denies the call (fails closed); outside castellan the plugin registers nothing', async () => {
    const { hooks } = await load('opencode', ['/nonexistent/node', BIN], 'broken');
    await assert.rejects(hooks['tool.execute.before']!({ tool: 'read', sessionID: 's', callID: 'c' }, { args: { filePath: '/x' } }), /could not judge this read call/);
    const was = process.env.CASTELLAN_ENV;
    delete process.env.CASTELLAN_ENV;
    try {
      const { hooks: none } = await load('opencode', undefined, 'outside');
      assert.deepEqual(Object.keys(none), []);
    } finally {
      process.env.CASTELLAN_ENV = was;
    }
  });

  test('hostile payloads to tool.execute.before are denied in the plugin\'s protocol and never crash the bridge', async () => {
    const hookEnv = { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: 'w1:p1' };
    const cases: Array<[string, Buffer | string]> = [
      ['malformed', '{"tool": "bash", "args": {"command": "ls"'],
      ['binary', Buffer.from([0xff, 0x00, 0x7b])],
      ['no tool', JSON.stringify({ hook_event_name: 'tool.execute.before', args: { command: 'ls' } })],
      ['forged tool name', JSON.stringify({ tool: 'read\u0007', args: { filePath: '/x' } })],
      ['args not an object', JSON.stringify({ tool: 'bash', args: 'rm -rf /' })],
    ];
    for (const agent of ['opencode', 'kilo'])
      for (const [what, data] of cases) {
        const r = await runHook({ agent, event: 'tool.execute.before', feed: { kind: 'whole', data }, env: hookEnv, cwd: env.home });
        assert.ok(!r.hung, `${agent} ${what}`);
        assert.equal(r.code, 0, `${agent} ${what}`);
        assert.equal(JSON.parse(r.stdout).decision, 'deny', `${agent} ${what}`);
      }
  });
});
