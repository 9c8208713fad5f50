// The page's files: share/web/ (ours) and xterm.js from node_modules (nothing from a CDN), read once and kept.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
  cache?: boolean;
}

const SHARE = fileURLToPath(new URL('../../share/web/', import.meta.url));

function xtermDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@xterm/xterm/package.json'));
}

/** URL path → where the file is; a fixed table, so no path from a request ever reaches the file system. */
const TABLE: Readonly<Record<string, () => { file: string; type: string; cache?: boolean }>> = {
  '/': () => ({ file: join(SHARE, 'index.html'), type: 'text/html; charset=utf-8' }),
  '/app.js': () => ({ file: join(SHARE, 'app.js'), type: 'text/javascript; charset=utf-8' }),
  '/app.css': () => ({ file: join(SHARE, 'app.css'), type: 'text/css; charset=utf-8' }),
  '/manifest.json': () => ({ file: join(SHARE, 'manifest.json'), type: 'application/manifest+json' }),
  '/vendor/xterm.js': () => ({ file: join(xtermDir(), 'lib', 'xterm.js'), type: 'text/javascript; charset=utf-8', cache: true }),
  '/vendor/xterm.css': () => ({ file: join(xtermDir(), 'css', 'xterm.css'), type: 'text/css; charset=utf-8', cache: true }),
};

const loaded = new Map<string, Asset | null>();

export function assetFor(path: string): Asset | undefined {
  if (!Object.hasOwn(TABLE, path)) return undefined;
  let a = loaded.get(path);
  if (a === undefined) {
    try {
      const { file, type, cache } = TABLE[path]();
      a = { body: readFileSync(file), type, ...(cache ? { cache } : {}) };
    } catch {
      a = null;
    }
    loaded.set(path, a);
  }
  return a ?? undefined;
}
