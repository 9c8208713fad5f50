#!/usr/bin/env node
// Bundles the hook bridge's fast entry (dist/integrations/hook-main.js) into dist/hook/ after tsc: the entry and its chunks.
//
// An agent runs `castellan hook` on every tool call; unbundled, Node resolves, reads and links ~150 modules
// (zod alone is 95) before the first line runs, which was most of the bridge's time. A bundle skips that.
// The hot path (every state event, and a tool event the server decides: hook.decide) is ONE file, hook-main.cjs:
// each further ES module costs a resolve, a read, a compile and a link before the first line runs. What the code
// loads lazily (the governance pipeline with config, zod and policy: most of the bytes; the agent bridge; the
// server link) is a second build in dist/hook/lazy/, reached only when the server cannot decide or is not there.
// esbuild is a build-time tool (a devDependency): without it the bin falls back to the unbundled entry.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Loaded only on paths a tool call rarely takes (a hook command to run): they stay separate packages.
  external: ['execa', 'yaml', 'koffi', 'mvdan-sh', '@lydell/node-pty', 'ink', 'react', '@xterm/*', '@modelcontextprotocol/*', '@agentclientprotocol/*'],
  // Fully minified: V8 pre-parses the whole file before the first line runs, and this one is measured on every
  // tool call (220 vs 250 ms CPU under load than whitespace-only). The bridge log's stacks name minified code;
  // the same failure runs unbundled with `node dist/cli/main.js hook ...` for a readable one.
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};
// The modules the hot path imports lazily (by the path tsc left in dist/integrations), and their entry in lazy/.
const LAZY = { '../hooks/pipeline.js': 'pipeline', './agent-bridge.js': 'agent-bridge', '../hooks/emit.js': 'emit' };
const d = `${root}dist/`;
await esbuild.build({
  ...common,
  entryPoints: { pipeline: `${d}hooks/pipeline.js`, 'agent-bridge': `${d}integrations/agent-bridge.js`, emit: `${d}hooks/emit.js` },
  outdir: `${outdir}/lazy`,
  splitting: true,
  chunkNames: 'chunk-[hash]',
});
// node:os (~0.5 ms to load) serves the hot path only when HOME is unset (paths.ts homedir): required on first use.
// A name the shim lacks fails the build ("No matching export"), so no other use of node:os can slip in eagerly.
const LAZY_OS = 'export function homedir() { return require("node:os").homedir(); }';
const lazyImports = {
  name: 'lazy-imports',
  setup(build) {
    build.onResolve({ filter: /^node:os$/ }, (a) => (a.kind === 'require-call' ? { path: 'node:os', external: true } : { path: 'lazy-os', namespace: 'lazy-os' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-os' }, () => ({ contents: LAZY_OS, loader: 'js' }));
    build.onResolve({ filter: /\.js$/ }, (a) => {
      if (a.kind !== 'dynamic-import' || !Object.hasOwn(LAZY, a.path)) return undefined;
      return { path: `./lazy/${LAZY[a.path]}.js`, external: true };
    });
  },
};
// CommonJS, required by the CommonJS bin: no ES module loader on the hot path. Its lazy imports stay import() of ES modules.
// The bin may run this file through vm.Script with a V8 code cache (bin/castellan.js), where Node 20 cannot import()
// without a flag: the lazy imports go through the importer the bin puts on globalThis, else a plain import()
// (defined last, after "use strict"; nothing calls it before the top level has run).
const footer = "var __hookImport=(s)=>(globalThis[Symbol.for('castellan.hookImport')]??((x)=>import(x)))(s);";
const hotFile = `${outdir}/hook-main.cjs`;
const hot = await esbuild.build({ ...common, format: 'cjs', entryPoints: [entry], outfile: hotFile, plugins: [lazyImports], metafile: true, footer: { js: footer } });
const hotText = readFileSync(hotFile, 'utf8');
const routed = hotText.replaceAll('import("./lazy/', '__hookImport("./lazy/');
if (routed === hotText || routed.split('import(').length !== 2) {
  process.stderr.write('bundle-hook: the lazy imports of hook-main.cjs are not all routed through __hookImport\n');
  process.exit(1);
}
writeFileSync(hotFile, routed);
// A dynamic import the plugin does not know would be inlined into the hot file (esbuild does that without splitting).
const inlined = Object.keys(hot.metafile.inputs).filter((f) => /(^|\/)(zod|smol-toml|re2js)\/|dist\/config\/|dist\/hooks\/pipeline/.test(f));
if (inlined.length) {
  process.stderr.write(`bundle-hook: the hot path took in ${inlined.slice(0, 5).join(', ')}: a lazy import is missing from LAZY\n`);
  process.exit(1);
}
