// "Where to connect" for CLI verbs: this machine's server, or a named machine's over ssh (`--machine NAME`).
import type { Paths } from '../platform/paths.js';
import type { RpcClient } from '../platform/rpc-client.js';
import { connectMachine, type MachineClient } from './connect.js';
import { MachineError } from './errors.js';
import type { MachineProfile } from './profile.js';
import { readProfiles } from './store.js';

export interface WhereContext {
  paths: Paths;
  env: NodeJS.ProcessEnv;
  connect(): Promise<RpcClient>;
}

function envMs(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return v !== undefined && Number.isInteger(n) && n >= 0 && n <= 600_000 ? n : fallback;
}

/** From spawning ssh to the bridge's hello, and the quiet-link probe interval (CASTELLAN_MACHINE_TIMEOUT_MS / _PROBE_MS). */
export function machineTimeouts(env: NodeJS.ProcessEnv): { connectMs: number; probeMs: number } {
  return { connectMs: envMs(env.CASTELLAN_MACHINE_TIMEOUT_MS, 10_000), probeMs: envMs(env.CASTELLAN_MACHINE_PROBE_MS, 10_000) };
}

/** The profile called `name`, or a MachineError saying which names exist. */
export function findMachine(paths: Paths, name: string): MachineProfile {
  const all = readProfiles(paths.machinesFile);
  const m = all.find((x) => x.name === name);
  if (!m) throw new MachineError(name, 'machine_unknown', `no machine named ${JSON.stringify(name).slice(0, 80)}${all.length ? ` (known: ${all.map((x) => x.name).join(', ')})` : ' (add one: castellan machine add NAME TARGET)'}`);
  return m;
}

/** Connects to a profile with this context's ssh program, environment and timeouts. */
export function openMachine(ctx: WhereContext, m: MachineProfile, o: { deadlineMs?: number } = {}): Promise<MachineClient> {
  const t = machineTimeouts(ctx.env);
  return connectMachine(m, { ssh: ctx.paths.sshProgram, env: ctx.env, deadlineMs: o.deadlineMs ?? t.connectMs, probeMs: t.probeMs });
}

/** A named machine's connection with its hello (which server answered: `requestThroughDrops` checks it is the same one). */
export function openNamed(ctx: WhereContext, machine: string): Promise<MachineClient> {
  return openMachine(ctx, findMachine(ctx.paths, machine));
}

/** The client for a named remote machine (cli-door's connectWhere decides local or remote, then loads this); `session` overrides the profile's. */
export async function connectNamed(ctx: WhereContext, machine: string, o: { session?: string } = {}): Promise<RpcClient> {
  const p = findMachine(ctx.paths, machine);
  return (await openMachine(ctx, o.session === undefined ? p : { ...p, session: o.session })).client;
}
