// Newline-JSON requests over libuv's own pipe handle (Node's pipe_wrap binding), without node:net and node:stream.
//
// The hook bridge makes one connection, writes two requests and reads two short replies, on every tool call of
// every agent. node:net costs it ~4-5 ms to load (it pulls in the whole of node:stream) and its Socket another few ms
// of CPU to connect, write, read and tear down; the handle underneath does the same work in a fraction of that.
// The binding is Node's internal interface (process.binding's allow-list in Node 20, not a public API), so it is
// taken only when it has exactly the shape used here (binding.ts), and the door (index.ts) falls back to the
// platform's RpcClient otherwise: a mismatch costs speed, never an answer.
import { NotRunningError, RpcError } from '../../platform/rpc-error.js';
import { PendingReplies } from '../../platform/rpc-replies.js';
import { errName, type Handle, type RawPipeBinding } from './binding.js';

/** A reply line longer than this is not from a castellan server answering the bridge (its replies are < 1 KB). */
export const RAW_MAX_REPLY_BYTES = 4 * 1024 * 1024;

export class RawPipeClient {
  private seq = 0;
  private readonly replies = new PendingReplies();
  /** Bytes of the line being received, not yet ended by a newline. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Write requests in flight: held so they live until libuv completes them. */
  private readonly writes = new Set<object>();
  closed = false;

  private constructor(
    private readonly b: RawPipeBinding,
    private readonly h: Handle,
  ) {}

  /** Connects within `timeoutMs`; rejects with NotRunningError when nothing listens there. */
  static connect(b: RawPipeBinding, path: string, timeoutMs: number): Promise<RawPipeClient> {
    return new Promise((resolve, reject) => {
      const h = new b.Pipe(b.SOCKET);
      const req = new b.PipeConnectWrap();
      const fail = (status: number) => {
        clearTimeout(t);
        h.close();
        const name = errName(status);
        reject(name === 'ENOENT' || name === 'ECONNREFUSED' ? new NotRunningError(path) : new RpcError(name, `connect ${name} ${path}`));
      };
      const t = setTimeout(() => {
        req.oncomplete = () => undefined;
        h.close();
        reject(new NotRunningError(path, `connect timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      req.oncomplete = (status) => {
        if (status < 0) return fail(status);
        clearTimeout(t);
        const c = new RawPipeClient(b, h);
        const err = c.start();
        if (err < 0) return fail(err);
        resolve(c);
      };
      const err = h.connect(req, path);
      if (err < 0) fail(err);
    });
  }

  private start(): number {
    this.h.onread = (ab) => this.onRead(ab);
    return this.h.readStart();
  }

  private onRead(ab: ArrayBuffer | undefined): void {
    const n = this.b.state[this.b.kReadBytesOrError]!;
    if (n === 0) return;
    // EOF or a read error: the server is gone; what is pending fails (the caller decides without it).
    if (n < 0 || !ab) return this.shut('connection to the server closed');
    let chunk = Buffer.from(ab, this.b.state[this.b.kArrayBufferOffset]!, n);
    for (let i = chunk.indexOf(10); i !== -1 && !this.closed; i = chunk.indexOf(10)) {
      const line = Buffer.concat([...this.partial, chunk.subarray(0, i)]).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
      chunk = chunk.subarray(i + 1);
      this.onLine(line);
    }
    if (this.closed || !chunk.length) return;
    this.partialBytes += chunk.length;
    // Copied: a view would keep the whole of the read buffer (64 KB a read) alive while the line is incomplete.
    this.partial.push(Buffer.from(chunk));
    if (this.partialBytes > RAW_MAX_REPLY_BYTES) this.shut(`a reply longer than ${RAW_MAX_REPLY_BYTES} bytes`);
  }

  private onLine(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg && typeof msg === 'object') this.replies.settle(msg);
  }

  /** Sends a request; resolves with its result, rejects with RpcError (an error reply, `timeout`, a closed connection). */
  request<T = unknown>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    if (this.closed) return Promise.reject(new RpcError('shutting_down', 'connection to the server closed'));
    const id = String(++this.seq);
    const reply = this.replies.wait<T>(id, method, timeoutMs);
    const w = new this.b.WriteWrap();
    w.handle = this.h;
    w.async = false;
    w.oncomplete = (status) => {
      this.writes.delete(w);
      if (status < 0) this.shut(`write failed: ${errName(status)}`);
    };
    this.writes.add(w);
    const err = this.h.writeUtf8String(w, `${JSON.stringify({ id, method, params })}\n`);
    if (err < 0) this.shut(`write failed: ${errName(err)}`);
    // Written at once (the usual case for a short line): libuv calls nothing back for it.
    else if (!this.b.state[this.b.kLastWriteWasAsync]) this.writes.delete(w);
    return reply;
  }

  private shut(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.h.readStop();
    this.h.close();
    this.replies.failAll(why);
  }

  close(): void {
    this.shut('connection closed by the client');
  }
}
