// What belongs to the server process, not to one of its sessions: a process may host several (issue 34, as tmux's
// one server holds every session), and each session keeps its own socket, log, config, trust, snapshots and panes.
//
// Once per process, whichever session comes first: the crash reaper (it watches every pane of the process, pty.ts),
// the young-generation shrink (V8's heap is the process's), the signal handlers (SIGTERM saves and stops every session,
// SIGINT stops them, SIGHUP is ignored) and the last-resort error handlers. The process exits when its last session
// has ended and their pane programs are gone; a crash of the process (kill -9, out of memory) ends every session it
// holds, as in tmux, and each comes back from its own snapshot at its next start.
// Nothing heavy is imported here: the starter side of this room (join.ts) loads in the CLI; main.ts hands in the reaper.

export interface Hosted {
  /** The session's own log (server-<session>.log). */
  log(msg: string): void;
  /** Writes the session's snapshot now (a polite stop keeps the session as it is). */
  save(): Promise<unknown>;
  shutdown(reason: string): void;
}

/** Sessions one process holds at most; a start past it gets a process of its own. */
export const MAX_HOSTED = 32;

class HostProcess {
  private readonly sessions = new Map<string, Hosted>();
  private readonly ending = new Set<Promise<unknown>>();
  private installed = false;
  /** Starts accepted by the host door and not yet added (or failed): the process must not exit under them. */
  private starting = 0;
  private fallbackLog: (msg: string) => void = () => undefined;
  private door: { close(): void } | undefined;
  exiting = false;

  /** Process-level messages go to every session's log (the last session's log once none is left). */
  readonly log = (msg: string): void => {
    if (!this.sessions.size) return this.fallbackLog(msg);
    for (const s of this.sessions.values()) s.log(msg);
  };

  get size(): number {
    return this.sessions.size;
  }

  has(name: string): boolean {
    return this.sessions.has(name);
  }

  names(): string[] {
    return [...this.sessions.keys()];
  }

  /** The once-per-process parts, set up by the first session before its first pane. */
  install(firstLog: (msg: string) => void, once: (log: (msg: string) => void) => void): void {
    if (this.installed) return;
    this.installed = true;
    this.fallbackLog = firstLog;
    // The reaper (before the first pane: it ends the panes of every session if this process dies without doing it) and the heap tuning.
    once(this.log);
    // A polite stop keeps each session as it is now; kill -9 keeps the last snapshots written (at most a few seconds old).
    process.on('SIGTERM', () => {
      for (const s of [...this.sessions.values()]) void s.save().catch(() => undefined).finally(() => s.shutdown('SIGTERM'));
    });
    process.on('SIGINT', () => {
      for (const s of [...this.sessions.values()]) s.shutdown('SIGINT');
    });
    process.on('SIGHUP', () => this.log('SIGHUP ignored (server keeps running)'));
    // One misbehaving pane or client must not take every other pane (of every session) down with the server.
    process.on('uncaughtException', (err) => this.log(`uncaught: ${err.stack ?? err}`));
    process.on('unhandledRejection', (err) => this.log(`unhandled rejection: ${(err as Error)?.stack ?? err}`));
  }

  /** A start the host door accepted: call done() once it is added or has failed. */
  beginStart(): () => void {
    this.starting++;
    let once = false;
    return () => {
      if (once) return;
      once = true;
      this.starting--;
      this.maybeExit();
    };
  }

  add(name: string, s: Hosted): void {
    this.sessions.set(name, s);
    this.fallbackLog = s.log;
  }

  /** A session has ended: its panes end (panesEnded settles), and the process exits after the last one. */
  ended(name: string, panesEnded: Promise<unknown>): void {
    const s = this.sessions.get(name);
    if (s) this.fallbackLog = s.log;
    this.sessions.delete(name);
    this.ending.add(panesEnded);
    this.maybeExit();
  }

  setDoor(door: { close(): void }): void {
    if (this.exiting) door.close();
    else this.door = door;
  }

  private maybeExit(): void {
    if (this.sessions.size || this.starting || this.exiting || !this.installed) return;
    this.exiting = true;
    // No new session may come in now: a starter finds no host and starts a process of its own.
    this.door?.close();
    this.door = undefined;
    // Exit once every pane program is gone (bounded by terminate.ts STOP_STEPS), giving queued "exit" messages a moment too.
    const exit = () => setTimeout(() => process.exit(0), 100).unref();
    void Promise.allSettled([...this.ending]).then(exit, exit);
  }
}

/** The one per process. */
export const hostProcess = new HostProcess();
export type { HostProcess };
