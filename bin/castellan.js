#!/usr/bin/env node
// Tiny shim: run the compiled CLI (built by `npm install` through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('castellan: not built yet; run `npm install` (or `npm run build`) in ' + fileURLToPath(new URL('..', import.meta.url)) + '\n');
  process.exit(1);
}
await import(main.href);
