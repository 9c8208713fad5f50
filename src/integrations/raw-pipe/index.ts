// The hook bridge's raw pipe code (its one door): the socket client and the stdin reader built on libuv's pipe handle
// itself (no node:net, no node:stream on the hot path) when this Node has it as expected, else the public ways.
// CASTELLAN_HOOK_SOCKET=net takes the public ways always (a way out if a Node release changes the binding under us).
import { rawPipeBinding } from './binding.js';
import { RawPipeClient } from './client.js';
import { RawStdin } from './stdin.js';

export type { ByteSource } from './stdin.js';

/** What the bridge asks of a connection: requests with a reply deadline, and closing it. */
export interface BridgeRpc {
  request<T = unknown>(method: string, params: unknown, timeoutMs: number): Promise<T>;
  close(): void;
}

const binding = (env: NodeJS.ProcessEnv) => (env.CASTELLAN_HOOK_SOCKET === 'net' ? undefined : rawPipeBinding());

/** Which client `connectRpc` takes in this process. */
export function rpcKind(env: NodeJS.ProcessEnv = process.env): 'raw' | 'net' {
  return binding(env) ? 'raw' : 'net';
}

/** Connects within `timeoutMs`; rejects with NotRunningError (code not_running) when no server listens there. */
export async function connectRpc(path: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<BridgeRpc> {
  const b = binding(env);
  if (b) return RawPipeClient.connect(b, path, timeoutMs);
  const { RpcClient } = await import('../../platform/rpc-client.js');
  return RpcClient.connect(path, timeoutMs);
}

/** A socket stdin (fd 0) as a raw handle, non-blocking once this returns; undefined when the raw way is not available. */
export function rawStdin(env: NodeJS.ProcessEnv = process.env): RawStdin | undefined {
  const b = binding(env);
  return b ? RawStdin.open(b, 0) : undefined;
}
