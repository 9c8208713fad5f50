// The hook payload read at once when the agent has already written it and closed the pipe: no stream, no event-loop turn.
//
// An agent writes the payload and closes stdin as it spawns the hook, so the whole of it is usually in the pipe
// when the bridge starts. Reading it through process.stdin builds a net.Socket and runs Node's stream machinery
// for the first time in the process (~5-6 ms of CPU on every call here, for a few hundred bytes). Instead, on Linux,
// a second, non-blocking descriptor of the same pipe (/proc/self/fd/0) is drained synchronously: EOF means done;
// "would block" means the writer is still going, and the caller reads the rest through the stream, with its deadline.
// Anything unusual (not a pipe, no /proc, another OS, a read error) returns what was read and leaves the rest to the stream.
// Not fs.read on fd 0 for the other cases (a socketpair, which Node-based agents give): a read blocked in the thread
// pool past the deadline keeps the process from exiting, even through process.exit (measured here on Node 20), and a
// bridge killed by the agent's hook timeout is a tool call waved through.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface PipeRead {
  chunks: Buffer[];
  bytes: number;
  /** The writer closed the pipe and every byte is in `chunks`. */
  eof: boolean;
}

const CHUNK = 64 * 1024;

/** Drains what stdin's pipe holds now, up to just past `maxBytes`; undefined when stdin is not a pipe this can read. */
export function readPipeNow(maxBytes: number): PipeRead | undefined {
  if (process.platform !== 'linux') return undefined;
  let fd: number;
  try {
    // A FIFO only: a file would be reopened at offset 0, and a socket cannot be opened through /proc.
    if (!fstatSync(0).isFIFO()) return undefined;
    fd = openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  const r: PipeRead = { chunks: [], bytes: 0, eof: false };
  try {
    while (r.bytes <= maxBytes) {
      const buf = Buffer.allocUnsafe(CHUNK);
      let n: number;
      try {
        n = readSync(fd, buf, 0, CHUNK, null);
      } catch {
        // EAGAIN: nothing more yet. Any other error: the stream's own read reports it.
        return r;
      }
      if (n === 0) {
        r.eof = true;
        return r;
      }
      r.chunks.push(n === CHUNK ? buf : buf.subarray(0, n));
      r.bytes += n;
    }
    return r;
  } finally {
    closeSync(fd);
  }
}
