#!/usr/bin/env node
// The test files' scheduler (run-tests.mjs starts it): Node's own runner (node:test run()) for each file, `base` files
// at once, and one more while the cores sit idle.
//
// Why not `node --test --test-concurrency=N`: a fixed N. Two files on two cores left them ~30 % idle (measured by
// process accounting over a whole pass): files wait on quiet periods, deadlines, shells and servers starting, and the
// slowest files, started first, wait most (a memory figure 15 s after a fill, echo under link faults). Three at once
// filled that on a quiet machine, but beside other work (load 14-17) latency deadlines failed. So the third slot is
// only opened while the machine's CPUs were more than FILL_IDLE idle over the last IDLE_WINDOW_MS (os.cpus(): every
// process on the machine counts, Linux and macOS alike), never within SETTLE_MS of the last start (a file's first
// seconds start processes), and a loaded machine runs `base` files as before.
//
// Each file's report is written whole when it ends (the spec reporter's text, without its per-file summary), so files
// running at once never interleave their lines; the summary at the end counts every file.
// Input: one JSON argument { entries: [path], base, extra, timeoutMs, namePatterns: [string], record: bool,
// names: {path: label} } (and, for its own test, fillIdle, windowMs, settleMs).
// CASTELLAN_TEST_POOL_TRACE=FILE appends a line per start and end (ms since the pool began, files running, the idle
// share, the file): how the slots were used, beside a CPU sample of the machine (docs/testing.md's figures).
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { cpus } from 'node:os';
import { appendFileSync } from 'node:fs';
import { recordTimes } from './test-times-reporter.mjs';

const cfg = JSON.parse(process.argv[2]);
const FILL_IDLE = cfg.fillIdle ?? 0.35;
const IDLE_WINDOW_MS = cfg.windowMs ?? 3000;
const SETTLE_MS = cfg.settleMs ?? 3000;
const SAMPLE_MS = Math.min(500, IDLE_WINDOW_MS);
const queue = [...cfg.entries];
const label = (f) => cfg.names?.[f] ?? f;
const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failed = [];
const perFile = {};
let running = 0;
let peak = 0;
let filled = 0;
let lastStart = 0;
const t0 = Date.now();

/** CPU time counters of the whole machine, sampled every SAMPLE_MS: [when, idle ms, total ms]. */
const samples = [];
const sample = () => {
  let idle = 0;
  let total = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  samples.push([Date.now(), idle, total]);
  while (samples.length > 2 && samples[1][0] <= Date.now() - IDLE_WINDOW_MS) samples.shift();
};
/** Share of the machine's CPU time that was idle over the window, or 0 until a window has been seen. */
const idleShare = () => {
  const a = samples[0];
  const b = samples[samples.length - 1];
  if (!a || b[0] - a[0] < IDLE_WINDOW_MS - SAMPLE_MS || b[2] <= a[2]) return 0;
  return (b[1] - a[1]) / (b[2] - a[2]);
};

const trace = process.env.CASTELLAN_TEST_POOL_TRACE;
const note = (what, file) => trace && appendFileSync(trace, `${Date.now() - t0} ${what} ${running} ${idleShare().toFixed(2)} ${label(file)}\n`);

function start(file) {
  running++;
  note('start', file);
  peak = Math.max(peak, running);
  lastStart = Date.now();
  const out = [];
  const stream = run({
    files: [file],
    timeout: cfg.timeoutMs,
    ...(cfg.namePatterns?.length ? { testNamePatterns: cfg.namePatterns } : {}),
  });
  const count = (e, what) => {
    if (e.details?.type === 'suite') return;
    totals.tests++;
    if (what === 'fail') {
      if (e.details?.error?.failureType === 'cancelledByParent' || e.details?.error?.failureType === 'testTimeoutFailure') totals.cancelled++;
      else totals.fail++;
      failed.push(`${label(file)}: ${e.name}`);
    } else if (e.skip !== undefined && e.skip !== false) totals.skipped++;
    else if (e.todo !== undefined && e.todo !== false) totals.todo++;
    else totals.pass++;
  };
  const time = (e) => {
    const f = e.file ?? file;
    if (e.nesting === 0) perFile[f] = (perFile[f] ?? 0) + (e.details?.duration_ms ?? 0) / 1000;
  };
  stream.on('test:pass', (e) => (time(e), count(e, 'pass')));
  stream.on('test:fail', (e) => (time(e), count(e, 'fail')));
  (async () => {
    for await (const chunk of stream.compose(spec)) out.push(chunk);
  })()
    .catch((err) => {
      totals.fail++;
      failed.push(`${label(file)}: the runner failed: ${err?.message ?? err}`);
    })
    .finally(() => {
      // The spec reporter ends each run with its own counts ("ℹ tests 12", ..., before its list of failures): the
      // pass's are printed once, below.
      const text = out.join('').replace(/^ℹ tests \d+\nℹ suites \d+\n(ℹ (pass|fail|cancelled|skipped|todo|duration_ms) [^\n]*\n)+/m, '');
      process.stdout.write(`── ${label(file)}\n${text}`);
      running--;
      note('end', file);
      tick();
    });
}

function tick() {
  while (queue.length && running < cfg.base) start(queue.shift());
  if (queue.length && running < cfg.base + cfg.extra && Date.now() - lastStart >= SETTLE_MS && idleShare() > FILL_IDLE) {
    filled++;
    start(queue.shift());
  }
  if (!queue.length && running === 0) finish();
}

function finish() {
  clearInterval(timer);
  if (cfg.record) recordTimes(perFile);
  const s = (Date.now() - t0) / 1000;
  const lines = [
    `ℹ files ${cfg.entries.length} (${cfg.base} at once, up to ${peak}: ${filled} started while the CPUs were idle)`,
    ...Object.entries(totals).map(([k, v]) => `ℹ ${k} ${v}`),
    `ℹ duration_ms ${Math.round(s * 1000)}`,
  ];
  if (failed.length) lines.push('', '✖ failing tests:', ...failed.map((f) => `  ${f}`));
  process.stdout.write(`\n${lines.join('\n')}\n`);
  process.exitCode = totals.fail || totals.cancelled ? 1 : 0;
}

sample();
const timer = setInterval(() => {
  sample();
  tick();
}, SAMPLE_MS);
tick();
