// The backoff of `attach --machine` after a lost link: 0.5 s doubling to 8 s, then 8 s for as long as it takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoff } from '../../src/client/reconnect.js';

test('reconnect waits are bounded: 0.5 s doubling to 8 s, never more, even after very many attempts', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((n) => backoff(n)), [500, 1000, 2000, 4000, 8000, 8000, 8000]);
  assert.equal(backoff(1e9), 8000);
  assert.ok(Number.isFinite(backoff(Number.MAX_SAFE_INTEGER)));
});
