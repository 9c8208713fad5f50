// The simulated day, short: 4 hours of a herd's life on an accelerated clock against the real server (bench/scale/soak.ts),
// with its counters asserted (no RSS growth past hour 1, no leaked fds, handles or process listeners, every snapshot
// loadable); and ping's `resources`, the counters it reads, checked to see a leak and to refuse bad params.
// The day itself: `npm run bench -- --scale --soak-hours 8`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closeAll } from '../../bench/lib/cleanup.js';
import { makeTmp, removeTmp } from '../../bench/lib/env.js';
import { runSoak } from '../../bench/scale/soak.js';
import { RawConn, startLimited } from './socket-support.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(`${ROOT}/dist/cli/main.js`);
const linux = process.platform === 'linux';

test('ping with resources counts what the server holds: three more open connections show, bad params are refused', async (t) => {
  const s = await startLimited();
  const open: RawConn[] = [];
  t.after(async () => {
    for (const c of open) c.close();
    await s.stop();
  });
  const probe = await RawConn.connect(s.paths.socket);
  open.push(probe);
  const ping = async (params: unknown) => (await probe.request(Math.floor(Math.random() * 1e9), 'ping', params)) as { result?: { resources?: { handles_total: number; process_listeners: number; rss: number; handles: Record<string, number> } }; error?: { code: string } };
  const plain = await ping({});
  assert.equal(plain.result?.resources, undefined, 'not asked, not sent');
  const before = (await ping({ resources: true })).result!.resources!;
  assert.ok(before.rss > 0 && before.handles_total > 0 && before.process_listeners >= 0);
  for (let i = 0; i < 3; i++) open.push(await RawConn.connect(s.paths.socket));
  await waitFor(async () => (await ping({ resources: true })).result!.resources!.handles_total >= before.handles_total + 3, { timeoutMs: 5000, message: 'three more handles' });
  for (const bad of [{ resources: 'yes' }, { resources: true, extra: 1 }, { resources: 1 }, 'resources']) {
    assert.equal((await ping(bad)).error?.code, 'invalid_params', `refused: ${JSON.stringify(bad)}`);
  }
});

test('a simulated day (4 hours, accelerated): no RSS growth past hour 1, no leaked fds, handles or listeners, every snapshot loadable', { skip: !built ? 'needs npm run build' : !linux ? 'fds are counted from /proc' : false, timeout: 240_000 }, async (t) => {
  const tmp = makeTmp();
  t.after(async () => {
    await closeAll();
    removeTmp(tmp);
  });
  const lines: string[] = [];
  const r = await runSoak({ root: ROOT, tmp, hours: 4, msPerHour: 9000, rssSlackMB: 10, log: (m) => lines.push(m) });
  const why = `\n${lines.join('\n')}`;
  assert.equal(r.samples.length, 4, why);
  assert.ok(r.actions > 40, `the day did things (${r.actions} requests)`);
  assert.ok(r.rssGrowthMB < r.rssSlackMB, `RSS grew ${r.rssGrowthMB.toFixed(1)} MB after hour 1${why}`);
  assert.equal(r.fdGrowth, 0, `fds leaked${why}`);
  assert.equal(r.handleGrowth, 0, `handles or timers leaked${why}`);
  assert.equal(r.listenerGrowth, 0, `process listeners leaked${why}`);
  assert.equal(r.snapshotsLoaded, r.snapshotsTaken, `every hour's snapshot loads${why}`);
});
