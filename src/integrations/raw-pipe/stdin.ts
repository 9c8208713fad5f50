// The bridge's stdin as libuv's pipe handle, when it is a socket: non-blocking without process.stdin, which loads node:net.
//
// A Node-based agent gives its hooks a socketpair on stdin. process.stdin over it is a net.Socket: the first use of
// node:net and node:stream in the process (~5 ms of every call), only to read a few hundred bytes. The handle
// underneath opens fd 0 the same way (uv_pipe_open, which makes it non-blocking), so the payload can be drained with
// a plain read at once (stdin-pipe.ts), and what a writer still sends later is read through the handle itself.
import { EventEmitter } from 'node:events';
import { errName, type Handle, type RawPipeBinding } from './binding.js';

/** What the bridge's payload reader uses of a stream: process.stdin has it, and so does RawStdin. */
export interface ByteSource {
  readonly isTTY?: boolean;
  on(event: 'data', cb: (chunk: Buffer | string) => void): unknown;
  once(event: 'end', cb: () => void): unknown;
  once(event: 'error', cb: (e: Error) => void): unknown;
  removeAllListeners(event: 'data'): unknown;
  destroy(): unknown;
}

export class RawStdin extends EventEmitter implements ByteSource {
  readonly isTTY = false;
  private reading = false;
  private closed = false;

  private constructor(
    private readonly b: RawPipeBinding,
    private readonly h: Handle,
  ) {
    super();
  }

  /** fd opened as a pipe handle (non-blocking from here on), or undefined when libuv will not take it. */
  static open(b: RawPipeBinding, fd: number): RawStdin | undefined {
    let h: Handle | undefined;
    try {
      h = new b.Pipe(b.SOCKET);
      const r = h.open(fd);
      if (typeof r === 'number' && r < 0) throw new Error(errName(r));
      return new RawStdin(b, h);
    } catch {
      // Not closed: a handle that failed to open holds no descriptor, and closing fd 0 here would free it for reuse.
      return undefined;
    }
  }

  /** Starts reading when the first 'data' listener comes, as a paused stream does. */
  override on(event: string | symbol, cb: (...a: any[]) => void): this {
    super.on(event, cb);
    if (event === 'data' && !this.reading && !this.closed) this.start();
    return this;
  }

  private start(): void {
    this.reading = true;
    this.h.onread = (ab) => {
      const n = this.b.state[this.b.kReadBytesOrError]!;
      if (n > 0 && ab) this.emit('data', Buffer.from(ab, this.b.state[this.b.kArrayBufferOffset]!, n));
      else if (n < 0) {
        this.stop();
        if (errName(n) === 'EOF') this.emit('end');
        else this.emit('error', new Error(`read ${errName(n)}`));
      }
    };
    const err = this.h.readStart();
    if (err < 0) queueMicrotask(() => this.emit('error', new Error(`read ${errName(err)}`)));
  }

  private stop(): void {
    if (this.reading) this.h.readStop();
    this.reading = false;
  }

  /** Stops reading and closes the handle (and with it the descriptor), as destroying process.stdin does. */
  destroy(): this {
    if (this.closed) return this;
    this.closed = true;
    this.stop();
    this.h.close();
    return this;
  }

  /** Done without reading through it (the payload came whole): the descriptor stays open, the handle keeps nothing alive. */
  release(): void {
    if (!this.closed) this.h.unref();
  }
}
