// Runs an ES module snippet in a fresh node (a clean environment plus `env`) and returns the JSON it printed; it must exit 0 and print nothing on stderr.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

export async function nodeChildJson<T>(code: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<T> {
  const c = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', code], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  c.stdout.on('data', (d) => (out += d));
  c.stderr.on('data', (d) => (err += d));
  const exit = await new Promise<number | null>((r) => c.on('exit', (x) => r(x)));
  assert.equal(exit, 0, err);
  // No V8 flag warning (or anything else) may reach the user's terminal or the server's log.
  assert.equal(err, '');
  return JSON.parse(out) as T;
}
