// pi's tool_call gate (share/integrations/pi/castellan.ts, loaded as pi loads it): a long input reaches governance
// whole, and a castellan that crashes or answers nonsense blocks the call instead of letting it run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { importTs } from '../support/pi-extension.js';

type Handler = (event: unknown, ctx: unknown) => unknown;
const SOURCE = readFileSync(join(REPO, 'share/integrations/pi/castellan.ts'), 'utf8');

/** Loads a copy of the extension with INSTALLED_COMMAND set (as `castellan integrations install pi` writes it). */
async function loadExtension(dir: string, name: string, argv: string[] | null): Promise<Map<string, Handler>> {
  const file = join(dir, `${name}.ts`);
  writeFileSync(file, SOURCE.split('\n').map((l) => (l.endsWith('// @castellan-command') ? `const INSTALLED_COMMAND: string[] | null = ${JSON.stringify(argv)}; // @castellan-command` : l)).join('\n'));
  const mod = (await importTs(file)) as { default: (pi: { on(e: string, h: Handler): void }) => void };
  const handlers = new Map<string, Handler>();
  mod.default({ on: (e, h) => handlers.set(e, h) });
  return handlers;
}

describe('pi\'s tool_call gate', () => {
  let env: TempEnv;
  const saved = { ...process.env };
  before(() => {
    env = makeTempEnv();
    // A PreToolUse hook that denies commands mentioning "forbidden": it can only see what the extension sends.
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, 'deny.sh'), '#!/bin/sh\nif grep -q forbidden; then echo "no forbidden things" >&2; exit 1; fi\n', { mode: 0o755 });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), `[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "${join(env.home, 'deny.sh')}"\nmatcher = "shell"\n`);
    // The extension registers only inside a pane, and its castellan inherits this process's environment.
    Object.assign(process.env, env.env, { CASTELLAN_ENV: '1', CASTELLAN_SOCKET: join(env.home, 'none.sock'), CASTELLAN_PANE_ID: 'w1:p1' });
  });
  after(async () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await env.cleanup();
  });

  test('a command longer than 2000 characters is governed on its whole text', async () => {
    const h = await loadExtension(env.root, 'real', [process.execPath, join(REPO, 'bin/castellan.js')]);
    const command = `echo ${'a'.repeat(3000)} forbidden`;
    const r = (await h.get('tool_call')!({ type: 'tool_call', toolName: 'bash', toolCallId: 'c1', input: { command } }, {})) as { block?: boolean; reason?: string } | undefined;
    assert.equal(r?.block, true);
    assert.match(r!.reason!, /no forbidden things/);
    const ok = await h.get('tool_call')!({ type: 'tool_call', toolName: 'bash', toolCallId: 'c2', input: { command: `echo ${'a'.repeat(3000)}` } }, {});
    assert.equal(ok, undefined);
  });

  for (const [name, script, why] of [
    ['crashes', 'cat >/dev/null; echo boom >&2; exit 3', /did not answer/],
    ['answers nonsense', 'cat >/dev/null; echo "<html>"', /could not be read/],
  ] as const)
    test(`a castellan that ${name} blocks the call`, async () => {
      const h = await loadExtension(env.root, name.replace(/\W/g, '-'), ['/bin/sh', '-c', script, 'sh']);
      const r = (await h.get('tool_call')!({ type: 'tool_call', toolName: 'read', toolCallId: 'c3', input: { path: '/etc/hostname' } }, {})) as { block?: boolean; reason?: string } | undefined;
      assert.equal(r?.block, true);
      assert.match(r!.reason!, why);
    });

  test('a castellan that answers nothing and exits 0 allows it', async () => {
    const h = await loadExtension(env.root, 'allow', ['/bin/sh', '-c', 'cat >/dev/null', 'sh']);
    assert.equal(await h.get('tool_call')!({ type: 'tool_call', toolName: 'read', toolCallId: 'c4', input: { path: '/etc/hostname' } }, {}), undefined);
  });
});
