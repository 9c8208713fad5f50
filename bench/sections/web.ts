// 11. The web view in Debian's chromium: page load to the herd drawn, an agent's state change to the page, server idle CPU with a page open.
import { existsSync } from 'node:fs';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, median, now, quantile, round, sleep } from '../lib/util.js';

const CHROMIUM = process.env.CASTELLAN_CHROMIUM ?? '/usr/bin/chromium';
const SHELL = ['bash', '--norc', '--noprofile'];
const S = 'web view';

export async function web(b: BenchEnv): Promise<SectionResult> {
  if (!existsSync(CHROMIUM)) {
    log(`web: skipped, no chromium at ${CHROMIUM}`);
    return { rows: [{ section: S, metric: 'page load → herd drawn', unit: 'ms', castellan: NaN, note: 'skipped: no chromium' }], raw: { skipped: true } };
  }
  const { chromium } = await import('playwright-core');
  const s = await CastellanServer.start(b, { cols: 160, rows: 40, command: SHELL });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const loads: number[] = [];
  const changes: number[] = [];
  let cpuPct = NaN;
  try {
    for (let i = 0; i < 5; i++) await s.api.request('pane.split', { pane_id: 'w1:p1', command: SHELL, focus: false });
    const { url } = (await s.api.request('web.pair', { port: 0 })) as { url: string };
    const context = await browser.newContext({ viewport: { width: 390, height: 760 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector('.card');
    const origin = new URL(url).origin;
    for (let i = 0; i < (b.opts.quick ? 5 : 15); i++) {
      const t0 = now();
      await page.goto(`${origin}/`);
      await page.waitForSelector('.card[data-pane="w1:p2"]');
      loads.push(now() - t0);
    }
    for (let i = 0; i < (b.opts.quick ? 20 : 60); i++) {
      const state = i % 2 ? 'idle' : 'blocked';
      const t0 = Date.now();
      await s.api.request('pane.report_agent', { pane_id: 'w1:p2', agent: `w${i}`, state, source: 'api' });
      await page.waitForSelector(`.card[data-pane="w1:p2"][data-state="${state}"]`);
      // The page stamps when it drew the herd (same machine clock): no polling delay of the driver counted.
      const drawn = Number(await page.evaluate(() => document.body.dataset.herdAt));
      changes.push(drawn - t0);
      await sleep(20);
    }
    // Idle: a page open on the herd and a pane open live, nothing happening.
    await page.click('.card[data-pane="w1:p1"] .top');
    await page.waitForFunction(() => document.body.dataset.paneReady === 'w1:p1');
    await sleep(2000);
    const c0 = cpuMs(s.pid);
    const t0 = now();
    await sleep(b.opts.idleSeconds * 1000);
    cpuPct = ((cpuMs(s.pid) - c0) / (now() - t0)) * 100;
  } finally {
    await browser.close();
    await s.stop();
  }
  log(`web: load → herd median ${round(median(loads), 1)} ms, state change → page median ${round(median(changes), 1)} ms, idle server CPU with a page open ${round(cpuPct, 3)} %`);
  const rows: Row[] = [
    { section: S, metric: 'page load → herd drawn (chromium, 6 panes), median', unit: 'ms', castellan: median(loads), note: `p90 ${round(quantile(loads, 0.9), 1)}`, digits: 1 },
    { section: S, metric: 'agent state change → page redrawn, median', unit: 'ms', castellan: median(changes), note: `p90 ${round(quantile(changes, 0.9), 1)}`, digits: 1, target: { max: 300, text: '< 300 ms' } },
    { section: S, metric: 'server CPU, idle, a page and a pane open', unit: '% core', castellan: cpuPct, digits: 3, target: 'near 0', pass: cpuPct < 1 },
  ];
  return { rows, raw: { loadMs: loads.map((x) => round(x, 1)), changeMs: changes, idleCpuPct: cpuPct } };
}
