// Closing a connection that has been answered and is idle, so a one-shot client (`printf REQUEST | nc -U SOCKET`) returns.
//
// Debian's nc (netcat-openbsd) sends its stdin, and after stdin's end waits for the server to close: it half-closes
// its own side only with -N, which the contract's example does not pass, so until the server closes it never returns
// (issue 30). The server ends a connection once all of these hold for IDLE_CLOSE_MS: at least one request was
// answered, none is in flight (an events.wait, a slow method), no half-sent line waits for its end, no event
// subscription, no attached client, no output left to flush, and the peer did not ask to stay (connection.keep, which
// castellan's own clients send first). 200 ms: nc returns within a fifth of a second of its answer, and a hand-written
// client that sends its next request on the same connection within that time keeps it (measured: a script's
// request-reply-request step on one connection takes well under 50 ms here, even under load).
import type net from 'node:net';
import type { Connection } from '../api/context.js';

export const IDLE_CLOSE_MS = 200;
/** After the server's end of the connection, how long a peer may keep its own side open before it is cut. */
const LINGER_MS = 2000;

export interface IdleCloser {
  /** A line was taken for dispatch (a request or a notification). */
  started(): void;
  /** Its handling is over (answered, or a notification done). */
  finished(): void;
}

export function idleCloser(sock: net.Socket, conn: Connection, buffered: () => boolean, quietMs = IDLE_CLOSE_MS): IdleCloser {
  let inFlight = 0;
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  const holds = () => !answered || inFlight > 0 || !!conn.keep || conn.clientId !== undefined || conn.subscriptions.size > 0 || sock.destroyed || conn.closed;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (holds()) return;
    timer = setTimeout(check, quietMs);
  };
  const check = () => {
    timer = undefined;
    if (holds() || buffered()) return;
    // The last reply still on its way out: wait for it, then start the quiet time again.
    if (sock.writableLength > 0) {
      sock.once('drain', arm);
      return;
    }
    sock.end();
    setTimeout(() => sock.destroy(), LINGER_MS).unref();
  };
  // Any byte from the peer (a half line too) means it is still talking.
  sock.on('data', arm);
  sock.once('close', () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  });
  return {
    started() {
      inFlight++;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    finished() {
      inFlight = Math.max(0, inFlight - 1);
      answered = true;
      arm();
    },
  };
}
