// Hostile case: a server that crashes (kill -9) or is stopped leaves no pane program running, even ones that ignore HUP and TERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPanes } from '../support/api.js';
import { pidAlive, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const LOOP = 'while :; do sleep 1; done';
/** Ignores the hangup and the polite kill: only SIGKILL ends it. */
const STUBBORN = ['sh', '-c', `trap "" HUP TERM; ${LOOP}`];
const PLAIN = ['sh', '-c', LOOP];
/** A stubborn job in its own process group (job control on), so killing the pane's group alone misses it. */
const STUBBORN_JOB = ['sh', '-c', `set -m; (trap "" HUP TERM; ${LOOP}) & wait`];
/** Everything must be gone this long after the server died or `server stop` returned. */
const DEADLINE_MS = 3000;

/** The session id of a process (field 6 of /proc/PID/stat), or undefined once it is gone. */
function sessionOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  } catch {
    return undefined;
  }
}

/** Every live process in the sessions the given pane programs lead (the programs, their children and jobs). */
function paneProcesses(leaders: number[]): number[] {
  const set = new Set(leaders);
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => set.has(sessionOf(pid) ?? -1) && pidAlive(pid));
}

/** A server with 4 stubborn panes (one with its loop in a background job) and 2 plain ones; returns their pids. */
async function serverWithPanes(env: TempEnv): Promise<{ server: number; panes: number[] }> {
  const r = await env.cli(['server', 'start', '--', ...STUBBORN]);
  assert.equal(r.code, 0, `${r.stdout}${r.stderr}${env.logTail()}`);
  for (const command of [STUBBORN, PLAIN, STUBBORN, STUBBORN_JOB, PLAIN]) await env.call('window.new', { command, focus: false });
  const panes = await waitFor(
    async () => {
      const list = await listPanes(env);
      return list.length === 6 && list.every((p) => p.pid) ? list.map((p) => p.pid!) : undefined;
    },
    { timeoutMs: 10_000, message: '6 panes with pids' },
  );
  // Wait for the job pane's background job, so the test sees every process it must see die.
  await waitFor(() => paneProcesses([panes[4]]).length >= 2, { timeoutMs: 5000, message: 'the background job started' });
  return { server: (await env.serverPid())!, panes };
}

function describe(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()}`;
      } catch {
        return `${pid} (gone)`;
      }
    })
    .join('; ');
}

/** Waits (3 s at most) until no pane program and nothing else under the env's HOME runs; returns how long that took. */
async function expectNoSurvivors(env: TempEnv, leaders: number[], what: string): Promise<number> {
  const start = Date.now();
  let left: number[] = [];
  await waitFor(
    () => {
      left = [...new Set([...paneProcesses(leaders), ...env.processes()])];
      return left.length === 0;
    },
    { timeoutMs: DEADLINE_MS, intervalMs: 20, message: `every pane program to end after ${what}`, observe: () => describe(left) },
  );
  return Date.now() - start;
}

test('kill -9 of the server: within 3 s no pane program survives, not even one ignoring HUP and TERM', async (t) => {
  const env = tempEnvFor(t);
  const { server, panes } = await serverWithPanes(env);
  assert.ok(paneProcesses(panes).length >= 7, 'all pane programs run');
  process.kill(server, 'SIGKILL');
  await waitFor(() => !pidAlive(server), { timeoutMs: 2000, message: 'the server dies' });
  t.diagnostic(`all pane programs gone ${await expectNoSurvivors(env, panes, 'kill -9')} ms after the server died`);
});

/**
 * A `ps` that names sessions as macOS's does: by a kernel pointer (0xffffff80…), not by the leader's pid, so nobody
 * can tell a session from its leader's pid once the leader is gone. Put first on PATH, for the server and its reaper.
 */
function macLikePs(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-macps-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const real = execFileSync('/bin/sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).trim();
  // Column 4 is `sess` in every ps castellan and its reaper run (src/platform/proc/ps.ts, bin/castellan-reaper.sh).
  writeFileSync(join(dir, 'ps'), `#!/bin/sh\n${real} "$@" | awk '{ if ($4 ~ /^[0-9]+$/ && $4 > 0) $4 = sprintf("0xffffff80%08x", $4 * 16); print }'\n`);
  chmodSync(join(dir, 'ps'), 0o755);
  return dir;
}

test('kill -9 with the portable backend and macOS\'s session pointers: a job that outlived its shell is ended too', async (t) => {
  const env = tempEnvFor(t, { env: { CASTELLAN_PLATFORM_BACKEND: 'portable' } });
  env.env.PATH = `${macLikePs(t)}:${env.env.PATH}`;
  const { server, panes } = await serverWithPanes(env);
  // The server tells its reaper each pane's session token (300 ms after the pane starts), and logs it.
  await waitFor(() => panes.every((pid) => new RegExp(`reaper: pane program ${pid} leads session 0xffffff80`).test(env.logTail())) || undefined, { timeoutMs: 10_000, message: 'the reaper told every pane\'s session token', observe: () => env.logTail() });
  process.kill(server, 'SIGKILL');
  await waitFor(() => !pidAlive(server), { timeoutMs: 2000, message: 'the server dies' });
  t.diagnostic(`all pane programs gone ${await expectNoSurvivors(env, panes, 'kill -9')} ms after the server died`);
});

test('castellan server stop: within 3 s no pane program survives, not even one ignoring HUP and TERM', async (t) => {
  const env = tempEnvFor(t);
  const { server, panes } = await serverWithPanes(env);
  const r = await env.cli(['server', 'stop'], { timeoutMs: 10_000 });
  assert.equal(r.code, 0, r.stderr);
  t.diagnostic(`all pane programs gone ${await expectNoSurvivors(env, panes, 'server stop')} ms after server stop returned`);
  assert.ok(!pidAlive(server), 'the server exited');
});

test('a pane program holds no pty but its own: no master or terminal of another pane leaks into it', async (t) => {
  const env = tempEnvFor(t);
  const { panes } = await serverWithPanes(env);
  // A pane's pid is known from the fork; until its exec, that child is a copy of the server and holds every fd the
  // server has (close-on-exec closes them at the exec). Look only once each runs its own program (seen once at load).
  const exe = (pid: number) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`);
    } catch {
      return '';
    }
  };
  await waitFor(() => panes.every((pid) => exe(pid) !== '' && exe(pid) !== exe(process.pid) && !/node/.test(exe(pid))), { timeoutMs: 10_000, message: 'every pane program past its exec', observe: () => panes.map(exe) });
  const ttys = (pid: number) =>
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return /^\/dev\/(pts\/|ptmx)/.test(target) ? [`${fd}->${target}`] : [];
      } catch {
        return [];
      }
    });
  for (const pid of panes) {
    const own = readlinkSync(`/proc/${pid}/fd/0`);
    const foreign = ttys(pid).filter((x) => !x.endsWith(`->${own}`));
    assert.deepEqual(foreign, [], `pane program ${pid} (on ${own}) holds other ptys`);
  }
});
