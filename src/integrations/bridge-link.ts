// One socket connection per hook call, shared by the state report and hook.decide: one connect and one accept, not two.
//
// The report and the decision were two connections opened side by side; on a tool call each connect and its
// teardown cost the bridge ~1-2 ms of CPU and the server an accept. The server answers requests on one connection
// independently (by id), so sharing changes no answer: a report that times out leaves the decision waiting its own
// deadline, and a connection that fails fails both, which each side takes as before (report logged, decision local).
import { connectRpc, type BridgeRpc } from './raw-pipe/index.js';

export class BridgeLink {
  private conn?: Promise<BridgeRpc>;
  private users = 0;

  constructor(readonly socket: string) {}

  /** Runs `fn` on the shared connection (opened by the first user, within its connect deadline); closed when the last user is done. */
  async use<T>(connectMs: number, fn: (api: BridgeRpc) => Promise<T>): Promise<T> {
    this.users++;
    const conn = (this.conn ??= connectRpc(this.socket, connectMs));
    try {
      return await fn(await conn);
    } finally {
      if (--this.users === 0) {
        this.conn = undefined;
        conn.then((c) => c.close(), () => undefined);
      }
    }
  }
}
