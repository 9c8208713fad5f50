// The longest synchronous slice of the event loop, in this thread's CPU time (steady under load, unlike wall clock).
// Used by the restore bench and by tests of work that must be cut into slices.
import { mainThreadSched } from './proc.js';

const cpuMs = (): number => mainThreadSched(process.pid).runMs;

/** Linux only: /proc's per-thread schedstat (NaN elsewhere). Tests that need it skip without. */
export const hasSchedstat = !Number.isNaN(cpuMs());

/** The longest main-thread CPU slice between two 1 ms timer turns until stop() is called (NaN without schedstat). */
export function sliceMeter(): { stop(): number } {
  let last = cpuMs();
  let max = 0;
  let t: NodeJS.Timeout;
  const tick = () => {
    const c = cpuMs();
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
      return hasSchedstat ? max : NaN;
    },
  };
}
