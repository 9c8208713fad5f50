// The thread the chooser looks at other machines from (machine-thread.ts starts it): each `watch` runs watchMachines
// with the real lister and posts every update; `stop` ends one.
import { parentPort } from 'node:worker_threads';
import { machineLister, watchMachines } from './machines.js';

const stops = new Map<number, () => void>();
parentPort?.on('message', (m: { watch?: unknown; stop?: unknown }) => {
  if (typeof m.watch === 'number') {
    const id = m.watch;
    stops.set(id, watchMachines(() => machineLister(), (sessions) => parentPort?.postMessage({ id, sessions })));
  } else if (typeof m.stop === 'number') {
    stops.get(m.stop)?.();
    stops.delete(m.stop);
  }
});
