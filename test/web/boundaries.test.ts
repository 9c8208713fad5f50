// The web and notify rooms' import lines: they never reach into the socket layer, the server, the client or the CLI; ws and qrcode enter through src/web only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : /\.tsx?$/.test(n) ? [join(dir, n)] : []));
const specifiers = (text: string): string[] => [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm)].map((m) => m[1]);

test('src/web and src/notify import nothing from src/api, src/server, src/client or src/cli', () => {
  const bad: string[] = [];
  for (const room of ['web', 'notify']) {
    for (const f of walk(join(SRC, room))) {
      for (const s of specifiers(readFileSync(f, 'utf8'))) if (/^(\.\.\/)+(api|server|client|cli)\//.test(s)) bad.push(`${f.slice(SRC.length + 1)}: ${s}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('ws and qrcode are imported only inside src/web; everything else goes through its door (index.ts)', () => {
  const bad: string[] = [];
  for (const f of walk(SRC)) {
    const rel = f.slice(SRC.length + 1);
    for (const s of specifiers(readFileSync(f, 'utf8'))) {
      if ((s === 'ws' || s === 'qrcode') && !rel.startsWith('web/')) bad.push(`${rel}: ${s}`);
      if (/\/web\/(?!index\.js$)/.test(s) && !rel.startsWith('web/')) bad.push(`${rel}: ${s}`);
    }
  }
  assert.deepEqual(bad, []);
});
