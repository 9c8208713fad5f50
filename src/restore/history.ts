// Pane history on disk: lines gzipped off the event loop (zlib's thread pool), and read back with a hard cap on the inflated size.
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { LIMITS } from './schema.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export async function packHistory(lines: readonly string[]): Promise<string> {
  const buf = await gzipAsync(Buffer.from(lines.join('\n'), 'utf8'), { level: 6 });
  return buf.toString('base64');
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
