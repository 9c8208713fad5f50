// `castellan integrations install/uninstall`: merging into realistic settings files, idempotency, leaving others' entries, backups.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTomlRecovering } from '../../src/config/toml.js';
import { codexNotifyArgv, hookCommand, installedHookCommand, isCastellanCommand, shellQuote } from '../../src/integrations/command-line.js';
import { planNotify, removeNotify } from '../../src/integrations/codex-toml.js';
import { applyPlan, installedHooks, isNoop, planInstall, planUninstall, type InstallContext } from '../../src/integrations/install.js';
import { installedEvents } from '../../src/integrations/tables.js';
import { BIN } from '../support/temp-env.js';

const ARGV = ['/usr/local/bin/node', '/opt/castellan/bin/castellan.js'];

const CLAUDE_SETTINGS = `{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
        "deny": ["Read(./.env)"]
    },
    "env": { "DISABLE_TELEMETRY": "1" },
    "statusLine": { "type": "command", "command": "~/.claude/statusline.sh" },
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.py", "timeout": 30 } ] }
        ],
        "Stop": [
            { "hooks": [ { "type": "command", "command": "notify-send 'Claude' 'done'" } ] },
            { "hooks": [ { "type": "command", "command": "/old/checkout/bin/castellan.js hook claude Stop" } ] }
        ],
        "SubagentStop": [
            { "hooks": [ { "type": "command", "command": "castellan hook claude SubagentStop" }, { "type": "command", "command": "say subagent" } ] }
        ],
        "Notification": [
            { "matcher": "", "hooks": [ { "type": "command", "command": "terminal-notifier -message \\"$(jq -r .message)\\"" } ] }
        ]
    }
}
`;

const CODEX_HOOKS = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "python3 ~/.codex/policy.py", "timeout": 5 } ] }
    ]
  }
}
`;

const CODEX_CONFIG = `# ~/.codex/config.toml
model = "gpt-5-codex"
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[projects."/home/me/src/app"]
trust_level = "trusted"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp", "--port", "[8080]"]

