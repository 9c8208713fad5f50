#!/usr/bin/env node
// Bundles the CLI after tsc: dist/cli/main.js (with the server and the client it loads) becomes an entry whose chunks are in dist/bundle/.
//
// Unbundled, a server loads ~340 modules and an attached client ~460 (es-toolkit alone is 295, zod 95): each is a
// module record, a context and its source kept in memory, and the client's first frame waits for all of them to
// be resolved and linked. Bundled and minified, a server loads ~45 chunks of about half the bytes (all ASCII:
// zod's and xterm's sources are held as two-byte strings otherwise): 87 -> 78 MB RSS for an idle server with one
// pane, 111 -> 92 MB for an attached client (with the client's React in production mode). It is split where the code
// already loads lazily (each command, the server, the client, and Ink behind the client's overlays: ink-door.ts in
// src/client/ui), so a command loads no more than it did. The entry replaces tsc's dist/cli/main.js, so the bin
// needs no choice and a later `tsc` alone puts the unbundled CLI back (never a stale bundle). esbuild is a
// devDependency: an install without it runs unbundled.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `${root}dist/cli/main.js`;
const outdir = `${root}dist`;
// Two levels below the package root, as dist/cli/ and dist/server/ are: paths built from import.meta.url keep working.
const chunkDir = `${root}dist/bundle`;
const MARK = '// castellan bundle: scripts/bundle-cli.mjs';
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write('bundle-cli: esbuild not installed; castellan runs unbundled (more memory, slower start)\n');
  process.exit(0);
}
if (!existsSync(entry)) {
  process.stderr.write(`bundle-cli: ${entry} missing; run tsc first\n`);
  process.exit(1);
}
if (readFileSync(entry, 'utf8').startsWith(MARK)) {
  process.stderr.write('bundle-cli: dist/cli/main.js is already the bundle (run tsc to rebuild it)\n');
  process.exit(0);
}

