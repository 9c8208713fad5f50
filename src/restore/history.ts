// Pane history on disk: lines gzipped (long ones off the event loop, in zlib's thread pool), and read back with a hard cap on the inflated size.
import { once } from 'node:events';
import { createGzip, gunzip, gzip, type Gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { LIMITS } from './schema.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Below this many bytes of text a packer never starts a stream: one deflate at the end (in zlib's pool) costs less. */
const EAGER_BYTES = 32 * 1024;

/**
 * Part of a pane's history for the snapshot (its lines joined by newlines, gzipped), fed a slice of lines at a time:
 * 10 000 styled lines never sit in memory together as strings (they would outlive enough collections to reach the
 * old generation and stay there, tens of MB of garbage, until a full collection, which a quiet server may not run
 * for minutes). Trailing blank lines are dropped unless `keepBlanks` (a piece with more history after it). A short
 * history never starts a gzip stream (each one cost a snapshot of almost-empty panes ~2 ms per pane, and the zlib
 * state it allocates); its text is deflated once at the end, in zlib's thread pool too: a cold snapshot deflates
 * hundreds of 20 KB pieces, a third of its work, which on the event loop lengthened every slice.
 */
export class HistoryPacker {
  private gz?: Gzip;
  private readonly out: Buffer[] = [];
  private done?: Promise<unknown>;
  /** Text not handed to zlib yet (all of it, for a short history). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Blank lines not written yet: written before the next line that is not blank, dropped at the end. */
  private blanks: string[] = [];
  /** Lines written. */
  lines = 0;
  /** Index of the last line written that is not blank (-1: none). */
  lastText = -1;

  constructor(private readonly o: { keepBlanks?: boolean } = {}) {}

  /** Adds lines; resolves once zlib has taken them. */
  async add(lines: readonly string[]): Promise<void> {
    const parts: string[] = [];
    for (const l of lines) {
      if (!l.trim()) {
        if (this.o.keepBlanks) parts.push(l);
        else this.blanks.push(l);
        continue;
      }
      parts.push(...this.blanks, l);
      this.blanks = [];
      this.lastText = this.lines + parts.length - 1;
    }
    if (!parts.length) return;
    const buf = Buffer.from((this.lines ? '\n' : '') + parts.join('\n'), 'utf8');
    this.lines += parts.length;
    if (!this.gz) {
      this.held.push(buf);
      this.heldBytes += buf.length;
      if (this.heldBytes < EAGER_BYTES) return;
      this.start();
      return;
    }
    if (!this.gz.write(buf)) await once(this.gz, 'drain');
  }

  private start(): void {
    const gz = createGzip({ level: 6 });
    this.gz = gz;
    gz.on('data', (b: Buffer) => this.out.push(b));
    this.done = once(gz, 'end');
    // Awaited by end(); a capture that stopped early (its pane closed) must not leave an unhandled rejection.
    this.done.catch(() => undefined);
    for (const b of this.held) gz.write(b);
    this.held = [];
    this.heldBytes = 0;
  }

  /** The gzip stream (one gzip member). */
  async endBuffer(): Promise<Buffer> {
    if (!this.gz) return gzipAsync(Buffer.concat(this.held), { level: 6 });
    this.gz.end();
    await this.done;
    return Buffer.concat(this.out);
  }

  /** The gzip stream as base64. */
  async end(): Promise<string> {
    return (await this.endBuffer()).toString('base64');
  }

  /** Lets go of zlib (a no-op once ended). */
  abort(): void {
    this.gz?.destroy();
    this.held = [];
  }
}

/** The lines, or undefined for anything that is not a small enough gzip stream (a zip bomb stops at the cap). */
export async function unpackHistory(b64: string): Promise<string[] | undefined> {
  try {
    const out = await gunzipAsync(Buffer.from(b64, 'base64'), { maxOutputLength: LIMITS.historyBytes });
    return out.toString('utf8').split('\n').slice(-LIMITS.historyLines);
  } catch {
    return undefined;
  }
}
