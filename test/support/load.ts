// Timing bounds that still mean something on a loaded machine. A bound written for a quiet 2-core box is kept while the
// load average is at most twice the cores; past that (other jobs, six test files at once) it takes the looser value the
// test gives, which is chosen to stay below the deadline whose miss the test exists to catch (a hang never passes).
import { availableParallelism, loadavg } from 'node:os';

export function overloaded(): boolean {
  return loadavg()[0] > 2 * availableParallelism();
}

/** `quietMs` on a machine under normal load, `loadedMs` past twice the cores; with the load in the message. */
export function loadBound(quietMs: number, loadedMs: number): number {
  return overloaded() ? loadedMs : quietMs;
}

export const loadNote = (): string => `load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`;
