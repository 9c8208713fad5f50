// One live pane on the server: its pty and its screen, with flow control and an exit notice that loses no output.
import type { ClientInput } from '../api/context.js';
import { encodeMouse, encodePaste, translateKeys } from './pane-input.js';
import { parseScheduler, type PaneFeed, type ParseScheduler } from './parse-feed.js';
import { spawnPty, type PtyExit, type PtyProcess } from './pty.js';
import { Screen } from './screen.js';
import { findExecutable } from '../platform/exec-path.js';

/**
 * Why a command cannot run, as a shell would say it (node-pty forks before exec, so a missing program would
 * otherwise only show node-pty's "execvp(3) failed" and exit 1).
 */
export function cannotRun(command: string[], cwd: string, env: Record<string, string>): string | undefined {
  const file = command[0];
  if (!file) return 'empty command';
  if (findExecutable(file, { path: env.PATH ?? '/usr/bin:/bin', cwd })) return undefined;
  return file.includes('/') ? 'no such executable file' : 'command not found';
}

/** Reading pauses above HIGH unparsed bytes and resumes below LOW, so a flood cannot eat memory or starve others. */
const HIGH = 1024 * 1024;
const LOW = 128 * 1024;

export interface PaneRuntimeOpts {
  id: string;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  scrollback: number;
  onDirty(): void;
  onExit(e: PtyExit): void;
  onTitle(title: string): void;
  onBell(): void;
  onNotify(n: { title?: string; body: string }): void;
  onError(err: unknown): void;
  /** Whose turns parse this pane's output (the server's one by default). */
  scheduler?: ParseScheduler;
}

export class PaneRuntime {
  readonly screen: Screen;
  readonly pty: PtyProcess | undefined;
  /** Output read from the pty and not parsed yet: parsed in turns with the other panes (parse-feed.ts). */
  private readonly feed: PaneFeed;
  exited = false;
  /** When output was last parsed (for detection's "recent change" and input-priority frames). */
  lastOutputAt = 0;
  private cols: number;
  private rows: number;

  constructor(private readonly o: PaneRuntimeOpts) {
    this.cols = o.cols;
    this.rows = o.rows;
    this.screen = new Screen({ cols: o.cols, rows: o.rows, scrollback: o.scrollback, onListenerError: o.onError });
    this.screen.onWriteParsed(() => {
      this.lastOutputAt = Date.now();
      o.onDirty();
    });
    this.screen.onTitle((t) => o.onTitle(t));
    this.screen.onBell(() => o.onBell());
    this.screen.onNotify((n) => o.onNotify(n));
    this.feed = (o.scheduler ?? parseScheduler).feedScreen(this.screen, (queued) => {
      if (queued < LOW) this.pty?.resume();
    });
    let pty: PtyProcess | undefined;
    const why = cannotRun(o.command, o.cwd, o.env);
    try {
      if (why) throw new Error(why);
      pty = spawnPty({ command: o.command, cwd: o.cwd, env: o.env, cols: o.cols, rows: o.rows });
    } catch (err) {
      // A command that cannot start shows why in its pane (exit 127, as a shell says it) instead of taking the server down.
      this.feed.push(`\x1b[31mcastellan: cannot run ${JSON.stringify(o.command[0] ?? '')}: ${(err as Error).message}\x1b[0m\r\n`);
      queueMicrotask(() => this.finish({ code: 127, signal: null }));
    }
    this.pty = pty;
    if (!pty) return;
    // Replies to the program's queries (cursor position, device attributes) go back into the pty.
    this.screen.onReply((data) => pty.write(data));
    pty.onData((chunk) => {
      this.bytesIn += chunk.length;
      this.feed.push(chunk);
      if (this.feed.queued > HIGH) pty.pause();
    });
    pty.onExit((e) => this.finish(e));
  }

  /** Texts of castellan's own (show()) not parsed yet: while any is, what the screen changes by is not the program's. */
  private shown = 0;

  /**
   * The screen is changing by castellan's own text (a restored history), not the program's output: detection skips
   * it (session.paneDirty). Read as output, a restored background shell went working, then "done", and a resumed
   * Gemini's painted history matched its done rule before Gemini had started (live check, 4 of 5 restores).
   */
  get showing(): boolean {
    return this.shown > 0;
  }

  /**
   * castellan's own text into this pane's screen (a restored history), parsed in turns with every pane's output.
   * Output the program prints meanwhile waits behind it, so while showing, every change is castellan's.
   */
  show(data: string | Iterator<string>): void {
    this.shown++;
    this.feed.queue(data);
    this.feed.then(() => void this.shown--);
  }

  private finish(e: PtyExit): void {
    if (this.exited) return;
    this.exited = true;
    const how = e.signal ? `killed by signal ${e.signal}` : `exited with code ${e.code}`;
    // Queued behind all output already read, so the notice lands after the program's last line.
    this.feed.push(`\x1b[0m\r\n\x1b[2m[${how} — press Enter to close this pane]\x1b[0m`);
    this.feed.then(() => this.o.onExit(e));
  }

  /** Bytes read from the pty so far (a client's frame clock tells a flood by how fast this grows: client-link.ts). */
  bytesIn = 0;

  get size(): { cols: number; rows: number } {
    return { cols: this.cols, rows: this.rows };
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    this.screen.resize(cols, rows);
    this.pty?.resize(cols, rows);
    this.o.onDirty();
  }

  /** Raw input from a user or the API. */
  write(data: string): void {
    if (this.exited || !this.pty) return;
    this.pty.write(translateKeys(data, this.screen.modes));
  }

  input(msg: ClientInput, origin: { x: number; y: number } = { x: 0, y: 0 }): void {
    if (this.exited || !this.pty) return;
    if (msg.kind === 'data' || msg.kind === 'paste') this.feed.typed();
    const modes = this.screen.modes;
    switch (msg.kind) {
      // The echo is parsed the moment it is read (parseNow): nothing to tell xterm here.
      case 'data':
        this.pty.write(translateKeys(msg.data, modes));
        return;
      case 'paste':
        this.pty.write(encodePaste(msg.text, modes, msg.part));
        return;
      case 'mouse': {
        const bytes = encodeMouse({ ...msg, x: msg.x - origin.x, y: msg.y - origin.y }, modes);
        if (bytes) this.pty.write(bytes);
        return;
      }
      case 'focus':
        if (modes.sendFocus) this.pty.write(msg.focused ? '\x1b[I' : '\x1b[O');
        return;
    }
  }

  wantsMouse(): boolean {
    return this.screen.modes.mouseTracking !== 'none';
  }

  /** Ends the pane's program and everything else in its session (HUP, TERM, KILL). */
  kill(): Promise<void> {
    return this.pty?.kill() ?? Promise.resolve();
  }

  /** Frees the screen; `kill: false` when the caller ends the program itself (server shutdown ends all panes at once). */
  dispose(o: { kill?: boolean } = {}): void {
    if (o.kill ?? true) void this.kill();
    this.feed.close();
    this.screen.dispose();
  }

  /** The pid of the pane's program while it runs (its session leader). */
  get runningPid(): number | undefined {
    return this.exited || this.pty?.exited ? undefined : this.pty?.pid;
  }
}
