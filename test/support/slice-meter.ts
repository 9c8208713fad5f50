// The longest synchronous slice of the event loop, in this thread's CPU time (steady under load, unlike wall clock).
import { readFileSync } from 'node:fs';

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** Linux only: /proc's per-thread schedstat. Tests that need it skip without. */
export const hasSchedstat = (() => {
  try {
    readFileSync(SCHEDSTAT, 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/** This thread's CPU time in ms (not zlib's pool or other threads, unlike process.cpuUsage). */
export const threadCpuMs = (): number => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;

/** The longest main-thread CPU slice between two 1 ms timer turns until stop() is called. */
export function sliceMeter(): { stop(): number } {
  let last = threadCpuMs();
  let max = 0;
  let t: NodeJS.Timeout;
  const tick = () => {
    const c = threadCpuMs();
    max = Math.max(max, c - last);
    last = c;
    t = setTimeout(tick, 1);
  };
  t = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(t);
      tick();
      clearTimeout(t);
      return max;
    },
  };
}
