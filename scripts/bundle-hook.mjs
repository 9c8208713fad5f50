#!/usr/bin/env node
// Bundles the hook bridge's fast entry (dist/integrations/hook-main.js) into dist/hook/ after tsc: the entry and its chunks.
//
// An agent runs `castellan hook` on every tool call; unbundled, Node resolves, reads and links ~150 modules
// (zod alone is 95) before the first line runs, which was most of the bridge's time. A bundle skips that. It is
// split where the code already loads lazily: a state-only event loads the entry (the bridge, ~30 KB) and never
// parses the governance chunk (config, zod, policy: most of the bytes), which tool events load.
// esbuild is a build-time tool (a devDependency): without it the bin falls back to the unbundled entry.
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `${root}dist/integrations/hook-main.js`;
const outdir = `${root}dist/hook`;
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  rmSync(outdir, { recursive: true, force: true });
  process.stderr.write('bundle-hook: esbuild not installed; `castellan hook` runs unbundled (slower start)\n');
  process.exit(0);
}
if (!existsSync(entry)) {
  process.stderr.write(`bundle-hook: ${entry} missing; run tsc first\n`);
  process.exit(1);
}
rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: { 'hook-main': entry },
  outdir,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Loaded only on paths a tool call rarely takes (a hook command to run): they stay separate packages.
  external: ['execa', 'yaml', 'koffi', '@lydell/node-pty', 'ink', 'react', '@xterm/*', '@modelcontextprotocol/*', '@agentclientprotocol/*'],
  // Fully minified: V8 pre-parses the whole file before the first line runs, and this one is measured on every
  // tool call (220 vs 250 ms CPU under load than whitespace-only). The bridge log's stacks name minified code;
  // the same failure runs unbundled with `node dist/cli/main.js hook ...` for a readable one.
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
