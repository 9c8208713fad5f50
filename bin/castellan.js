#!/usr/bin/env node
// Tiny shim: run the compiled CLI (built by `npm install` through the prepare script); `castellan hook` takes a short cut.
// CommonJS (bin/package.json): agents run `castellan hook` on every event, and a CommonJS main with a CommonJS bridge
// bundle never starts Node's ES module loader (~12 ms of CPU per call); the CLI is imported as ES modules as before.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const built = (rel) => {
  const path = join(__dirname, rel);
  return existsSync(path) ? path : undefined;
};

async function run(argv) {
  if (argv[0] === 'hook') {
    // Agents run this on every tool call. Outside a castellan pane it does nothing (as the CLI's `hook` does),
    // so it stops here; inside one, the bundled bridge (dist/hook/) starts far faster than the CLI.
    if (!process.env.CASTELLAN_ENV && argv.every((a) => !a.startsWith('-'))) return;
    const bundled = built('../dist/hook/hook-main.cjs');
    const unbundled = bundled ? undefined : built('../dist/integrations/hook-main.js');
    const hook = bundled ? require(bundled) : unbundled && (await import(pathToFileURL(unbundled).href));
    // Exits once the answer is written out (on macOS a pipe is written asynchronously, and a cut answer is a lost
    // denial), without Node's teardown; the unbundled fallback of an older build may lack it, and then ends as usual.
    if (hook && hook.isFastHookArgv(argv)) {
      const code = await hook.hookMain(argv);
      return void (hook.exitWhenFlushed ? hook.exitWhenFlushed(code) : (process.exitCode = code));
    }
  }
  const main = built('../dist/cli/main.js');
  if (!main) {
    process.stderr.write('castellan: not built yet; run `npm install` (or `npm run build`) in ' + join(__dirname, '..') + '\n');
    process.exit(1);
  }
  await import(pathToFileURL(main).href);
}

void run(process.argv.slice(2));
