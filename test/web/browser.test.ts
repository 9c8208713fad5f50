// The web view in a real browser (Debian's chromium, phone-sized): pair, see the herd, watch a pane, answer a blocked agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { BIN, REPO, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { readPane, waitForPane } from '../support/api.js';
import { waitFor } from '../support/wait-for.js';
import { fakeAgent } from '../support/asking-agent.js';

const CHROMIUM = process.env.CASTELLAN_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no chromium at ${CHROMIUM} (apt-get install chromium, or set CASTELLAN_CHROMIUM)`;
const SHOTS = process.env.CASTELLAN_WEB_SHOTS ? join(REPO, 'docs', 'images') : undefined;

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('phone: pair, see the herd, watch a pane live, answer a blocked agent, get a notification', { skip, timeout: 120_000 }, async (t) => {
  const { chromium } = await import('playwright-core');
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '100', '--rows', '30'])).code, 0);
  const agent = fakeAgent(env);
  const { pane_id: agentPane } = await env.call<{ pane_id: string }>('pane.split', { pane_id: 'w1:p1', command: [agent] });
  await waitForPane(env, agentPane, (p) => p.agent.state === 'idle', { timeoutMs: 15_000, message: 'agent idle' });

  const paired = await env.cli(['web', '--pair', '--port', '0', '--json']);
  assert.equal(paired.code, 0, paired.stderr);
  const { url } = JSON.parse(paired.stdout) as { url: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/pair#[A-Za-z0-9_-]{43}$/);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 390, height: 760 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  // Records notifications (headless chromium has no notification centre to look at).
  // (a string: tsx would wrap a function's classes in helpers the page does not have)
  await context.addInitScript({
    content: "window.__notes = []; window.Notification = class { static permission = 'granted'; static requestPermission() { return Promise.resolve('granted'); } constructor(title) { window.__notes.push(title); } };",
  });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  t.after(() => assert.deepEqual(pageErrors, [], 'no errors in the page'));
  await page.goto(url);
  // Paired: the token left the address bar and the herd is drawn.
  await page.waitForSelector(`.card[data-pane="${agentPane}"]`, { timeout: 15_000 });
  assert.equal(new URL(page.url()).hash, '');
  assert.ok(requests.every((r) => r.startsWith(new URL(url).origin)), `nothing from elsewhere: ${requests.join(' ')}`);
  const cookies = await context.cookies();
  assert.equal(cookies.find((c) => c.name === 'castellan_web')?.httpOnly, true);
  assert.equal(cookies.find((c) => c.name === 'castellan_web')?.sameSite, 'Strict');
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-herd.png') });
  // A half-written prompt survives the herd being pushed again (another pane changed state).
  const input = `.card[data-pane="${agentPane}"] input[type=text]`;
  await page.fill(input, 'half-written');
  await env.call('pane.report_agent', { pane_id: 'w1:p1', agent: 'other', state: 'working', source: 'api' });
  await page.waitForSelector('.card[data-pane="w1:p1"][data-state="working"]');
  assert.equal(await page.inputValue(input), 'half-written');
  await page.fill(input, '');
  await env.call('pane.reset_agent', { pane_id: 'w1:p1' });

  // A pane, live: text written into it appears in the page's xterm.js.
  await page.click(`.card[data-pane="w1:p1"] .top`);
  await page.waitForFunction(() => document.body.dataset.paneReady === 'w1:p1');
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'echo seen-from-the-phone', enter: true });
  await page.waitForFunction(() => (document.querySelector('#term .xterm-rows')?.textContent ?? '').includes('seen-from-the-phone'), undefined, { timeout: 10_000 });
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-pane.png') });
  // Output that scrolls past the screen while the page watches lands in the page's own history, in order.
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'for i in $(seq 1 40); do echo line$i; sleep 0.05; done', enter: true });
  await waitFor(async () => (await readPane(env, 'w1:p1')).includes('line40'), { timeoutMs: 15_000, message: 'loop done' });
  await page.waitForFunction(() => {
    const b = (window as unknown as { castellanTerm: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } }).castellanTerm.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '');
    const got = lines.filter((l) => /^line\d+$/.test(l));
    return got.length === 40 && got.every((l, i) => l === `line${i + 1}`);
  }, undefined, { timeout: 10_000 });
  // Read-only until typing is turned on for the pane: keys before that reach nothing.
  await page.click('#term');
  await page.keyboard.type('echo not-typed');
  await page.keyboard.press('Enter');
  await page.check('#typing');
  await page.click('#term');
  await page.keyboard.type('echo typed-on-the-phone');
  await page.keyboard.press('Enter');
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l === 'typed-on-the-phone'), { timeoutMs: 10_000, message: 'typed into the pane' });
  assert.ok(!(await readPane(env, 'w1:p1')).some((l) => l.includes('not-typed')), 'nothing typed before typing was on');
  await page.click('#back');

  // The agent asks; the page puts it first, notifies, and one tap answers it as the agent's own Enter.
  await env.call('pane.send_text', { pane_id: agentPane, text: 'fix the tests', enter: true });
  await waitForPane(env, agentPane, (p) => p.agent.state === 'blocked', { timeoutMs: 15_000, message: 'agent blocked' });
  const approve = `.card[data-pane="${agentPane}"] button[data-act="approve"]`;
  await page.waitForSelector(approve, { timeout: 10_000 });
  assert.equal(await page.getAttribute('#herd .card', 'data-pane'), agentPane, 'needs me first');
  await page.waitForFunction(() => (window as unknown as { __notes: string[] }).__notes.some((n) => n.includes('needs you')), undefined, { timeout: 5000 }).catch(async (e: Error) => {
    throw new Error(`${e.message}: notes ${await page.evaluate(() => JSON.stringify((window as unknown as { __notes: string[] }).__notes))}; errors ${pageErrors.join('; ')}`);
  });
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-blocked.png') });
  const box = await page.locator(approve).boundingBox();
  assert.ok(box && box.height >= 44, 'a target a thumb can hit');
  await page.tap(approve);
  await waitFor(async () => (await readPane(env, agentPane)).some((l) => l.includes('approved; running make test')), { timeoutMs: 10_000, message: 'the agent went on' });
  await waitForPane(env, agentPane, (p) => p.agent.state === 'done' || p.agent.state === 'idle', { timeoutMs: 10_000, message: 'turn finished' });
  await page.waitForSelector(`.card[data-pane="${agentPane}"][data-state="done"], .card[data-pane="${agentPane}"][data-state="idle"]`, { timeout: 10_000 });
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-answered.png') });

  // The answer is in the audit log with the browser session that gave it.
  const audit = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const approved = audit.find((a) => a.kind === 'web' && a.action === 'approve');
  assert.ok(approved && /^b[0-9a-f]{8}$/.test(String(approved.browser_session)) && approved.pane === agentPane, JSON.stringify(audit));

  // A prompt typed to the idle agent starts its next turn; this time it is refused with a message, typed after its Escape.
  await page.fill(`.card[data-pane="${agentPane}"] input[type=text]`, 'second task');
  await page.tap(`.card[data-pane="${agentPane}"] button[type=submit]`);
  await waitFor(async () => (await readPane(env, agentPane)).some((l) => l.includes('working on: second task')), { timeoutMs: 10_000, message: 'prompt typed' });
  await waitForPane(env, agentPane, (p) => p.agent.state === 'blocked', { timeoutMs: 15_000, message: 'blocked again' });
  page.once('dialog', (d) => void d.accept('use make check instead'));
  await page.tap(`.card[data-pane="${agentPane}"] button[data-act="deny-message"]`);
  await waitFor(async () => (await readPane(env, agentPane)).some((l) => l.includes('refused: use make check instead')), { timeoutMs: 10_000, message: 'deny with a message' });

  // A governance question (policy "prompt", asked through ui.ask as the hook bridge does) is answered on the phone.
  const asked = env.call<{ answer: string; reason: string }>('ui.ask', { title: 'Bash', message: 'git push --force', timeout_ms: 20_000, pane_id: agentPane });
  await page.waitForSelector('.card.ask button[data-act="allow"]', { timeout: 10_000 });
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'web-ask.png') });
  await page.tap('.card.ask button[data-act="allow"]');
  assert.deepEqual(await asked, { answer: 'allow', reason: 'allowed in the castellan UI' });
  await page.waitForSelector('.card.ask', { state: 'detached', timeout: 5000 });

  // Revoked: the page is signed out at once.
  assert.equal((await env.cli(['web', '--revoke'])).code, 0);
  await page.waitForSelector('#conn.bad', { timeout: 5000 });
  const actions = readFileSync(join(env.stateDir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((a) => a.kind === 'web');
  const acts = actions.map((a) => a.action).filter((a) => a !== 'keys');
  assert.deepEqual(acts, ['pair', 'typing_on', 'approve', 'prompt', 'deny', 'ask_allow', 'revoke']);
  assert.ok(actions.some((a) => a.action === 'keys' && a.pane === 'w1:p1'), 'keys audited');
  assert.equal(actions.find((a) => a.action === 'deny')?.message, 'use make check instead');
  assert.equal(new Set(actions.filter((a) => a.action !== 'pair' && a.action !== 'revoke').map((a) => a.browser_session)).size, 1, 'one browser session did them all');
});

test('1,000 pairing attempts are refused, nothing is typed, and the server still answers ping at once', { timeout: 120_000 }, async (t) => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  const env = tempEnvFor(t);
  assert.equal((await env.cli(['server', 'start', '--cols', '80', '--rows', '24'])).code, 0);
  // Plain HTTP off loopback is refused with a reason, and nothing listens.
  const open = await env.cli(['web', '--bind', '0.0.0.0', '--port', '0']);
  assert.equal(open.code, 1, open.stdout);
  assert.match(open.stderr, /refusing to serve plain HTTP on 0\.0\.0\.0/);
  assert.equal((await env.cli(['web', '--port', 'x'])).code, 2);
  const r = await env.cli(['web', '--pair', '--port', '0', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const { url } = JSON.parse(r.stdout) as { url: string };
  const origin = new URL(url).origin;
  // Already serving: other settings are not silently ignored.
  const again = await env.cli(['web', '--port', '1']);
  assert.equal(again.code, 0);
  assert.match(again.stderr, /already serving with other settings/);
  const before = await readPane(env, 'w1:p1');
  const statuses: number[] = [];
  for (let i = 0; i < 1000; i += 50) {
    const batch = Array.from({ length: 50 }, (_, j) => post(`${origin}/api/pair`, JSON.stringify({ token: `${'Z'.repeat(40)}${String(i + j).padStart(3, '0')}` }), { origin }));
    statuses.push(...(await Promise.all(batch)));
  }
  assert.equal(statuses.length, 1000);
  assert.ok(statuses.every((s) => s === 403 || s === 429), [...new Set(statuses)].join(','));
  assert.ok(statuses.filter((s) => s === 429).length >= 980, 'rate-limited after the first few');
  const t0 = performance.now();
  await env.call('ping');
  const ms = performance.now() - t0;
  assert.ok(ms < 500, `ping took ${ms} ms`);
  // Even the good token waits out the window: guessing cannot race it.
  assert.equal(await post(`${origin}/api/pair`, JSON.stringify({ token: new URL(url).hash.slice(1) }), { origin }), 429);
  assert.deepEqual(await readPane(env, 'w1:p1'), before, 'nothing typed');
});