[tui]
notifications = true
`;

const GEMINI_SETTINGS = `{
  "general": { "vimMode": true, "preferredEditor": "code" },
  "ui": { "theme": "GitHub" },
  "hooksConfig": { "enabled": true, "notifications": false },
  "hooks": {
    "BeforeTool": [
      { "matcher": "run_shell_command", "hooks": [ { "type": "command", "name": "secret-scan", "command": "~/.gemini/hooks/secret-scan.sh", "timeout": 3000 } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "type": "command", "name": "motd", "command": "cat ~/.motd" } ] }
    ]
  }
}
`;

function ctx(root: string): InstallContext {
  return { home: join(root, 'home'), env: {}, dir: join(root, 'proj'), argv: ARGV };
}

function put(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

/** Everything in a settings object except castellan's hooks (what must survive install + uninstall unchanged). */
function withoutOurs(v: Record<string, unknown>): unknown {
  const c = JSON.parse(JSON.stringify(v));
  for (const [event, list] of Object.entries((c.hooks ?? {}) as Record<string, Array<{ hooks: Array<{ command: string }> }>>)) {
    c.hooks[event] = list.map((e) => ({ ...e, hooks: e.hooks.filter((h) => !isCastellanCommand(h.command)) })).filter((e) => e.hooks.length);
    if (!c.hooks[event].length) delete c.hooks[event];
  }
  return c;
}

describe('integrations install/uninstall (planning and applying)', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'cst-int-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('claude: merges beside the user\'s hooks, replaces stale castellan entries, idempotent, backup, clean uninstall', () => {
    const c = ctx(join(root, 'claude'));
    const file = join(c.home, '.claude', 'settings.json');
    put(file, CLAUDE_SETTINGS);
    const plan = planInstall('claude', 'user', c);
    const backups = applyPlan(plan, '20260101-000000');
    assert.equal(readFileSync(backups[file], 'utf8'), CLAUDE_SETTINGS);
    const text = readFileSync(file, 'utf8');
    const v = JSON.parse(text);
    assert.match(text, /^\{\n {4}"\$schema"/, 'the file\'s 4-space indent is kept');
    // One castellan hook per installed event, with the new command; none left for events no longer installed.
    const ours = installedHooks(text);
    assert.deepEqual(Object.keys(ours).sort(), installedEvents('claude').map((r) => r.event).sort());
    for (const [event, cmds] of Object.entries(ours)) assert.deepEqual(cmds, [installedHookCommand(ARGV, 'claude', event)]);
    // The user's own entries are all still there, in order.
    assert.equal(v.hooks.PreToolUse[0].hooks[0].command, '$CLAUDE_PROJECT_DIR/.claude/hooks/guard.py');
    assert.equal(v.hooks.PreToolUse[1].matcher, '*');
    assert.equal(v.hooks.Stop[0].hooks[0].command, "notify-send 'Claude' 'done'");
    assert.deepEqual(v.hooks.SubagentStop, [{ hooks: [{ type: 'command', command: 'say subagent' }] }]);
    assert.deepEqual(v.permissions, JSON.parse(CLAUDE_SETTINGS).permissions);
    assert.deepEqual(withoutOurs(v), withoutOurs(JSON.parse(CLAUDE_SETTINGS)));

    // Twice: nothing to do, the file is not rewritten.
    const again = planInstall('claude', 'user', c);
    assert.ok(again.changes.every(isNoop));
    assert.match(again.changes[0].summary, /already installed/);

    const un = planUninstall('claude', 'user', c);
    applyPlan(un, '20260101-000001');
    const left = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(installedHooks(readFileSync(file, 'utf8')), {});
    assert.deepEqual(left, withoutOurs(JSON.parse(CLAUDE_SETTINGS)));
    assert.ok(planUninstall('claude', 'user', c).changes.every(isNoop), 'uninstalling twice does nothing');
  });

  test('claude --project and CLAUDE_CONFIG_DIR choose the file; a missing file is created', () => {
    const c = ctx(join(root, 'claude2'));
    applyPlan(planInstall('claude', 'project', c), 's');
    assert.ok(existsSync(join(c.dir, '.claude', 'settings.json')));
    const cfg = { ...c, env: { CLAUDE_CONFIG_DIR: join(root, 'claude2', 'cfg') } };
    assert.equal(planInstall('claude', 'user', cfg).changes[0].path, join(root, 'claude2', 'cfg', 'settings.json'));
  });

  test('codex: hooks.json merged, notify added as a top-level key before the tables, uninstall restores config.toml byte for byte', () => {
    const c = ctx(join(root, 'codex'));
    const codexHome = join(c.home, '.codex');
    put(join(codexHome, 'hooks.json'), CODEX_HOOKS);
    put(join(codexHome, 'config.toml'), CODEX_CONFIG);
    const plan = planInstall('codex', 'user', c);
    assert.deepEqual(plan.changes.map((ch) => ch.path), [join(codexHome, 'hooks.json'), join(codexHome, 'config.toml')]);
    applyPlan(plan, 's1');
    const hooks = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'));
    assert.equal(hooks.hooks.PreToolUse[0].hooks[0].command, 'python3 ~/.codex/policy.py');
    assert.equal(hooks.hooks.Interrupt[0].hooks[0].timeout, 3);
    assert.equal(hooks.hooks.PreToolUse[1].matcher, '*');
    const toml = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    const parsed = parseTomlRecovering(toml);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.value.notify, codexNotifyArgv(ARGV));
    assert.equal((parsed.value.tui as Record<string, unknown>).notifications, true);
    assert.ok(toml.indexOf('notify = ') < toml.indexOf('[projects.'));
    assert.ok(planInstall('codex', 'user', c).changes.every(isNoop), 'idempotent');
    applyPlan(planUninstall('codex', 'user', c), 's2');
    assert.equal(readFileSync(join(codexHome, 'config.toml'), 'utf8'), CODEX_CONFIG);
    assert.deepEqual(JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')), JSON.parse(CODEX_HOOKS));
  });

  test('codex: someone else\'s notify is left alone (and said so); CODEX_HOME is honoured; --project writes only hooks.json', () => {
    const c = { ...ctx(join(root, 'codex2')), env: { CODEX_HOME: join(root, 'codex2', 'ch') } };
    const foreign = 'notify = ["notify-send", "Codex"]\nmodel = "o3"\n';
    put(join(root, 'codex2', 'ch', 'config.toml'), foreign);
    const plan = planInstall('codex', 'user', c);
    assert.equal(plan.changes[1].after, foreign);
    assert.match(plan.notes.join('\n'), /already sets notify/);
    const proj = planInstall('codex', 'project', c);
    assert.deepEqual(proj.changes.map((ch) => ch.path), [join(c.dir, '.codex', 'hooks.json')]);
  });

  test('codex notify editing: empty file, no tables, comments, a broken file', () => {
    const argv = codexNotifyArgv(ARGV);
    for (const src of [undefined, '', 'model = "o3"\n', 'model = "o3"', '[tui]\nx = 1\n', '# only a comment\n\n[a]\nb = "[c]"\n']) {
      const p = planNotify(src, argv);
      assert.equal(p.status, 'added', JSON.stringify(src));
      const t = parseTomlRecovering(p.text);
      assert.deepEqual(t.errors, [], p.text);
      assert.deepEqual(t.value.notify, argv, p.text);
      // Byte for byte, except that a file without a final newline gets one.
      assert.equal(removeNotify(p.text).text, src && !src.endsWith('\n') ? src + '\n' : src ?? '', `round trip of ${JSON.stringify(src)}`);
    }
    assert.equal(planNotify('model = = broken', argv).status, 'unparsable');
  });

  test('gemini: entries named castellan-<Event>, the user\'s hooks and settings stay; hooks switched off → a note', () => {
    const c = ctx(join(root, 'gemini'));
    const file = join(c.home, '.gemini', 'settings.json');
    put(file, GEMINI_SETTINGS);
    applyPlan(planInstall('gemini', 'user', c), 's');
    const v = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(v.hooks.BeforeTool[0].hooks[0].name, 'secret-scan');
    assert.deepEqual(v.hooks.BeforeTool[1], { matcher: '.*', hooks: [{ type: 'command', name: 'castellan-BeforeTool', command: installedHookCommand(ARGV, 'gemini', 'BeforeTool'), timeout: 120_000 }] });
    assert.equal(v.hooks.SessionStart[0].hooks[0].name, 'motd');
    assert.deepEqual(v.hooksConfig, { enabled: true, notifications: false });
    applyPlan(planUninstall('gemini', 'user', c), 's2');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), JSON.parse(GEMINI_SETTINGS));
    put(file, '{ "hooksConfig": { "enabled": false } }');
    assert.match(planInstall('gemini', 'user', c).notes.join('\n'), /switched off/);
  });

  test('pi: the extension is generated with the command and event list, refuses to overwrite a foreign file, uninstall removes only ours', () => {
    const c = { ...ctx(join(root, 'pi')), env: { PI_CODING_AGENT_DIR: join(root, 'pi', 'agentdir') } };
    const file = join(root, 'pi', 'agentdir', 'extensions', 'castellan.ts');
    applyPlan(planInstall('pi', 'user', c), 's');
    const src = readFileSync(file, 'utf8');
    assert.ok(src.includes(`const INSTALLED_COMMAND: string[] | null = ${JSON.stringify(ARGV)}; // @castellan-command`));
    assert.ok(src.includes(JSON.stringify(installedEvents('pi').map((r) => r.event))));
    assert.ok(planInstall('pi', 'user', c).changes.every(isNoop));
    applyPlan(planUninstall('pi', 'user', c), 's');
    assert.ok(!existsSync(file));
    put(file, 'export default function mine() {}\n');
    assert.throws(() => planInstall('pi', 'user', c), /not castellan's/);
    assert.match(planUninstall('pi', 'user', c).changes[0].summary, /not castellan's/);
    assert.equal(planInstall('pi', 'project', c).changes[0].path, join(c.dir, '.pi', 'extensions', 'castellan.ts'));
  });

  test('a settings file that is not plain JSON is refused, untouched', () => {
    const c = ctx(join(root, 'bad'));
    const file = join(c.home, '.gemini', 'settings.json');
    put(file, '{ // comments\n "ui": {} }');
    assert.throws(() => planInstall('gemini', 'user', c), /not plain JSON/);
    put(file, '{ "hooks": [] }');
    assert.throws(() => planInstall('gemini', 'user', c), /"hooks" is not an object/);
  });
});

