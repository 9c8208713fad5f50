// What governance costs per tool call, in-process: 200 governPreToolUse calls with zero and with three hooks (median reported).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { governPreToolUse } from '../../src/hooks/pipeline.js';
import { hookToml, makeWorld } from './helpers.js';

const w = makeWorld();
after(() => w.cleanup());
const N = 200;

async function medianMs(cwd: string): Promise<number> {
  const times: number[] = [];
  const opts = { env: w.env, paths: w.paths, link: null, audit: false as const };
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const r = await governPreToolUse({ tool: 'shell', argv: ['git', 'status'], agentId: 'bench', cwd }, opts);
    times.push(performance.now() - t);
    assert.equal(r.decision, 'allow');
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(N / 2)];
}

test(`pipeline overhead: median of ${N} calls, zero vs three hooks`, async (t) => {
  const zero = await medianMs(w.project);
  w.write('home/.castellan/config.toml', ['a', 'b', 'c'].map((id) => hookToml({ event: 'PreToolUse', command: 'cat > /dev/null', id })).join('\n'));
  const three = await medianMs(w.project);
  t.diagnostic(`governPreToolUse median: ${zero.toFixed(2)} ms with 0 hooks, ${three.toFixed(2)} ms with 3 hooks`);
  // Loose bounds: a regression guard, not a benchmark.
  assert.ok(zero < 25, `zero hooks: ${zero} ms`);
  assert.ok(three < 300, `three hooks: ${three} ms`);
});
