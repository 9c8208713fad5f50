// The web view across sessions in a real browser (Debian's chromium, phone-sized): the page served by one session's
// server shows the panes of another session too, streams them live, and an answer to the other session's blocked agent
// is carried out (and audited) by that session's server. A session that stops shows its last rows, dimmed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { socketFor } from '../../src/platform/paths.js';
import { REPO, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { readPane, waitForPane } from '../support/api.js';
import { waitFor } from '../support/wait-for.js';
import { fakeAgent } from '../support/asking-agent.js';

const CHROMIUM = process.env.CASTELLAN_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no chromium at ${CHROMIUM} (apt-get install chromium, or set CASTELLAN_CHROMIUM)`;
const SHOTS = process.env.CASTELLAN_WEB_SHOTS ? join(REPO, 'docs', 'images') : undefined;

/** The TempEnv helpers (readPane, waitForPane) pointed at another session's socket. */
function sessionEnv(env: TempEnv, session: string): TempEnv {
  const socket = socketFor(join(env.home, '.config', 'castellan'), session);
  return {
    ...env,
    socket,
    async call<T>(method: string, params?: unknown, timeoutMs = 5000): Promise<T> {
      const c = await ApiClient.connect(socket);
      try {
        return await c.request<T>(method, params, { timeoutMs });
      } finally {
        c.close();
      }
    },
  };
}

test('phone: every session in one page; the second session\'s agent answered there; a stopped session dims', { skip, timeout: 150_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const started = await env.cli(['--session', 'second', 'server', 'start', '--cols', '100', '--rows', '30']);
  assert.equal(started.code, 0, started.stderr);
  const second = sessionEnv(env, 'second');
  t.after(() => second.call('server.stop', {}, 3000).catch(() => undefined));
  const { pane_id: agentPane } = await second.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [fakeAgent(env)] });
  await waitForPane(second, agentPane, (p) => p.agent.state === 'idle', { timeoutMs: 15_000, message: 'agent idle' });

  const paired = await env.cli(['web', '--pair', '--port', '0', '--json']);
  assert.equal(paired.code, 0, paired.stderr);
  const { url } = JSON.parse(paired.stdout) as { url: string };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 390, height: 760 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  t.after(() => assert.deepEqual(pageErrors, [], 'no errors in the page'));
  const frames: string[] = [];
  page.on('websocket', (w) => w.on('framereceived', (f) => {
    const m = JSON.parse(String(f.payload)) as Record<string, unknown>;
    if (m.t === 'frame' || m.t === 'screen') frames.push(JSON.stringify({ t: m.t, scroll: m.scroll, above: Array.isArray(m.above) ? [m.above.length, m.above[0], m.above.at(-1)] : undefined, rows: m.rows && typeof m.rows === 'object' ? Object.keys(m.rows as object).length : undefined, h: Array.isArray(m.history) ? m.history.length : undefined }));
  }));
  await page.goto(url);

  // Both sessions' panes, the other's named with its session.
  const own = '.card[data-pane="w1:p1"]';
  const theirs = (p: string) => `.card[data-pane="second/${p}"]`;
  await page.waitForSelector(own, { timeout: 15_000 });
  await page.waitForSelector(theirs('w1:p1'), { timeout: 15_000 });
  await page.waitForSelector(theirs(agentPane), { timeout: 15_000 });

  // The other session's pane, live: text written there appears in the page.
  await page.click(`${theirs('w1:p1')} .top`);
  await page.waitForFunction(() => document.body.dataset.paneReady === 'second/w1:p1', undefined, { timeout: 10_000 });
  await second.call('pane.send_text', { pane_id: 'w1:p1', text: 'echo from-the-second-session', enter: true });
  await page.waitForFunction(() => (document.querySelector('#term .xterm-rows')?.textContent ?? '').includes('from-the-second-session'), undefined, { timeout: 10_000 });
  // Typing there goes to that session's pane, once turned on.
  await page.check('#typing');
  await page.click('#term');
  await page.keyboard.type('echo typed-into-second');
  await page.keyboard.press('Enter');
  await waitFor(async () => (await readPane(second, 'w1:p1')).some((l) => l === 'typed-into-second'), { timeoutMs: 10_000, message: 'typed into the second session' });
  assert.ok(!(await readPane(env, 'w1:p1')).some((l) => l.includes('typed-into-second')), 'nothing typed into the serving session');
  // A burst of many screens between two frames reaches the page's history whole and in order (from the server's history).
  await second.call('pane.send_text', { pane_id: 'w1:p1', text: 'seq -f burst%g 1 300', enter: true });
  await page.waitForFunction(() => {
    const b = (window as unknown as { castellanTerm: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } }).castellanTerm.buffer.active;
    const got: string[] = [];
    for (let i = 0; i < b.length; i++) {
      const l = b.getLine(i)?.translateToString(true) ?? '';
      if (/^burst\d+$/.test(l)) got.push(l);
    }
    return got.length === 300 && got.every((l, i) => l === `burst${i + 1}`);
  }, undefined, { timeout: 10_000 }).catch(async (e: Error) => {
    const lines = await page.evaluate(() => {
      const b = (window as unknown as { castellanTerm: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } }).castellanTerm.buffer.active;
      const out: string[] = [];
      for (let i = 0; i < b.length; i++) out.push(b.getLine(i)?.translateToString(true) ?? '');
      return out;
    });
    throw new Error(`${e.message}: frames ${frames.join('\n')} the page has ${JSON.stringify(lines.filter((l) => l !== ''))}`);
  });
  await page.click('#back');

  // The second session's agent blocks; one tap answers it there.
  await second.call('pane.send_text', { pane_id: agentPane, text: 'fix the tests', enter: true });
  await waitForPane(second, agentPane, (p) => p.agent.state === 'blocked', { timeoutMs: 15_000, message: 'agent blocked' });
  const approve = `${theirs(agentPane)} button[data-act="approve"]`;
  await page.waitForSelector(approve, { timeout: 10_000 });
  assert.equal(await page.getAttribute('#herd .card', 'data-pane'), `second/${agentPane}`, 'needs me first, whichever session');
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-sessions.png') });
  await page.screenshot({ path: '/tmp/ww/sessions.png' });
  await page.tap(approve);
  await waitFor(async () => (await readPane(second, agentPane)).some((l) => l.includes('approved; running make test')), { timeoutMs: 10_000, message: 'the agent went on' });

  // Audited by the server that carried it out (the second session), with the browser session that tapped.
  const audit = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const paired1 = audit.find((a) => a.kind === 'web' && a.action === 'pair' && a.outcome === 'paired');
  const approved = audit.find((a) => a.kind === 'web' && a.action === 'approve');
  assert.ok(approved, JSON.stringify(audit));
  assert.equal(approved.session, 'second');
  assert.equal(approved.via, 'default');
  assert.equal(approved.pane, agentPane);
  assert.equal(approved.browser_session, paired1?.browser_session);

  // The second session stops: its rows stay, dimmed, and the page says it is not answering.
  await second.call('server.stop', {}, 3000).catch(() => undefined);
  await page.waitForSelector(`${theirs('w1:p1')}.stale`, { timeout: 15_000 });
  await page.waitForSelector('#herd .sources', { timeout: 5000 });
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-stale.png') });
  await page.screenshot({ path: '/tmp/ww/stale.png' });
  await page.waitForSelector(own);
});
