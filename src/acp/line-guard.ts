// Newline-delimited JSON in, size-limited: a line over the limit is dropped whole (and answered), never buffered or fatal.
import { Transform, type TransformCallback } from 'node:stream';

/** The largest message either side may send (file contents pass through ACP, so generous, but bounded). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Passes complete lines through; a line longer than `max` is discarded up to its newline and `onOversize` is told
 * (the proxy answers it with a JSON-RPC error). Memory stays under `max` whatever the peer sends.
 */
export class LineGuard extends Transform {
  private pending: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = '';

  constructor(
    private readonly max: number,
    /** `head`: the line's first bytes (enough to find a request id). */
    private readonly onOversize: (bytes: number, head: string) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      if (!this.dropping) {
        if (this.size + piece.length > this.max + 1) {
          this.dropping = true;
          this.head = Buffer.concat([...this.pending, piece]).subarray(0, 512).toString('utf8');
          this.pending = [];
        } else {
          this.pending.push(piece);
          this.size += piece.length;
        }
      }
      if (this.dropping) this.size += piece.length;
      if (nl === -1) break;
      if (this.dropping) this.onOversize(this.size, this.head);
      else this.push(Buffer.concat(this.pending));
      this.pending = [];
      this.size = 0;
      this.dropping = false;
      start = end;
      if (start >= chunk.length) break;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.dropping) this.onOversize(this.size, this.head);
    else if (this.size) this.push(Buffer.concat(this.pending));
    done();
  }
}
