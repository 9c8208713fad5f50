// `attach --machine`: when the ssh link dies, the last screen stays (marked stale on its bottom row), keys reach no
// remote pane, and the client connects again with bounded backoff until it is back or the user quits (q or C-c).

import { backoff } from '../machines/cli-door.js';

export { backoff };

export interface ReconnectOpts<T> {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  machine: string;
  /** One attempt (bounded by its own deadline); rejects with why. */
  connect(): Promise<T>;
  /** Closes a connection that came up after the user quit. */
  discard(c: T): void;
  firstMs?: number;
  maxMs?: number;
}

const QUIT = /[q\x03]/;

/** Resolves with a fresh connection, or `undefined` when the user quit (or the terminal went away) first. */
export function reconnect<T>(o: ReconnectOpts<T>): Promise<T | undefined> {
  const { stdin, stdout } = o;
  return new Promise((resolve) => {
    let over = false;
    let timer: NodeJS.Timeout | undefined;
    let attempt = 0;
    let why = 'the ssh link closed';
    const bar = (text: string) => {
      const rows = stdout.rows || 24;
      const cols = stdout.columns || 80;
      const line = ` ${text}`.slice(0, cols).padEnd(cols);
      // Save the cursor, draw over the status bar in reverse video, put the cursor back: the screen above is the last one, stale.
      try {
        stdout.write(`\x1b7\x1b[${rows};1H\x1b[0;7m${line}\x1b[0m\x1b8`);
      } catch {
        /* a terminal gone: SIGHUP ends this */
      }
    };
    const finish = (c: T | undefined) => {
      if (over) return;
      over = true;
      if (timer) clearTimeout(timer);
      stdin.off('data', onData);
      process.off('SIGHUP', onQuit);
      process.off('SIGTERM', onQuit);
      resolve(c);
    };
    const onQuit = () => finish(undefined);
    // Keys typed while the link is down go nowhere: no remote pane takes input until a fresh connection is back.
    const onData = (d: string | Buffer) => {
      if (QUIT.test(String(d))) finish(undefined);
    };
    const tryOnce = () => {
      if (over) return;
      bar(`machine ${o.machine}: link down, reconnecting…; stale screen, keys not sent; q quits (${why})`);
      o.connect().then(
        (c) => {
          if (over) o.discard(c);
          else finish(c);
        },
        (e: unknown) => {
          if (over) return;
          why = String((e as Error)?.message ?? e).replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 120);
          const wait = backoff(attempt++, o.firstMs, o.maxMs);
          bar(`machine ${o.machine}: link down, retrying in ${(wait / 1000).toFixed(1)} s; stale screen, keys not sent; q quits (${why})`);
          timer = setTimeout(tryOnce, wait);
        },
      );
    };
    stdin.on('data', onData);
    stdin.resume();
    process.on('SIGHUP', onQuit);
    process.on('SIGTERM', onQuit);
    timer = setTimeout(tryOnce, backoff(0, o.firstMs, o.maxMs));
  });
}
