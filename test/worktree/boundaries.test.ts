// The worktree room's import lines: it never reaches up into the socket layer, the server, the client or the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : /\.tsx?$/.test(n) ? [join(dir, n)] : []));

/** Every module specifier a file imports: static, type-only, re-exports and dynamic import(). */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm)].map((m) => m[1]);
}

test('specifiers() sees every kind of import line', () => {
  assert.deepEqual(specifiers("import { a } from '../api/x.js';\nimport type { B } from \"no\";\nexport { c } from '../server/y.js';\nconst d = await import('../cli/z.js');\nimport './side.js';"), ['../api/x.js', '../server/y.js', '../cli/z.js', './side.js']);
});

test('src/worktree imports nothing from src/api, src/server, src/client or src/cli (the socket layer calls the room, not the other way round)', () => {
  const bad: string[] = [];
  for (const f of walk(join(SRC, 'worktree'))) {
    for (const s of specifiers(readFileSync(f, 'utf8'))) {
      if (/^(\.\.\/)+(api|server|client|cli)\//.test(s)) bad.push(`${f.slice(SRC.length + 1)}: ${s}`);
    }
  }
  assert.deepEqual(bad, []);
});
