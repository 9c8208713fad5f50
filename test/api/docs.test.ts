// docs/api.md is generated from the method table: it must be current (run `npm run docs` after changing a method).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { apiMarkdown } from '../../src/api/docs.js';

test('docs/api.md matches the socket method table', () => {
  const onDisk = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  assert.equal(onDisk, apiMarkdown() + '\n', 'docs/api.md is stale: run `npm run docs`');
});