/** castellan's own modules find files next to them (themes, bin, rules) from import.meta.url: each keeps its own file's URL. */
const ownMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes('import.meta.url')) return undefined;
      const rel = relative(chunkDir, args.path).split('\\').join('/');
      return { contents: src.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * zod's `z.locales` namespace (`export * as locales`) keeps its ~60 translations of the error messages in every
 * process that loads zod (a namespace object's members cannot be tree-shaken): ~250 KB of the ~450 KB zod chunk,
 * parsed and held by the server, the client and each command. castellan's messages are English (zod registers its
 * English locale from locales/en.js itself); the others become functions that say they were left out.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-english-only' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => {
      const names = [...readFileSync(args.path, 'utf8').matchAll(/export \{ default as (\w+) \}/g)].map((m) => m[1]).filter((n) => n !== 'en');
      const gone = (n) => `export const ${n} = () => { throw new Error(${JSON.stringify(`zod locale ${n} is left out of castellan's bundle (scripts/bundle-cli.mjs)`)}); };`;
      return { contents: [`export { default as en } from './en.js';`, ...names.map(gone)].join('\n'), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};


/**
 * The fast entry, dist/cli/main.cjs: the same main (src/cli/main.ts) as ONE CommonJS file that bin/castellan.js
 * requires with a V8 code cache, as the hook bridge is (bundle-hook.mjs). Scripts and agents call `ls`, `pane send`,
 * `pane list`, `herd list` in loops: as ES modules each call paid for Node's ES loader, resolving and compiling ~15
 * chunks and zod's schemas (~110 ms of CPU over a bare `node -e 0`, issue 30). The commands in FAST are bundled into
 * it; every other command stays a lazy import() of its ES module entry in dist/cli/commands/ (built below), so a
 * command loads no more than it did. Built from tsc's dist/cli/main.js, so before the ES build replaces that file.
 */
const FAST = new Set(['pane-list', 'pane-send', 'pane-read', 'pane-focus', 'pane-close', 'pane-rename', 'pane-split', 'window-list', 'window-new', 'herd-list', 'herd-report', 'herd-reset', 'herd-wait', 'session-list', 'server-status', 'server-start', 'new-session', 'attach', 'api-call']);
/** Small modules FAST commands import lazily that are bundled into main.cjs too: `new -d` starts a server through them. */
const FAST_LAZY = new Set(['server/daemon.js', 'cli/restore-choice.js']);
/** What must never be in the fast file: a FAST command that pulls one of these in belongs out of FAST (or needs a lazy import). */
const HEAVY_INPUT = /node_modules[\\/](zod|smol-toml|re2js|yaml|execa|ink|react|@xterm)[\\/]|dist[\\/](config[\\/](load|schema|layers|trust)|hooks[\\/]|server[\\/]session|client[\\/]|restore[\\/](store|schema))/;
const fastFile = `${root}dist/cli/main.cjs`;
/** The ES modules main.cjs imports lazily: each becomes an entry of the ES build, in place of tsc's file. */
const lazyEntries = new Map();
const fastOnly = {
  name: 'fast-commands',
  setup(build) {
    // Every lazy import() of castellan's own code stays lazy: an external import() of its ES module entry (added to the
    // ES build below), except a FAST command's, which is bundled here.
    build.onResolve({ filter: /^\.\.?\// }, (a) => {
      if (a.kind !== 'dynamic-import' || !/[\\/]dist[\\/]/.test(a.importer) || /node_modules/.test(a.importer)) return undefined;
      const target = join(dirname(a.importer), a.path);
      const cmd = relative(`${root}dist/cli/commands`, target).split('\\').join('/');
      if (!cmd.includes('/') && FAST.has(cmd.slice(0, -3))) return undefined;
      if (FAST_LAZY.has(relative(`${root}dist`, target).split('\\').join('/'))) return undefined;
      // Its ES entry lives beside the chunks (dist/bundle/lazy-<path>.js): two levels below the package root as the
      // chunks are, so code placed in the entry finds its files from import.meta.url as theirs does, and tsc's own
      // dist/ files stay as they are (the unbundled fallback, and what the module-graph tests read).
      const name = `lazy-${relative(`${root}dist`, target).split('\\').join('/').slice(0, -3).replaceAll('/', '-')}`;
      lazyEntries.set(name, target);
      return { path: `../bundle/${name}.js`, external: true };
    });
    // castellan's modules find files next to them from import.meta.url (version.ts: ../package.json): each keeps its
    // own file's place, seen from dist/cli/ where this file is.
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes('import.meta.url')) return undefined;
      const rel = relative(`${root}dist/cli`, args.path).split('\\').join('/');
      return { contents: src.replaceAll('import.meta.url', `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(rel)})).href`), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
const fastBuilt = await esbuild.build({
  entryPoints: [entry],
  outfile: fastFile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['@lydell/node-pty', 'koffi', 'react-devtools-core', 'mvdan-sh'],
  plugins: [fastOnly],
  // The other commands (and the server, the client, the snapshot store) stay import()s of ES modules; the bin may run
  // this file through vm.Script, where Node 20 cannot import() without a flag: they go through the importer the bin
  // puts on globalThis, else a plain import() (as bundle-hook.mjs does).
  // A Node module (`await import('node:readline/promises')`, loaded only when needed) is required as it is.
  footer: { js: "function __cliImport(s){return s.startsWith('node:')?Promise.resolve().then(()=>require(s)):(globalThis[Symbol.for('castellan.cliImport')]??((x)=>import(x)))(s)}" },
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
{
  const text = readFileSync(fastFile, 'utf8');
  const routed = text.replaceAll('import("', '__cliImport("');
  if (routed.split('import(').length !== 2 || routed.includes('import.meta')) {
    process.stderr.write('bundle-cli: main.cjs has an import() or import.meta not routed through the bin\n');
    process.exit(1);
  }
  writeFileSync(fastFile, `${MARK}\n${routed}`);
  const heavy = Object.keys(fastBuilt.metafile.inputs).filter((f) => HEAVY_INPUT.test(f));
  if (heavy.length) {
    process.stderr.write(`bundle-cli: the fast CLI entry took in ${heavy.slice(0, 5).join(', ')}: make that import lazy or take the command out of FAST\n`);
    process.exit(1);
  }
}

rmSync(chunkDir, { recursive: true, force: true });
const built = await esbuild.build({
  // What main.cjs imports lazily (every command it does not carry, the server, the client) is an entry too: dist/bundle/lazy-*.js.
  entryPoints: {
    'cli/main': entry,
    ...Object.fromEntries([...lazyEntries].map(([name, f]) => [`bundle/${name}`, f])),
  },
  outdir,
  allowOverwrite: true,
  splitting: true,
  chunkNames: 'bundle/chunk-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addons load their .node files relative to their own package; react-devtools-core is Ink's DEV=true only (not installed).
  external: ['@lydell/node-pty', 'koffi', 'react-devtools-core', 'mvdan-sh'],
  // CommonJS packages bundled into ESM call require() for Node built-ins: give the chunks a real one.
  banner: { js: MARK + "\nimport { createRequire as __castellanRequire } from 'node:module'; const require = __castellanRequire(import.meta.url);" },
  // React and its reconciler pick a build from NODE_ENV; the client sets production before it loads them, so their
  // development builds (the bigger half of the client's chunk) need not be parsed and kept at all.
  define: { 'process.env.NODE_ENV': '"production"' },
  // ...and that assignment (src/cli/commands/attach.ts) stays: the unbundled CLI needs it.
  logOverride: { 'assign-to-define': 'silent' },
  plugins: [ownMetaUrl, zodEnglishOnly],
  minify: true,
  keepNames: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // CASTELLAN_BUNDLE_META=FILE: esbuild's metafile (which module went into which chunk), to see what a process loads.
  metafile: Boolean(process.env.CASTELLAN_BUNDLE_META),
});
if (process.env.CASTELLAN_BUNDLE_META) writeFileSync(process.env.CASTELLAN_BUNDLE_META, JSON.stringify(built.metafile));
