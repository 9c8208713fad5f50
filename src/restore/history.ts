// Pane history on disk: lines gzipped off the event loop (zlib's thread pool), and read back with a hard cap on the inflated size.
import { once } from 'node:events';
import { createGzip, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { LIMITS } from './schema.js';

const gunzipAsync = promisify(gunzip);

/**
 * A pane's history for the snapshot (its lines joined by newlines, gzipped), fed a slice of lines at a time: its
 * 10 000 styled lines never sit in memory together as strings (they would outlive enough collections to reach the
 * old generation and stay there, tens of MB of garbage, until a full collection, which a quiet server may not run
 * for minutes). Trailing blank lines are dropped.
 */
export class HistoryPacker {
  private readonly gz = createGzip({ level: 6 });
  private readonly out: Buffer[] = [];
  private readonly done: Promise<unknown>;
  /** Blank lines not written yet: written before the next line that is not blank, dropped at the end. */
  private blanks: string[] = [];
  /** Lines written. */
  lines = 0;

  constructor() {
    this.gz.on('data', (b: Buffer) => this.out.push(b));
    this.done = once(this.gz, 'end');
    // Awaited by end(); a capture that stopped early (its pane closed) must not leave an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Adds lines; resolves once zlib has taken them. */
  async add(lines: readonly string[]): Promise<void> {
    const parts: string[] = [];
    for (const l of lines) {
      if (!l.trim()) {
        this.blanks.push(l);
        continue;
      }
      parts.push(...this.blanks, l);
      this.blanks = [];
    }
    if (!parts.length) return;
    const text = (this.lines ? '\n' : '') + parts.join('\n');
    this.lines += parts.length;
    if (!this.gz.write(Buffer.from(text, 'utf8'))) await once(this.gz, 'drain');
  }

  /** The gzip stream as base64. */
  async end(): Promise<string> {
    this.gz.end();
    await this.done;
    return Buffer.concat(this.out).toString('base64');
  }

  /** Lets go of zlib (a no-op once ended). */
  abort(): void {
    this.gz.destroy();
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
