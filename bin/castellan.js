#!/usr/bin/env node
// Tiny shim: run the compiled CLI (built by `npm install` through the prepare script); `castellan hook` takes a short cut.
// CommonJS (bin/package.json): agents run `castellan hook` on every event, and a CommonJS main with a CommonJS bridge
// bundle never starts Node's ES module loader (~12 ms of CPU per call); the CLI is imported as ES modules as before.
'use strict';
const fs = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

const built = (rel) => {
  const path = join(__dirname, rel);
  return fs.existsSync(path) ? path : undefined;
};

/**
 * A bundled CommonJS entry with a V8 code cache (Node 20 has no module.enableCompileCache; 22.1+ has, and takes it):
 * the code a call compiled, saved by the first call after each build into the user's state dir (0700, where the
 * bridge log lives), so later calls skip parsing and compiling it. Used for the hook bridge (dist/hook/hook-main.cjs)
 * and the CLI (dist/cli/main.cjs). A cache is used only if it is a regular file of this user's, private, and its first
 * line names this bundle (size, mtime, inode) and this node; V8 checks its own version and flags on top and rejects
 * what does not fit, and a rejected cache is rewritten. CASTELLAN_HOOK_CODE_CACHE=0 (the hook) and
 * CASTELLAN_CLI_CODE_CACHE=0 (the CLI) turn it off. `kind` names the cache file and the importer the bundle's lazy
 * import()s go through.
 */
function requireCached(file, kind) {
  const env = process.env;
  const state = env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'castellan') : env.HOME ? join(env.HOME, '.local', 'state', 'castellan') : undefined;
  if (env[kind === 'hook' ? 'CASTELLAN_HOOK_CODE_CACHE' : 'CASTELLAN_CLI_CODE_CACHE'] === '0' || !state || typeof process.getuid !== 'function') return require(file);
  // node:module only there: loading it costs ~0.5 ms, as much as the cache saves on some calls.
  if (Number(process.versions.node.split('.')[0]) >= 22) {
    try {
      require('node:module').enableCompileCache?.(join(state, 'compile-cache'));
    } catch {
      /* without it, as before */
    }
    return require(file);
  }
  let src, st;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      st = fs.fstatSync(fd);
      src = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return require(file);
  }
  // One file per bundle path and node flags: two checkouts (or two flag sets) in one state dir would otherwise reject
  // and rewrite each other's cache on every call (~5 ms of CPU each time); a rebuild of the same checkout reuses the name.
  const cacheFile = join(state, `${kind}-main-${process.version}-${process.arch}-${shortHash(`${file}\0${process.execArgv.join(' ')}`)}.v8cache`);
  const key = Buffer.from(`castellan ${kind} code cache 1 ${process.version} ${process.arch} ${st.size} ${st.mtimeMs} ${st.ino} ${process.execArgv.join(' ')}\n`);
  const cached = readCache(cacheFile, key);
  const vm = require('node:vm');
  // Compiled by vm.Script, the bundle cannot import() its lazy ES modules on Node 20: it asks for them here.
  globalThis[Symbol.for(`castellan.${kind}Import`)] = (spec) => import(pathToFileURL(join(dirname(file), spec)).href);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${src}\n});`, { filename: file, cachedData: cached });
  const m = { exports: {} };
  // It requires only Node's own modules, which resolve the same from here.
  script.runInThisContext().call(m.exports, m.exports, require, m, file, dirname(file));
  if (!cached || script.cachedDataRejected) process.once('exit', () => writeCache(state, cacheFile, key, script, kind));
  return m.exports;
}

/** FNV-1a of a string, base 36: a file name part, not a check (the cache's first line is the check). */
function shortHash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

function readCache(file, key) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    // Only a file this user wrote and nobody else can touch: V8 runs what it holds.
    if (!st.isFile() || st.uid !== process.getuid() || (st.mode & 0o077) !== 0 || st.size <= key.length || st.size > 32 * 1024 * 1024) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    if (fs.readSync(fd, buf, 0, st.size, 0) !== st.size || !buf.subarray(0, key.length).equals(key)) return undefined;
    return buf.subarray(key.length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeCache(dir, file, key, script, kind) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written aside and renamed: a concurrent hook call reads the old cache or the new one, never half of one.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([key, script.createCachedData()]), { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
    // The one name the cache had before it was per bundle (castellan 0.1 up to ec01304): nothing reads it any more.
    if (kind === 'hook') fs.rmSync(join(dir, `hook-main-${process.version}-${process.arch}.v8cache`), { force: true });
  } catch {
    /* a cache is an optimisation: never an error */
  }
}

async function run(argv) {
  if (argv[0] === 'hook') {
    // Agents run this on every tool call. Outside a castellan pane it does nothing (as the CLI's `hook` does),
    // so it stops here; inside one, the bundled bridge (dist/hook/) starts far faster than the CLI.
    if (!process.env.CASTELLAN_ENV && argv.every((a) => !a.startsWith('-'))) return;
    const bundled = built('../dist/hook/hook-main.cjs');
    const unbundled = bundled ? undefined : built('../dist/integrations/hook-main.js');
    const hook = bundled ? requireCached(bundled, 'hook') : unbundled && (await import(pathToFileURL(unbundled).href));
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
  // The CLI as one CommonJS file with a code cache (scripts/bundle-cli.mjs), when it is of this build: a `tsc` alone
  // since puts the unbundled dist/cli/main.js back, and then main.cjs is stale.
  const fast = built('../dist/cli/main.cjs');
  if (fast && isBundle(main)) return void requireCached(fast, 'cli');
  await import(pathToFileURL(main).href);
}

/** Does this file start with the bundle's mark (scripts/bundle-cli.mjs)? */
function isBundle(file) {
  const mark = '// castellan bundle: scripts/bundle-cli.mjs';
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(mark.length);
      return fs.readSync(fd, buf, 0, mark.length, 0) === mark.length && buf.toString('latin1') === mark;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

void run(process.argv.slice(2));
