// Runs a hook line as an agent does (`sh -c LINE`, payload on stdin, waiting for exit AND for the hook's pipes to close).
import { spawn } from 'node:child_process';

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
