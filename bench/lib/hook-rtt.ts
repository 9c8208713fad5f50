// The server's share of a hook call: one fresh connection carrying the bridge's two requests, timed to both replies.
//
// A PreToolUse bridge opens one connection, writes pane.report_agent and hook.decide back to back (bridge-link.ts) and
// exits once both are answered. Sending the same two lines from the bench process (already running, its JIT warm)
// times what the server adds to the call: accept, the report, the decision, the replies. The rest of the bridge's wall
// time above `node -e 0` is the bridge process's own work.
import { connect } from 'node:net';

export interface BridgeRequests {
  socket: string;
  /** pane.report_agent params without seq (added per call: later than any hook call started before it). */
  report: Record<string, unknown>;
  /** hook.decide params without deadline, as the build under test makes them (server-decide.ts decideParams). */
  decide: Record<string, unknown>;
}

/** Milliseconds from connect to the second reply line; rejects after `timeoutMs` or on a socket error. */
export function serverRoundTrip(r: BridgeRequests, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = connect(r.socket);
    let lines = 0;
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error(`no reply to the bridge's requests within ${timeoutMs} ms`));
    }, timeoutMs);
    c.once('connect', () => {
      const seq = Math.round(Date.now() * 1000);
      const report = JSON.stringify({ id: '1', method: 'pane.report_agent', params: { ...r.report, seq } });
      const decide = JSON.stringify({ id: '2', method: 'hook.decide', params: { ...r.decide, deadline: Date.now() + 900 } });
      c.write(`${report}\n${decide}\n`);
    });
    c.on('data', (d: Buffer) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
      if (lines < 2) return;
      const ms = performance.now() - t0;
      clearTimeout(timer);
      c.destroy();
      resolve(ms);
    });
    c.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
