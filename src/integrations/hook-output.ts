// The bridge's stdout and stderr, made on first write: most hook calls print nothing, and each stream costs a handle and a stream to set up.
//
// Node builds process.stdout / process.stderr on first access (a pipe is a net.Socket, a file a sync stream): ~1 ms of
// CPU each on every call of an agent's hook that allows or only reports, for a stream it never writes to.

const guarded = new WeakSet<NodeJS.WriteStream>();

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

export function writeOut(text: string): void {
  guard(process.stdout).write(text);
}

export function writeErr(text: string): void {
  guard(process.stderr).write(text);
}
