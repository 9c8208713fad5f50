// The ACP session in `castellan herd list`: a pane that shows the proxy's session log, its state reported as a hook would.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SocketLink } from '../hooks/socket-link.js';
import { stripControls } from '../core/text.js';

export type PresenceState = 'idle' | 'working' | 'blocked' | 'done';

/**
 * Best effort: with no server (or an old one) the proxy runs the same, only without the pane. Nothing here is in the
 * server: the pane runs `tail -F` on the log, and the state goes through pane.report_agent like any hook bridge.
 */
export class Presence {
  private seq = 0;
  private pending: Array<Promise<unknown>> = [];
  private constructor(
    private readonly link: SocketLink | undefined,
    readonly paneId: string | undefined,
    private readonly agent: string,
    readonly logFile: string,
  ) {}

  static async open(o: { socket: string; agent: string; logFile: string; cwd: string; pane: boolean }): Promise<Presence> {
    mkdirSync(dirname(o.logFile), { recursive: true, mode: 0o700 });
    appendFileSync(o.logFile, '', { mode: 0o600 });
    if (!o.pane) return new Presence(undefined, undefined, o.agent, o.logFile);
    try {
      const link = await SocketLink.connect(o.socket, 500);
      const r = await link.request<{ pane_id: string }>('window.new', { name: `acp ${o.agent}`, command: ['tail', '-n', '+1', '-F', o.logFile], cwd: o.cwd, focus: false }, 2000);
      const p = new Presence(link, r.pane_id, o.agent, o.logFile);
      p.report('idle', 'ACP session proxy started');
      return p;
    } catch {
      return new Presence(undefined, undefined, o.agent, o.logFile);
    }
  }

  /** One line in the session log (what the pane shows). */
  log(text: string): void {
    try {
      appendFileSync(this.logFile, `${new Date().toISOString().slice(11, 19)} ${stripControls(text, ' ').slice(0, 2000)}\n`);
    } catch {
      /* a full disk must not stop the session */
    }
  }

  report(state: PresenceState, message?: string): void {
    if (!this.link || !this.paneId) return;
    const p = this.link
      .request('pane.report_agent', { pane_id: this.paneId, agent: this.agent, state, source: 'hook', integration: true, seq: ++this.seq, ...(message ? { message: message.slice(0, 2000) } : {}) }, 2000)
      .catch(() => undefined);
    this.pending.push(p);
  }

  /** Waits (bounded) for the last reports, then lets go of the server. */
  async close(): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.pending), new Promise((r) => (t = setTimeout(r, 2000)))]).finally(() => clearTimeout(t));
    this.link?.close();
  }
}
