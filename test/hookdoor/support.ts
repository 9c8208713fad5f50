// Runs hook lines as an agent does (`sh -c LINE`, payload on stdin, waiting for exit and closed pipes), for the door tests.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LineRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runLine(line: string, env: Record<string, string>, payload: Buffer | string, o: { cwd?: string; killAfterMs?: number } = {}): Promise<LineRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn('/bin/sh', ['-c', line], { env, cwd: o.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    const killer = setTimeout(() => p.kill('SIGKILL'), o.killAfterMs ?? 30_000);
    p.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    });
    p.stdin.on('error', () => undefined);
    p.stdin.end(payload);
  });
}

/**
 * A stand-in for the node binary in a door line: notes each start in `marks` (one line per call), then runs node.
 * A call the door served never starts it.
 */
export function markingNode(dir: string): { path: string; marks: () => number; reset(): void } {
  const path = join(dir, 'node-marking.sh');
  const marks = join(dir, 'node-marks');
  writeFileSync(path, `#!/bin/sh\necho x >> '${marks}'\nexec '${process.execPath}' "$@"\n`);
  chmodSync(path, 0o755);
  return {
    path,
    marks: () => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean).length : 0),
    reset: () => rmSync(marks, { force: true }),
  };
}
