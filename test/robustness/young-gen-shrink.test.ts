// The server gives its grown V8 young generation back after output stops (src/server/young-gen-shrink.ts), never during it.
//
// Two views: a Node child running only the module (its heap statistics, exact), and a real server filling a pane
// (its RSS, what the user sees). Without the module V8 keeps the grown new space ~50 s after a flood (measured), so
// the deadlines here (well under that) tell the two apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ansiFile } from '../../bench/lib/data.js';
import { tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { nodeChildJson } from '../support/node-child.js';

const MB = 1024 * 1024;
const dist = (p: string) => JSON.stringify(new URL(`../../dist/${p}`, import.meta.url).href);

interface ChildReport {
  grown: number;
  attemptsWhileBusy: number;
  attemptsWhileTyping: number;
  shrankAfterMs: number;
  attempts: number;
  shrinks: number;
  cpuMs: number;
  after: number;
}

/**
 * A child that allocates survivors in 40 ms slices (as parsing a flood does) for busyMs, then (for typingMs) notes a
 * user's key every 150 ms, as a client's input does, with next to no CPU, then idles until new space is small.
 */
async function runChild(busyMs: number, env: Record<string, string> = {}, idleDeadlineMs = 20_000, typingMs = 0): Promise<ChildReport> {
  const code = `
    const y = await import(${dist('server/young-gen-shrink.js')});
    const keys = await import(${dist('server/input-clock.js')});
    const h = y.startYoungGenShrink(process.env);
    let keep = [];
    const t0 = Date.now();
    await new Promise((done) => {
      const slice = () => {
        const s = Date.now();
        while (Date.now() - s < 40) { keep.push({ a: 'x'.repeat(40) + Math.random(), b: [1, 2, 3] }); if (keep.length > 150000) keep = []; }
        if (Date.now() - t0 < ${busyMs}) setImmediate(slice); else done();
      };
      slice();
    });
    keep = null;
    const grown = y.newSpaceBytes();
    const attemptsWhileBusy = h ? h.stats.attempts : -1;
    const typing0 = Date.now();
    await new Promise((done) => {
      const key = () => {
        if (Date.now() - typing0 >= ${typingMs}) return done();
        keys.noteUserInput();
        setTimeout(key, 150);
      };
      key();
    });
    const attemptsWhileTyping = h ? h.stats.attempts - attemptsWhileBusy : -1;
    const idle0 = Date.now();
    const poll = setInterval(() => {
      const small = y.newSpaceBytes() <= 4 * 1024 * 1024;
      if (!small && Date.now() - idle0 < ${idleDeadlineMs}) return;
      clearInterval(poll);
      h?.stop();
      process.stdout.write(JSON.stringify({ grown, attemptsWhileBusy, attemptsWhileTyping, shrankAfterMs: small ? Date.now() - idle0 : -1, attempts: h?.stats.attempts ?? -1, shrinks: h?.stats.shrinks ?? -1, cpuMs: h?.stats.cpuMs ?? -1, after: y.newSpaceBytes() }));
    }, 100);
  `;
  return nodeChildJson<ChildReport>(code, env);
}

test('the young generation grown by 8 s of busy allocation is kept throughout it and given back within seconds of quiet', { timeout: 60_000 }, async (t) => {
  const r = await runChild(8000);
  t.diagnostic(JSON.stringify({ ...r, grown: `${(r.grown / MB).toFixed(1)} MB`, after: `${(r.after / MB).toFixed(1)} MB` }));
  assert.ok(r.grown > 8 * MB, `the busy phase grows new space (else this proves nothing): ${r.grown}`);
  // Never while busy: a GC there would cost the flood's throughput.
  assert.equal(r.attemptsWhileBusy, 0);
  assert.ok(r.shrankAfterMs >= 0, `new space still ${(r.after / MB).toFixed(1)} MB 20 s after the busy phase`);
  // V8 needs 5 s without a GC; one try, three at most (a GC of V8's own may come too close).
  assert.ok(r.shrankAfterMs < 15_000, `shrank only after ${r.shrankAfterMs} ms`);
  assert.ok(r.attempts >= 1 && r.attempts <= 3, `attempts ${r.attempts}`);
  assert.ok(r.shrinks >= 1);
});

test('no full GC while a user types (it stalled an echo ~70 ms): the young generation is given back once typing pauses', { timeout: 60_000 }, async (t) => {
  // 9 s of keys: past V8's 5.5 s without a GC and the 1 s of quiet, when a GC would otherwise run.
  const r = await runChild(3000, {}, 20_000, 9000);
  t.diagnostic(JSON.stringify({ ...r, grown: `${(r.grown / MB).toFixed(1)} MB`, after: `${(r.after / MB).toFixed(1)} MB` }));
  assert.ok(r.grown > 8 * MB, `the busy phase grows new space (else this proves nothing): ${r.grown}`);
  assert.equal(r.attemptsWhileTyping, 0, 'a full GC ran between keys');
  assert.ok(r.shrankAfterMs >= 0 && r.shrankAfterMs < 15_000, `new space still ${(r.after / MB).toFixed(1)} MB ${r.shrankAfterMs} ms after the last key`);
  assert.ok(r.shrinks >= 1);
});

test('CASTELLAN_SERVER_YOUNG_GEN=default leaves V8 alone: no collection, new space stays grown', { timeout: 60_000 }, async () => {
  const r = await runChild(3000, { CASTELLAN_SERVER_YOUNG_GEN: 'default' }, 9000);
  assert.equal(r.attemptsWhileBusy, -1);
  assert.ok(r.grown > 8 * MB, `grown ${r.grown}`);
  assert.equal(r.shrankAfterMs, -1, 'V8 alone keeps it for longer than 9 s');
});

test("a real server's RSS comes back down soon after its first pane fills its scrollback", { timeout: 120_000 }, async (t) => {
  // With Node's own young-generation size: the daemon's default cap (src/server/node-flags.ts) leaves only ~6 MB above
  // the start for this module to give back, too close to RSS noise to tell; uncapped a fill grows it to 2 x 16 MB.
  const env = tempEnvFor(t, { env: { CASTELLAN_SERVER_NODE_FLAGS: '' } });
  const file = ansiFile(join(env.root, 'data'), 2 * MB);
  const start = await env.cli(['server', 'start', '--cols', '202', '--rows', '53', '--', 'sh', '-c', `read _; head -n 10500 "$0"; echo FILL-DONE; exec sleep 100000`, file]);
  assert.equal(start.code, 0, env.logTail());
  const pid = (await env.serverPid())!;
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const api = await env.api();
  const panes = await api.request<{ panes: Array<{ pane_id: string }> }>('pane.list', {});
  const id = panes.panes[0].pane_id;
  await api.request('pane.send_text', { pane_id: id, text: '\r' });
  await waitFor(async () => (await api.request<{ text: string }>('pane.read', { pane_id: id })).text.includes('FILL-DONE'), { timeoutMs: 60_000, intervalMs: 100, message: 'the pane prints its file' });
  const filled = rss();
  let now = filled;
  // Without the module this holds for ~50 s (V8's memory reducer); with it, ~6 s after the output ends.
  await waitFor(() => (now = rss()) < filled - 8 * MB, { timeoutMs: 25_000, intervalMs: 250, message: `server RSS to fall 8 MB below ${(filled / MB).toFixed(1)} MB` }).catch(() => undefined);
  t.diagnostic(`server RSS ${(filled / MB).toFixed(1)} MB right after the fill, ${(now / MB).toFixed(1)} MB once quiet`);
  assert.ok(now < filled - 8 * MB, `server RSS ${(filled / MB).toFixed(1)} MB after the fill, still ${(now / MB).toFixed(1)} MB 25 s later`);
});
