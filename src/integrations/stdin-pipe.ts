// The hook payload read at once when the agent has already written it and closed stdin: no stream, no event-loop turn.
//
// An agent writes the payload and closes stdin as it spawns the hook, so the whole of it is usually there when the
// bridge starts. Reading it through process.stdin's 'data' and 'end' runs Node's stream machinery for the first time
// in the process and waits for event-loop turns (~5-8 ms on every call here, for a few hundred bytes). Instead, on
// Linux, it is drained synchronously from a descriptor that cannot block: EOF means done; "would block" means the
// writer is still going, and the caller reads the rest through the stream this returns, with its deadline.
// - a pipe (a shell pipeline, a Rust agent): a second, non-blocking descriptor of it (src/platform/proc reopens fd 0);
// - a socketpair (what Node-based agents give: libuv's stdio "pipe"; a socket cannot be reopened): fd 0 itself, once
//   opened as libuv's pipe handle (raw-pipe/stdin.ts, or process.stdin when that is not available), because
//   uv_pipe_open makes it non-blocking; the platform room checks the flag first: a blocking descriptor is never read.
// Anything unusual (another kind, the portable backend, another OS, a read error) returns what was read and leaves the
// rest to the stream.
// Never a read that may block: a read blocked past the deadline (in the main thread, or in the thread pool, which
// keeps the process from exiting even through process.exit on Node 20) is a bridge killed by the agent's hook
// timeout, and that is a tool call waved through.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { fdNonBlocking, reopenStdinNonBlocking } from '../platform/proc/index.js';
import { rawStdin, type ByteSource } from './raw-pipe/index.js';

export interface PipeRead {
  chunks: Buffer[];
  bytes: number;
  /** The writer closed the pipe and every byte is in `chunks`. */
  eof: boolean;
  /** Where the rest is read from when not `eof` (absent: process.stdin). */
  rest?: ByteSource;
}

const CHUNK = 64 * 1024;

/** Is this descriptor's file description non-blocking? (false where the platform cannot tell: never read then.) */
export function isNonBlocking(fd: number): boolean {
  return fdNonBlocking(fd);
}

/** Reads `fd` (non-blocking) until EOF, "would block", an error, or just past `maxBytes`. */
function drain(fd: number, maxBytes: number): PipeRead {
  const r: PipeRead = { chunks: [], bytes: 0, eof: false };
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
}

/**
 * Drains what stdin holds now, up to just past `maxBytes`; undefined when stdin is not one this can read without
 * blocking. `stdinStream` is what a socket stdin is opened as when the raw handle is not available (injectable for tests).
 */
export function readPipeNow(maxBytes: number, stdinStream: () => ByteSource = () => process.stdin): PipeRead | undefined {
  if (process.platform !== 'linux') return undefined;
  let kind: 'fifo' | 'socket' | undefined;
  try {
    const st = fstatSync(0);
    kind = st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : undefined;
  } catch {
    return undefined;
  }
  if (kind === 'socket') return readSocketNow(maxBytes, stdinStream);
  if (kind !== 'fifo') return undefined;
  // A FIFO only: a file would be reopened at offset 0.
  const fd = reopenStdinNonBlocking();
  if (fd === undefined) return undefined;
  try {
    return drain(fd, maxBytes);
  } finally {
    closeSync(fd);
  }
}

function readSocketNow(maxBytes: number, stdinStream: () => ByteSource): PipeRead | undefined {
  let rest: ByteSource;
  const raw = rawStdin();
  try {
    rest = raw ?? stdinStream();
  } catch {
    return undefined;
  }
  if (!isNonBlocking(0)) return { chunks: [], bytes: 0, eof: false, rest };
  const r = drain(0, maxBytes);
  if (r.eof) raw?.release();
  return { ...r, rest };
}
