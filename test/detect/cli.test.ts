// `castellan detect`: text and JSON output on saved screens, titles from a lab titles.tsv, usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import detect, { titleFromTsv } from '../../src/cli/commands/detect.js';
import { UsageError, type CliContext } from '../../src/cli/define-command.js';
import { FIXTURES } from './support.js';

function ctx(home: string): CliContext & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    paths: { home, userDir: join(home, '.castellan') } as CliContext['paths'],
    env: {}, cwd: home, version: 'test', stdout, stderr,
    out: (s) => stdout.push(s), err: (s) => stderr.push(s),
    connect: () => { throw new Error('detect must not need a server'); },
  };
}

function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'castellan-detect-cli-'));
  return fn(home).finally(() => rmSync(home, { recursive: true, force: true }));
}

const run = (c: CliContext, values: Record<string, string | boolean>) => detect.run(c, { values, positionals: [], rest: [] });

test('prints the state and the rule that matched (ANSI input, title given)', () => withHome(async (home) => {
  const c = ctx(home);
  const code = await run(c, { agent: 'codex', screen: join(FIXTURES, 'codex/lab-160x45/working.ansi.txt'), title: '⠹ Please THINK | work' });
  assert.equal(code, 0);
  const text = c.stdout.join('\n');
  assert.match(text, /state\s+working \(plain\)/);
  assert.match(text, /rule\s+status-line \(priority 80, busy marker, plain\)/);
  assert.match(text, /ANSI/);
}));

test('--json; a non-busy working rule says what a still screen settles to', () => withHome(async (home) => {
  const c = ctx(home);
  await run(c, { agent: 'codex', screen: join(FIXTURES, 'codex/lab-manual-run/working-streaming.txt'), json: true, all: true });
  const out = JSON.parse(c.stdout.join('\n'));
  assert.equal(out.state, 'working');
  assert.equal(out.still_state, 'idle');
  assert.equal(out.rule, 'turn-open');
  assert.equal(out.confidence, 'weak');
  assert.ok(Array.isArray(out.matches) && out.matches.length >= 1);
  assert.deepEqual(out.diagnostics, []);
}));

test('an agent without rules of its own uses the generic ones; nothing matching gives the fallback', () => withHome(async (home) => {
  const file = join(home, 'screen.txt');
  writeFileSync(file, 'building...\n[#####     ] 50%\n');
  const c = ctx(home);
  await run(c, { agent: 'aider', screen: file });
  const text = c.stdout.join('\n');
  assert.match(text, /generic rules/);
  assert.match(text, /state\s+idle/);
  assert.match(text, /none matched: fallback is working while the screen changes, idle when it holds still/);
}));

test('user rules in ~/.castellan/detect apply; --no-user-rules ignores them', () => withHome(async (home) => {
  const dir = join(home, '.castellan', 'detect');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'pi.toml'), 'agent = "pi"\n[[rules]]\nid = "mine"\nstate = "blocked"\npriority = 500\nall = ["Operation aborted"]\n');
  const screen = join(FIXTURES, 'pi/80x24/interrupted.txt');
  const a = ctx(home);
  await run(a, { agent: 'pi', screen, json: true });
  assert.equal(JSON.parse(a.stdout.join('')).rule, 'mine');
  const b = ctx(home);
  await run(b, { agent: 'pi', screen, json: true, 'no-user-rules': true });
  assert.equal(JSON.parse(b.stdout.join('')).rule, 'editor');
}));

test('the title of a lab capture comes from the titles.tsv next to it', () => withHome(async (home) => {
  writeFileSync(join(home, 'codex-titles.tsv'), 'working\t⠹ Please THINK | work\nblocked\t[ ! ] Action Required | x\n');
  assert.equal(titleFromTsv(join(home, 'codex-working.ansi.txt')), '⠹ Please THINK | work');
  assert.equal(titleFromTsv(join(home, 'codex-blocked.txt')), '[ ! ] Action Required | x');
  assert.equal(titleFromTsv(join(home, 'codex-idle.txt')), undefined);
  writeFileSync(join(home, 'claude-auto-titles.tsv'), 'blocked-automode-fallback\t✳ Claude Code\n');
  assert.equal(titleFromTsv(join(home, 'claude-auto-blocked-automode-fallback.txt')), '✳ Claude Code');
}));

test('usage and file errors', () => withHome(async (home) => {
  await assert.rejects(run(ctx(home), { agent: 'claude' }), UsageError);
  await assert.rejects(run(ctx(home), { agent: 'claude', screen: join(FIXTURES, 'claude/80x24/blocked.txt'), size: 'big' }), UsageError);
  const c = ctx(home);
  assert.equal(await run(c, { agent: 'claude', screen: join(home, 'missing.txt') }), 1);
  assert.match(c.stderr.join('\n'), /cannot read/);
}));
