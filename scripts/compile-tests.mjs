// Compiles the TypeScript the tests load (src, test, bench, scripts) once, to plain ESM under dist-test/, so each test
// process runs JS instead of paying tsx's loader (a hooks thread every import crosses, ~0.5-1 s of CPU per process).
// Each output keeps the meaning it had under tsx:
//   - import.meta.url is the URL of the .ts source, so `new URL('./fixtures/', import.meta.url)`, `new URL('../..', ...)`
//     and createRequire(import.meta.url) find what they found before (the repo, fixtures next to the test);
//   - an inline source map points stack traces at the .ts lines (the runner passes --enable-source-maps);
//   - dist-test/<dir>/<same path>.js, so relative imports ('./support.js' for support.ts) resolve as under tsx.
// Only sources whose content changed since the last compile are transformed again (dist-test/.manifest.json).
// Usage: node scripts/compile-tests.mjs   (run-tests.mjs calls compileTests() itself)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const OUT = 'dist-test';
const DIRS = ['src', 'test', 'bench', 'scripts'];
// Bump when the options below change: every output is rebuilt.
const VERSION = 2;

/** test/a/b.test.ts → dist-test/test/a/b.test.js (both relative to the repo root). */
export function compiledPath(file) {
  return join(OUT, file.replace(/\.tsx?$/, '.js'));
}

/** The inverse, for reporters: dist-test/test/a/b.test.js → test/a/b.test.ts (or .tsx, whichever exists under root). */
export function sourcePath(root, file) {
  if (!file.startsWith(OUT + sep)) return file;
  const base = file.slice(OUT.length + 1).replace(/\.js$/, '');
  return existsSync(join(root, `${base}.tsx`)) && !existsSync(join(root, `${base}.ts`)) ? `${base}.tsx` : `${base}.ts`;
}

// Written whole or not at all: another run-tests.mjs in the same checkout may be importing these files.
let seq = 0;
function writeAtomic(file, text) {
  const tmp = `${file}.${process.pid}.${++seq}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

const walk = (root, dir) => {
  let names;
  try {
    names = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return names.flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : walk(root, p);
    return /\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
};

/**
 * A relative import of a file that is not compiled (a .mjs beside a test, './x.js' for a real x.js) would look for
 * it under dist-test/: such specifiers become the source file's URL. './x.js' for x.ts or x.tsx stays relative.
 */
export function pointAtSources(code, abs) {
  return code.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.\.?\/[^"]+)"/g, (m, lead, spec) => {
    const target = fileURLToPath(new URL(spec, pathToFileURL(abs)));
    const ts = target.replace(/\.js$/, '');
    if (spec.endsWith('.js') && (existsSync(`${ts}.ts`) || existsSync(`${ts}.tsx`))) return m;
    return existsSync(target) ? `${lead}${JSON.stringify(pathToFileURL(target).href)}` : m;
  });
}

/**
 * Brings dist-test/ up to date with the sources under `root`. Returns how many files it transformed and the ms it
 * took. Throws (with esbuild's message, file and line) if a source does not parse.
 */
export async function compileTests(root) {
  const t0 = Date.now();
  const { transform } = await import('esbuild');
  const out = join(root, OUT);
  const manifestFile = join(out, '.manifest.json');
  let manifest = {};
  try {
    const m = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (m.version === VERSION) manifest = m.files;
  } catch {
    /* first compile */
  }
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  const files = DIRS.flatMap((d) => walk(root, d));
  const next = {};
  const todo = [];
  for (const f of files) {
    const source = readFileSync(join(root, f), 'utf8');
    const hash = createHash('sha1').update(source).digest('hex');
    next[f] = hash;
    if (manifest[f] !== hash || !existsSync(join(root, compiledPath(f)))) todo.push({ f, source });
  }
  const errors = [];
  await Promise.all(todo.map(async ({ f, source }) => {
    const abs = join(root, f);
    try {
      const r = await transform(source, {
        loader: f.endsWith('.tsx') ? 'tsx' : 'ts',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        sourcefile: abs,
        sourcesContent: false,
        define: { 'import.meta.url': JSON.stringify(pathToFileURL(abs).href) },
        tsconfigRaw: { compilerOptions: { jsx: tsconfig.compilerOptions.jsx, target: tsconfig.compilerOptions.target, useDefineForClassFields: true } },
      });
      const dest = join(root, compiledPath(f));
      mkdirSync(dirname(dest), { recursive: true });
      writeAtomic(dest, pointAtSources(r.code, abs));
    } catch (e) {
      errors.push(String(e?.message ?? e));
      delete next[f];
    }
  }));
  // Outputs of deleted sources go, so a test cannot pass on a module that no longer exists.
  for (const f of Object.keys(manifest)) if (!(f in next)) rmSync(join(root, compiledPath(f)), { force: true });
  mkdirSync(out, { recursive: true });
  writeAtomic(manifestFile, JSON.stringify({ version: VERSION, files: next }));
  if (errors.length) throw new Error(`compile-tests: ${errors.length} file(s) failed:\n${errors.join('\n')}`);
  return { compiled: todo.length, total: files.length, ms: Date.now() - t0 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = join(dirname(new URL(import.meta.url).pathname), '..');
  const r = await compileTests(root);
  console.log(`compile-tests: ${r.compiled}/${r.total} files in ${r.ms} ms → ${relative(process.cwd(), join(root, OUT)) || OUT}${sep}`);
}
