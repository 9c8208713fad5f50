// Unrelated processes on the host: n sleeping processes in a process group of their own, started and killed as one.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { track } from '../lib/cleanup.js';
import { sleep, waitUntil } from '../lib/util.js';

const countProcesses = (): number => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).length;

export interface Sleepers {
  n: number;
  /** Processes on the host once they all run. */
  hostProcesses: number;
  stop(): Promise<void>;
}

/** Starts n `sleep` processes (children of one sh, its own process group); stop() kills the whole group. */
export async function startSleepers(n: number): Promise<Sleepers> {
  const before = countProcesses();
  const sh = spawn('sh', ['-c', `i=0; while [ $i -lt ${n} ]; do sleep 3600 & i=$((i+1)); done; wait`], { detached: true, stdio: 'ignore' });
  const pgid = sh.pid!;
  const kill = () => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  const untrack = track({ name: 'sleepers', close: async () => kill(), killSync: kill });
  try {
    await waitUntil(() => countProcesses() >= before + n, `${n} sleeping processes`, 120_000, 200);
  } catch (e) {
    kill();
    untrack();
    throw e;
  }
  return {
    n,
    hostProcesses: countProcesses(),
    stop: async () => {
      kill();
      await waitUntil(() => countProcesses() < before + n / 10, 'the sleeping processes to go', 30_000, 100).catch(() => undefined);
      await sleep(200);
      untrack();
    },
  };
}
