// scripts/test-pool.mjs, the suite's scheduler: what it reports must be what ran (a failure is never lost in a summary
// or hidden by a file that ran beside it), a hung file ends in its time, and the extra slot opens only when it may.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNode } from '../support/temp-env.js';

const pool = new URL('../../scripts/test-pool.mjs', import.meta.url).pathname;

function fixtures(files: Record<string, string>): { dir: string; paths: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'cst-pool-'));
  const paths = Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), `import { test } from 'node:test';\nimport { appendFileSync } from 'node:fs';\n${text}\n`);
    return join(dir, name);
  });
  return { dir, paths };
}

async function runPool(cfg: Record<string, unknown>, deadlineMs = 60_000): Promise<{ code: number | null; out: string; ms: number }> {
  const t0 = Date.now();
  // Without NODE_TEST_CONTEXT: this test runs inside Node's runner, which marks its children with it, and a pool that
  // inherited it would report to this runner instead of printing.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k !== 'NODE_TEST_CONTEXT' && v !== undefined)) as Record<string, string>;
  const r = await runNode([pool, JSON.stringify({ base: 2, extra: 0, timeoutMs: 30_000, ...cfg })], { env, cwd: process.cwd(), timeoutMs: deadlineMs });
  const out = r.stdout + r.stderr;
  if (r.timedOut) throw new Error(`the pool did not end in ${deadlineMs} ms:\n${out}`);
  return { code: r.code, out, ms: Date.now() - t0 };
}

/** A file that notes when it started and ended (ms since the epoch) in `log`, holding its slot `holdMs`. */
const timed = (log: string, name: string, holdMs: number) =>
  `test('${name}', async () => { appendFileSync(${JSON.stringify(log)}, '${name} start ' + Date.now() + '\\n'); await new Promise((r) => setTimeout(r, ${holdMs})); appendFileSync(${JSON.stringify(log)}, '${name} end ' + Date.now() + '\\n'); });`;

test('counts every test of every file, names each failure with its file, exits 1, and never interleaves two files', async () => {
  const { dir, paths } = fixtures({
    'good.test.mjs': `for (let i = 0; i < 5; i++) test('good ' + i, async () => { await new Promise((r) => setTimeout(r, 20)); });`,
    'bad.test.mjs': `test('passes', () => {});\ntest('breaks on purpose', () => { throw new Error('boom-marker'); });\ntest('skipped', { skip: 'because' }, () => {});\ntest('todo', { todo: true }, () => {});`,
    'crash.test.mjs': `test('fine', () => {});\nsetTimeout(() => { throw new Error('uncaught-marker'); }, 50);\nawait new Promise((r) => setTimeout(r, 200));`,
  });
  try {
    const names = Object.fromEntries(paths.map((p) => [p, `label-of-${p.split('/').pop()}`]));
    const r = await runPool({ entries: paths, names });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /^ℹ tests \d+$/m);
    assert.match(r.out, /^ℹ skipped 1$/m, r.out);
    assert.match(r.out, /^ℹ todo 1$/m, r.out);
    assert.match(r.out, /^ℹ pass 7$/m, r.out);
    assert.match(r.out, /label-of-bad\.test\.mjs: breaks on purpose/);
    assert.ok(r.out.includes('boom-marker'), "the failure's own text is shown");
    assert.ok(r.out.includes('uncaught-marker'), 'an error outside any test is shown too');
    // Each file's report is one block after its "──" line: no line of another file inside it.
    const blocks = r.out.split(/^── /m).slice(1);
    assert.equal(blocks.length, 3, r.out);
    const good = blocks.find((b) => b.startsWith('label-of-good'))!;
    assert.equal((good.match(/good \d/g) ?? []).length, 5);
    assert.ok(!good.includes('breaks on purpose') && !good.includes('uncaught-marker'));
    // One summary for the pass, not one per file.
    assert.equal((r.out.match(/^ℹ tests /gm) ?? []).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hostile: a file that never ends is failed at its timeout and the pass goes on to the next file', async () => {
  const { dir, paths } = fixtures({
    'hang.test.mjs': `test('hangs', () => new Promise(() => { setInterval(() => {}, 1000); }));`,
    'after.test.mjs': `test('runs after the hang', () => {});`,
  });
  try {
    const r = await runPool({ entries: paths, base: 1, timeoutMs: 2_000 });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /^ℹ cancelled 1$/m, r.out);
    assert.match(r.out, /runs after the hang/);
    assert.ok(r.ms < 20_000, `ended in ${r.ms} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function spans(log: string): Record<string, { start: number; end: number }> {
  const s: Record<string, { start: number; end: number }> = {};
  for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
    const [name, what, at] = line.split(' ');
    s[name] ??= { start: 0, end: 0 };
    s[name][what as 'start' | 'end'] = Number(at);
  }
  return s;
}

test('the extra slot opens only when the CPUs count as idle, and never more than one', async () => {
  const { dir } = fixtures({});
  try {
    for (const [fillIdle, overlap] of [[-1, true], [2, false]] as const) {
      const log = join(dir, `log-${fillIdle}`);
      const f = fixtures({ 'a.test.mjs': timed(log, 'a', 2500), 'b.test.mjs': timed(log, 'b', 2500), 'c.test.mjs': timed(log, 'c', 2500) });
      try {
        const r = await runPool({ entries: f.paths, base: 1, extra: 1, fillIdle, windowMs: 200, settleMs: 300 });
        assert.equal(r.code, 0, r.out);
        const s = spans(log);
        assert.equal(Object.keys(s).length, 3, r.out);
        assert.equal(s.b.start < s.a.end, overlap, `fillIdle ${fillIdle}: b started ${s.b.start - s.a.start} ms after a, a ended at ${s.a.end - s.a.start}`);
        // Never three at once: c waits for a slot.
        assert.ok(s.c.start >= Math.min(s.a.end, s.b.end), 'c started while a and b both ran');
        assert.match(r.out, overlap ? /up to 2: [12] started while the CPUs were idle/ : /up to 1: 0 started while the CPUs were idle/);
      } finally {
        rmSync(f.dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
