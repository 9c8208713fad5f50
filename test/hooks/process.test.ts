// `castellan run` and `castellan exec` as real processes: exit codes, stderr, signals passed on to the agent, and the import rule for execa.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../support/wait-for.js';
import { hookToml, makeWorld, readJson, type World } from './helpers.js';

const ENTRY = fileURLToPath(new URL('./fixtures/cli-entry.ts', import.meta.url));
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
let w: World;
before(() => {
  w = makeWorld();
  w.write('home/.castellan/config.toml', hookToml({ event: 'SessionEnd', command: `cat > ${join(w.root, 'end.json')}` }));
});
after(() => w.cleanup());

function start(args: string[]) {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), ENTRY, ...args], { cwd: w.project, env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

describe('as real processes', () => {
  test('exec: a denial exits 77 with the reason on stderr', async () => {
    w.write('proj/castellan.toml', '[governance.permissions]\nshell = "deny"\n');
    const r = await start(['exec', '--', 'echo', 'hi']).done;
    assert.equal(r.code, 77);
    assert.match(r.stderr, /castellan exec: denied: the permission policy denies shell/);
    assert.equal(r.stdout, '');
  });

  test('run: SIGTERM to castellan reaches the agent; castellan exits with its code and runs SessionEnd', async () => {
    const ready = join(w.root, 'ready');
    const agent = w.script('agent.sh', `trap 'exit 42' TERM\ntouch ${ready}\nwhile :; do sleep 0.05; done`);
    const p = start(['run', '--goal', 'g-sig', '--', agent]);
    await waitFor(() => existsSync(ready), { timeoutMs: 15_000, message: 'agent started' });
    p.child.kill('SIGTERM');
    const r = await p.done;
    assert.equal(r.code, 42, r.stderr);
    const end = readJson(join(w.root, 'end.json'));
    assert.deepEqual([end.goal_id, end.status, end.exit_code], ['g-sig', 'failed', 42]);
  });
});

describe('module boundaries', () => {
  test('execa is imported only by src/hooks/run.ts', () => {
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : /\.tsx?$/.test(n) ? [join(dir, n)] : []));
    const importers = walk(SRC).filter((f) => /from 'execa'|import\('execa'\)/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(importers.map((f) => f.slice(SRC.length + 1)), ['hooks/run.ts']);
  });

  test('src/hooks depends on nothing above it (api, server, client, cli) and loads no UI', () => {
    for (const f of readdirSync(join(SRC, 'hooks'))) {
      const text = readFileSync(join(SRC, 'hooks', f), 'utf8');
      assert.doesNotMatch(text, /from '\.\.\/(api|server|client|cli)\//, f);
      assert.doesNotMatch(text, /from '(ink|react|node-pty)'/, f);
    }
  });
});
