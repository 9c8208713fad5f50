// scripts/compile-tests.mjs: the tests run as JS compiled from their .ts, so what they compute from their own location
// (import.meta.url), their relative imports and their stack traces must be what they were under tsx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

type Compiler = {
  OUT: string;
  compiledPath(f: string): string;
  sourcePath(root: string, f: string): string;
  compileTests(root: string): Promise<{ compiled: number; total: number }>;
};
// Through import.meta.url: a static import of a .mjs would be looked for under dist-test/ (see pointAtSources).
const C = (await import(new URL('../../scripts/compile-tests.mjs', import.meta.url).href)) as Compiler;

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cst-compile-'));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { jsx: 'react-jsx', target: 'ES2022' } }));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), text);
  }
  return root;
}

test('a test path maps to its compiled file and back, .ts and .tsx alike', () => {
  assert.equal(C.compiledPath('test/core/reducer.test.ts'), join('dist-test', 'test/core/reducer.test.js'));
  assert.equal(C.compiledPath('test/agents/picker.test.tsx'), join('dist-test', 'test/agents/picker.test.js'));
  const root = tree({ 'test/a.test.ts': '', 'test/b.test.tsx': '' });
  try {
    assert.equal(C.sourcePath(root, C.compiledPath('test/a.test.ts')), 'test/a.test.ts');
    assert.equal(C.sourcePath(root, C.compiledPath('test/b.test.tsx')), 'test/b.test.tsx');
    // A path outside dist-test/ (a run under CASTELLAN_TEST_TSX=1, a batch file) is left as it is.
    assert.equal(C.sourcePath(root, 'test/a.test.ts'), 'test/a.test.ts');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('compiled code sees its source\'s import.meta.url, imports siblings, reaches a .mjs beside it and maps stacks to .ts lines', async () => {
  const root = tree({
    'src/lib.ts': 'export const where = (): string => import.meta.url;\nexport type T = { a: number };\n',
    'test/helper.mjs': 'export const helper = 42;\n',
    'test/x.test.ts': [
      "import { where } from '../src/lib.js';",
      "import { helper } from './helper.mjs';",
      "export const self: string = import.meta.url;",
      'export const lib = where();',
      'export { helper };',
      'export const text = "import.meta.url";',
      '',
      'export function boom(): never {',
      "  throw new Error('boom');",
      '}',
      '',
    ].join('\n'),
    'test/c.test.tsx': 'export const el = <b>hi</b>;\n',
  });
  try {
    const r = await C.compileTests(root);
    assert.deepEqual([r.compiled, r.total], [3, 3]);
    const url = pathToFileURL(join(root, C.compiledPath('test/x.test.ts'))).href;
    const m = (await import(url)) as { self: string; lib: string; helper: number; text: string };
    assert.equal(m.self, pathToFileURL(join(root, 'test/x.test.ts')).href);
    assert.equal(m.lib, pathToFileURL(join(root, 'src/lib.ts')).href);
    assert.equal(m.helper, 42);
    assert.equal(m.text, 'import.meta.url', 'only the expression is replaced, never a string that spells it');
    assert.match(readFileSync(join(root, C.compiledPath('test/c.test.tsx')), 'utf8'), /jsx/);
    // In a child with --enable-source-maps (as run-tests.mjs starts them): the stack names x.test.ts line 9.
    const child = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', `import(${JSON.stringify(url)}).then((m) => m.boom())`], { encoding: 'utf8', timeout: 20_000 });
    assert.match(child.stderr, /x\.test\.ts:9:\d+/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a second compile transforms only what changed and removes the output of a deleted source', async () => {
  const root = tree({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n', 'test/t.test.ts': 'export {};\n' });
  try {
    assert.equal((await C.compileTests(root)).compiled, 3);
    assert.equal((await C.compileTests(root)).compiled, 0);
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 2;\n');
    rmSync(join(root, 'src/b.ts'));
    const r = await C.compileTests(root);
    assert.deepEqual([r.compiled, r.total], [1, 2]);
    assert.match(readFileSync(join(root, C.compiledPath('src/a.ts')), 'utf8'), /a = 2/);
    assert.equal(existsSync(join(root, C.compiledPath('src/b.ts'))), false);
    // An output removed by hand (or a half-written tree) is rebuilt although its source did not change.
    rmSync(join(root, C.compiledPath('test/t.test.ts')));
    assert.equal((await C.compileTests(root)).compiled, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('hostile sources: a file that does not parse fails the compile by name and line, and is retried next time', async () => {
  const root = tree({
    'src/ok.ts': 'export const ok = 1;\n',
    'src/bad.ts': 'export const x = {;\n',
    'src/binary.ts': '\u0000\u0001\u00ff\ufffd',
    'src/deep.ts': `export const d = ${'['.repeat(2000)}${']'.repeat(2000)};\n`,
  });
  try {
    await assert.rejects(C.compileTests(root), (e: Error) => /bad\.ts:1/.test(e.message) && /binary\.ts/.test(e.message));
    assert.equal(existsSync(join(root, C.compiledPath('src/ok.ts'))), true, 'the good files are still written');
    writeFileSync(join(root, 'src/bad.ts'), 'export const x = {};\n');
    writeFileSync(join(root, 'src/binary.ts'), 'export {};\n');
    assert.equal((await C.compileTests(root)).compiled, 2, 'the failed files were not recorded as compiled');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
