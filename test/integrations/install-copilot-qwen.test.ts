// `castellan integrations install/uninstall copilot|qwen`: merged into the user's settings (their hooks stay), idempotent, backed up, removed cleanly.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { applyPlan, isNoop, planInstall, planUninstall } from '../../src/integrations/install.js';
import { installedEvents } from '../../src/integrations/tables.js';

const root = mkdtempSync(join(tmpdir(), 'cst-inst-'));
after(() => rmSync(root, { recursive: true, force: true }));
const argv = ['/usr/bin/node', '/opt/castellan/bin/castellan.js'];

const mine = {
  copilot: { banner: 'never', hooks: { preToolUse: [{ type: 'command', bash: 'python3 ~/audit.py', timeoutSec: 5 }], agentStop: [{ type: 'command', bash: 'notify-send done' }] } },
  qwen: { tools: { approvalMode: 'default' }, hooks: { PreToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: '~/check.sh', timeout: 5000 }] }] } },
};
const file = { copilot: '.copilot/settings.json', qwen: '.qwen/settings.json' } as const;

describe('integrations install copilot / qwen', () => {
  for (const agent of ['copilot', 'qwen'] as const)
    test(`${agent}: merges next to the user's hooks, installs twice without a change, backs up, uninstalls to the user's own file`, () => {
      const home = join(root, agent);
      const path = join(home, file[agent]);
      mkdirSync(dirname(path), { recursive: true });
      const original = JSON.stringify(mine[agent], null, 2) + '\n';
      writeFileSync(path, original);
      const ctx = { home, env: {}, dir: home, argv };
      const plan = planInstall(agent, 'user', ctx);
      const backups = applyPlan(plan, '20261205-000000');
      assert.equal(readFileSync(backups[path]!, 'utf8'), original, 'backup first');
      const doc = JSON.parse(readFileSync(path, 'utf8'));
      for (const r of installedEvents(agent)) {
        const list = doc.hooks[r.event] as Array<Record<string, any>>;
        const ours = list.filter((e) => JSON.stringify(e).includes('castellan.js hook ' + agent + ' ' + r.event));
        assert.equal(ours.length, 1, `${agent} ${r.event}: one castellan entry`);
        if (agent === 'copilot') assert.deepEqual(Object.keys(ours[0]!), ['type', 'bash', 'timeoutSec']);
        else assert.deepEqual(Object.keys(ours[0]!.hooks[0]), ['type', 'command', 'timeout']);
      }
      if (agent === 'copilot') {
        assert.equal(doc.hooks.preToolUse[0].bash, 'python3 ~/audit.py', 'the user\'s hook stays first');
        assert.equal(doc.hooks.preToolUse[1].timeoutSec, 120, 'the gate waits for governance');
        assert.match(doc.hooks.preToolUse[1].bash, /door\.sh 10 /);
        assert.equal(doc.banner, 'never');
      } else {
        assert.equal(doc.hooks.PreToolUse[0].hooks[0].command, '~/check.sh');
        assert.equal(doc.hooks.PermissionRequest[0].matcher, '*');
        assert.equal(doc.hooks.PermissionRequest[0].hooks[0].timeout, 120_000);
      }
      assert.ok(planInstall(agent, 'user', ctx).changes.every(isNoop), 'installing twice changes nothing');
      applyPlan(planUninstall(agent, 'user', ctx), '20261205-000001');
      assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), mine[agent]);
      assert.ok(readdirSync(dirname(path)).some((f) => f.includes('castellan-backup')));
    });

  test('copilot --project does nothing, with a note (Copilot reads user hooks from settings.json), so `install all --project` still does the others', () => {
    const plan = planInstall('copilot', 'project', { home: root, env: {}, dir: root, argv });
    assert.deepEqual(plan.changes, []);
    assert.match(plan.notes.join('\n'), /--project does nothing for it/);
  });
});
