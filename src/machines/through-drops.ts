// A long request to another machine (`herd wait --machine`) that outlives a dropped ssh link: it connects again with
// bounded backoff and asks again, until it is answered, its deadline passes, or what answers is another server.
import type { RpcClient } from '../platform/rpc-client.js';
import { RpcError } from '../platform/rpc-error.js';
import { backoff } from './backoff.js';
import type { MachineClient } from './connect.js';
import { MachineError } from './errors.js';
import { findMachine, machineTimeouts, openMachine, type WhereContext } from './where.js';

/** Worth connecting again after: the link lost, the host or its server not answering (yet). Anything else ends the call. */
const TRANSIENT: ReadonlySet<string> = new Set(['machine_unreachable', 'timeout']);

export interface ThroughDropsOptions {
  /** Lines for the user (a script's stderr): the link lost, and back. */
  say(line: string): void;
  /** The time (epoch ms) past which no attempt is made: the call's own deadline. */
  until: number;
  firstMs?: number;
  maxMs?: number;
  now?: () => number;
}

const isTransient = (e: unknown): boolean => e instanceof MachineError && TRANSIENT.has(e.code);

/**
 * Runs `ask` on `first` (a connection to `machine`), and again on a fresh connection each time the link drops, with
 * the time left. The server must be the one `first` reached (the same pid): a restarted server's pane ids name other
 * panes, so that ends the call instead. Connections this opens are closed when it returns; `first` stays the caller's.
 */
export async function requestThroughDrops<T>(ctx: WhereContext, machine: string, first: MachineClient, ask: (c: RpcClient, remainingMs: number) => Promise<T>, o: ThroughDropsOptions): Promise<T> {
  const now = o.now ?? Date.now;
  const pid = first.hello.server.pid;
  let current = first;
  try {
    for (;;) {
      try {
        return await ask(current.client, Math.max(1, o.until - now()));
      } catch (e) {
        if (!isTransient(e) || !(e instanceof MachineError)) throw e;
        o.say(`${e.message}; connecting again (the wait goes on)`);
      }
      if (current !== first) current.client.close();
      current = await reconnect(ctx, machine, pid, o, now);
      o.say(`machine ${machine} is back; waiting on`);
    }
  } finally {
    if (current !== first) current.client.close();
  }
}

async function reconnect(ctx: WhereContext, machine: string, pid: number | undefined, o: ThroughDropsOptions, now: () => number): Promise<MachineClient> {
  for (let attempt = 0; ; attempt++) {
    const left = o.until - now();
    const wait = backoff(attempt, o.firstMs, o.maxMs);
    // A wait past the deadline is cut to it, and the call ends there: at its deadline, never seconds before it.
    if (wait >= left) {
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      throw new RpcError('timeout', `no match before the deadline: machine ${machine} was not reached again in time`);
    }
    await new Promise((r) => setTimeout(r, wait));
    let c: MachineClient;
    try {
      // Never past the deadline: the attempt's own deadline is the time left when that is shorter.
      c = await openMachine(ctx, findMachine(ctx.paths, machine), { deadlineMs: Math.max(1000, Math.min(machineTimeouts(ctx.env).connectMs, o.until - now())) });
    } catch (e) {
      if (isTransient(e)) continue;
      throw e;
    }
    if (pid !== undefined && c.hello.server.pid !== undefined && c.hello.server.pid !== pid) {
      c.client.close();
      throw new MachineError(machine, 'machine_unreachable', `the castellan server on machine ${machine} was restarted while the link was down: its panes are not the ones this call named`);
    }
    return c;
  }
}
