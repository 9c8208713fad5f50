#!/usr/bin/env node
// Tiny shim: run the compiled CLI (built by `npm install` through the prepare script); `castellan hook` takes a short cut.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = (rel) => {
  const url = new URL(rel, import.meta.url);
  return existsSync(fileURLToPath(url)) ? url.href : undefined;
};

async function run(argv) {
  if (argv[0] === 'hook') {
    // Agents run this on every tool call. Outside a castellan pane it does nothing (as the CLI's `hook` does),
    // so it stops here; inside one, the bundled bridge (dist/hook/) starts far faster than the CLI.
    if (!process.env.CASTELLAN_ENV && argv.every((a) => !a.startsWith('-'))) return;
    const entry = built('../dist/hook/hook-main.js') ?? built('../dist/integrations/hook-main.js');
    const hook = entry && (await import(entry));
    // No process.exit() after it: on macOS a pipe is written asynchronously, and a cut answer is a lost denial.
    if (hook?.isFastHookArgv(argv)) return void (process.exitCode = await hook.hookMain(argv));
  }
  const main = built('../dist/cli/main.js');
  if (!main) {
    process.stderr.write('castellan: not built yet; run `npm install` (or `npm run build`) in ' + fileURLToPath(new URL('..', import.meta.url)) + '\n');
    process.exit(1);
  }
  await import(main);
}

await run(process.argv.slice(2));