describe('the installed command line', () => {
  test('quotes awkward paths for sh, passes the event through, and is recognised as castellan\'s', () => {
    const dir = mkdtempSync(join(tmpdir(), "cst q'x "));
    try {
      const fake = join(dir, "no'de");
      writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do printf "<%s>" "$a"; done\n');
      chmodSync(fake, 0o755);
      const cmd = hookCommand([fake, join(dir, 'bin dir', 'castellan.js')], 'claude', 'PreToolUse');
      assert.ok(isCastellanCommand(cmd));
      const r = spawnSync('/bin/sh', ['-c', cmd], { env: { PATH: '/usr/bin:/bin', CASTELLAN_ENV: '1' }, encoding: 'utf8' });
      assert.equal(r.stdout, `<${join(dir, 'bin dir', 'castellan.js')}><hook><claude><PreToolUse>`);
      assert.equal(shellQuote('/usr/bin/node'), '/usr/bin/node');
      // Codex notify: the JSON Codex appends arrives as the payload argument.
      const n = codexNotifyArgv([fake, '/x/castellan.js']);
      const r2 = spawnSync(n[0], [...n.slice(1), '{"type":"agent-turn-complete"}'], { env: { PATH: '/usr/bin:/bin', CASTELLAN_ENV: '1' }, encoding: 'utf8' });
      assert.equal(r2.stdout, '</x/castellan.js><hook><codex><notify><{"type":"agent-turn-complete"}>');
      const r3 = spawnSync(n[0], [...n.slice(1), '{}'], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
      assert.deepEqual([r3.status, r3.stdout], [0, '']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('user commands that merely mention castellan are not ours', () => {
    assert.ok(!isCastellanCommand('~/bin/castellan-hook.sh Stop'));
    assert.ok(!isCastellanCommand('echo castellan'));
    assert.ok(isCastellanCommand('castellan hook claude Stop'));
    assert.ok(isCastellanCommand("'/a b/castellan.js' hook pi agent_end"));
  });
});

describe('castellan integrations (CLI)', () => {
  let home: string;
  const run = (args: string[], cwd?: string) =>
    spawnSync(process.execPath, [BIN, 'integrations', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, cwd: cwd ?? home, encoding: 'utf8' });
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'cst-intcli-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  test('--dry-run writes nothing; install, install again, uninstall', () => {
    put(join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    const dry = run(['install', 'claude', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /would change/);
    assert.match(dry.stdout, /Stop: \[ -z "\$CASTELLAN_ENV" \] \|\| .*castellan\.js hook claude Stop/);
    assert.equal(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'), CLAUDE_SETTINGS);
    const inst = run(['install', 'claude', 'gemini']);
    assert.equal(inst.status, 0, inst.stderr);
    assert.match(inst.stdout, /backup: .*settings\.json\.castellan-backup-/);
    const twice = run(['install', 'claude', 'gemini']);
    assert.match(twice.stdout, /already installed.*\[unchanged\]/);
    assert.equal(readdirSync(join(home, '.claude')).filter((f) => f.includes('backup')).length, 1, 'no new backup when nothing changes');
    const un = run(['uninstall', 'all']);
    assert.equal(un.status, 0, un.stderr);
    assert.deepEqual(JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')), withoutOurs(JSON.parse(CLAUDE_SETTINGS)));
  });

  test('--project writes into the project (cwd or --dir); usage errors exit 2; unreadable settings exit 1', () => {
    const proj = join(home, 'proj');
    mkdirSync(proj, { recursive: true });
    assert.equal(run(['install', 'gemini', '--project'], proj).status, 0);
    assert.ok(existsSync(join(proj, '.gemini', 'settings.json')));
    assert.equal(run(['install', 'claude', '--project', '--dir', proj]).status, 0);
    assert.ok(existsSync(join(proj, '.claude', 'settings.json')));
    assert.equal(run(['install', 'vim']).status, 2);
    assert.equal(run(['install']).status, 2);
    assert.equal(run(['install', 'claude', '--user', '--project']).status, 2);
    assert.equal(run(['install', 'claude', '--dir', proj]).status, 2);
    put(join(home, '.gemini', 'settings.json'), '{ not json');
    const bad = run(['install', 'claude', 'gemini']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /not plain JSON/);
    assert.ok(!existsSync(join(home, '.claude', 'settings.json.castellan-backup')) && installedHooks(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).Stop === undefined, 'nothing written when any file cannot be handled');
  });
});
