// The bridge's stdout and stderr, made on first write, and its exit once what it wrote has reached the OS.
//
// Node builds process.stdout / process.stderr on first access (a pipe is a net.Socket, a file a sync stream): ~1 ms of
// CPU each on every call of an agent's hook that allows or only reports, for a stream it never writes to.

const guarded = new WeakSet<NodeJS.WriteStream>();
let unflushed = 0;
let flushed: (() => void) | undefined;

/** `castellan hook ... | head`: the reader's choice, not an error worth a stack trace. */
function guard(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!guarded.has(stream)) {
    guarded.add(stream);
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  return stream;
}

function write(stream: NodeJS.WriteStream, text: string): void {
  unflushed++;
  stream.write(text, () => {
    if (--unflushed === 0) flushed?.();
  });
}

export function writeOut(text: string): void {
  write(guard(process.stdout), text);
}

export function writeErr(text: string): void {
  write(guard(process.stderr), text);
}

/**
 * Exits with `code` as soon as every answer written is in the OS's hands (on macOS a pipe is written asynchronously,
 * and a cut answer is a lost denial), skipping Node's teardown of the environment and the heap, which a hook call
 * pays after its last socket closes. Call it only once everything the call must do is done: nothing else is awaited.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  if (unflushed === 0) process.exit(code);
  flushed = () => process.exit(code);
}
