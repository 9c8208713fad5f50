// One request on every machine at once (`--all-machines`): each bounded on its own, so one bad host costs the
// listing its own row, never the others' answers.
import { MachineError } from './errors.js';
import { LOCAL_NAME } from './profile.js';
import { cleanRemote } from './sanitize.js';
import { readProfiles } from './store.js';
import { machineTimeouts, openMachine, type WhereContext } from './where.js';

export type MachineResult<T> = { machine: string; ok: true; value: T } | { machine: string; ok: false; code: string; error: string };

/**
 * Runs `ask` against this machine and every enabled profile in parallel; each gets `deadlineMs` from start to answer
 * (default: the connect deadline plus 5 s for the request itself, so a slow link fails on its own clear message).
 */
export async function acrossMachines<T>(
  ctx: WhereContext,
  ask: (client: Awaited<ReturnType<WhereContext['connect']>>) => Promise<T>,
  o: { deadlineMs?: number; includeLocal?: boolean } = {},
): Promise<Array<MachineResult<T>>> {
  const deadlineMs = o.deadlineMs ?? machineTimeouts(ctx.env).connectMs + 5000;
  const machines = readProfiles(ctx.paths.machinesFile).filter((m) => !m.disabled);
  const one = async (name: string, open: () => Promise<Awaited<ReturnType<WhereContext['connect']>>>): Promise<MachineResult<T>> => {
    let timer: NodeJS.Timeout | undefined;
    let client: Awaited<ReturnType<WhereContext['connect']>> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MachineError(name, 'timeout', `machine ${name} did not answer within ${deadlineMs} ms`)), deadlineMs);
    });
    let expired = false;
    try {
      const work = (async () => {
        const c = await open();
        // A connection that comes up after the deadline is closed as soon as it does.
        if (expired) c.close();
        client = c;
        return ask(c);
      })();
      work.catch(() => undefined);
      return { machine: name, ok: true, value: await Promise.race([work, late]) };
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      return { machine: name, ok: false, code: typeof code === 'string' ? code : 'error', error: cleanRemote((e as Error).message ?? e, 500) };
    } finally {
      expired = true;
      clearTimeout(timer);
      client?.close();
    }
  };
  const jobs: Array<Promise<MachineResult<T>>> = [];
  if (o.includeLocal !== false) jobs.push(one(LOCAL_NAME, () => ctx.connect()));
  for (const m of machines) jobs.push(one(m.name, async () => (await openMachine(ctx, m)).client));
  return Promise.all(jobs);
}
