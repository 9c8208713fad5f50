// Live memory of this process for memory tests: JS heap plus array buffers after full collections (RSS of a
// garbage-collected runtime depends on when the collector last ran, which would make a test flaky).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** heapUsed + arrayBuffers after three full collections (backing stores are swept on V8's own schedule). */
export async function liveMemory(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
