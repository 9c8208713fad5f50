// Other machines are looked at from a thread of the client's own, never from the thread that echoes keys (issue 31):
// spawning ssh blocks the thread that does it until the child has exec'd (7-10 ms a machine on a quiet 2-core box,
// more under load), and profiles and caches are read synchronously. On the main thread, that was echo waiting on
// machines while the chooser opened. The thread starts on the first look and ends a minute after the last one.
import { Worker } from 'node:worker_threads';
import type { ChooserSession } from './tree.js';
import { machineLister, rememberLook, watchMachines } from './machines.js';

type Update = (sessions: ChooserSession[]) => void;

/** An idle thread is ended after this long (a chooser opened again soon finds it up). */
const IDLE_MS = 60_000;

let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 0;
const watching = new Map<number, Update>();

function thread(): Worker | undefined {
  if (worker) return worker;
  try {
    const w = new Worker(new URL('./machine-worker.js', import.meta.url));
    w.on('message', (m: { id?: unknown; sessions?: unknown }) => {
      if (typeof m.id === 'number' && Array.isArray(m.sessions)) watching.get(m.id)?.(m.sessions as ChooserSession[]);
    });
    // A thread that dies leaves nothing behind: the next look starts another.
    w.on('error', () => undefined);
    w.on('exit', () => {
      if (worker === w) worker = undefined;
    });
    // After the listeners: a 'message' listener refs the worker's port again. The client's own life is what counts.
    w.unref();
    worker = w;
    return w;
  } catch {
    return undefined;
  }
}

/**
 * watchMachines with this user's profiles, run on the machines thread. Where no thread can start, the look runs here
 * (slower echo while it spawns, nothing lost).
 */
export function watchMachinesAway(onUpdate: Update): () => void {
  const w = thread();
  if (!w) return watchMachines(() => machineLister(), onUpdate);
  const update: Update = (sessions) => {
    rememberLook(sessions);
    onUpdate(sessions);
  };
  if (idle) clearTimeout(idle);
  idle = undefined;
  const id = ++nextId;
  watching.set(id, update);
  w.postMessage({ watch: id });
  return () => {
    if (!watching.delete(id)) return;
    worker?.postMessage({ stop: id });
    if (watching.size || !worker) return;
    idle = setTimeout(() => void worker?.terminate(), IDLE_MS);
    idle.unref();
  };
}
