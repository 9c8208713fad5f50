// Socket fuzzer: thousands of bad requests at a real server; every reply must be a clean, coded error and the server must stay quick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { ERROR_CODES } from '../../src/api/errors.js';
import { pidAlive, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';
import { type FuzzCase, genericCases, methodCases, rng } from './socket-fuzz-cases.js';
import { type Msg, RawConn } from './socket-support.js';

const SEED = 11;
const PER_METHOD = 90;
const BATCH = 100;

/** A reply's identity for comparing what came back with what should have: id (long ones shortened) and code. */
const key = (id: unknown, code: string) => {
  const s = JSON.stringify(id) ?? String(id);
  return `${s.length > 60 ? `${s.slice(0, 40)}…(${s.length} chars)` : s} ${code}`;
};

/** A well-formed error reply: exactly {id, error:{code, message[, data]}}, a known snake_case code. */
function malformed(m: Msg): string | undefined {
  if (m.malformed !== undefined) return `not JSON: ${m.malformed}`;
  const keys = Object.keys(m).sort().join(',');
  if (keys !== 'error,id') return `keys ${keys}`;
  if (m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') return `id ${JSON.stringify(m.id)}`;
  const e = m.error as Record<string, unknown>;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') return 'error without code and message';
  if (!(ERROR_CODES as readonly string[]).includes(e.code) || !/^[a-z]+(_[a-z]+)*$/.test(e.code)) return `unknown code ${e.code}`;
  if (Object.keys(e).some((k) => !['code', 'message', 'data'].includes(k))) return `error keys ${Object.keys(e)}`;
  return undefined;
}

/**
 * Pings the server on its own connection every 10 ms while the fuzz runs, from a separate process so
 * the fuzzer's own work (building megabyte lines) does not count: the slowest round trip shows a stall.
 */
const MONITOR = String.raw`
const net = require('net');
const rtts = []; let failure; let n = 0; let buf = ''; let sent = 0; let stop = false;
const c = net.connect(process.argv[1]);
c.setEncoding('utf8');
const ping = () => { if (stop) return; sent = performance.now(); c.write(JSON.stringify({ id: 'm' + (++n), method: 'ping' }) + '\n'); };
const timer = setInterval(() => { if (sent && performance.now() - sent > 5000) failure = 'no pong in 5 s'; }, 500);
c.on('connect', ping);
c.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\n')) !== -1; buf = buf.slice(i + 1)) {
    const m = JSON.parse(buf.slice(0, i));
    if (m.result && m.result.pong) { rtts.push(performance.now() - sent); sent = 0; setTimeout(ping, 10); }
  }
});
c.on('error', (e) => { failure = e.message; });
process.stdin.on('data', () => {}).on('end', () => {
  stop = true; clearInterval(timer); c.destroy();
  rtts.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ n: rtts.length, max: rtts[rtts.length - 1], p99: rtts[Math.floor(rtts.length * 0.99)], failure }));
});
`;

function pingMonitor(socket: string) {
  const child = spawn(process.execPath, ['-e', MONITOR, socket], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    async finish(): Promise<{ n: number; max: number; p99: number; failure?: string }> {
      child.stdin!.end();
      await exited;
      return JSON.parse(out);
    },
  };
}

/** Sends a batch pipelined on one connection; returns what went wrong. */
async function runBatch(socket: string, batch: FuzzCase[], tag: string): Promise<string[]> {
  const c = await RawConn.connect(socket);
  try {
    c.write(Buffer.concat([...batch.map((x) => x.line), Buffer.from(JSON.stringify({ id: tag, method: 'ping' }) + '\n')]));
    const end = await c.next((m) => m.id === tag, 15_000).catch((e: Error) => ({ error: { code: 'none', message: e.message } }) as Msg);
    if (!('result' in end)) return [`${tag}: no ping after the batch (${end.error?.message})`];
    const expected = batch.filter((x) => x.expect).map((x) => key(x.expect!.id, x.expect!.code));
    await waitFor(() => c.msgs.length >= expected.length, { timeoutMs: 2000 }).catch(() => undefined);
    const problems: string[] = [];
    for (const m of c.msgs) {
      const bad = malformed(m);
      if (bad) problems.push(`${tag}: malformed reply (${bad}): ${JSON.stringify(m).slice(0, 300)}`);
      else if (m.error!.code === 'internal_error') problems.push(`${tag}: internal_error for bad input: ${m.error!.message.slice(0, 300)}`);
    }
    const got = c.msgs.filter((m) => !malformed(m)).map((m) => key(m.id, m.error!.code)).sort();
    const want = [...expected].sort();
    if (got.join('\n') !== want.join('\n')) {
      const missing = want.filter((k) => !got.includes(k));
      const extra = got.filter((k) => !want.includes(k));
      const cases = batch.filter((x) => x.expect && missing.includes(key(x.expect.id, x.expect.code))).map((x) => x.what);
      problems.push(`${tag}: replies differ; missing ${missing.slice(0, 5).join(' | ')} (${cases.slice(0, 5).join('; ')}); unexpected ${extra.slice(0, 5).join(' | ')}`);
    }
    return problems;
  } finally {
    c.close();
  }
}

/** Connections that go away mid-request: partial lines, instant disconnects, a request and gone before the reply. */
async function hangUps(socket: string, cases: FuzzCase[], r: () => number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const s = net.connect(socket);
    s.on('error', () => {});
    await new Promise<void>((res) => s.once('connect', () => res()));
    const c = cases[Math.floor(r() * cases.length)].line;
    const kind = i % 3;
    if (kind === 0) s.write(c.subarray(0, Math.floor(r() * c.length)));
    else if (kind === 1) s.write(c);
    s.destroy();
  }
}

test('socket fuzz: bad params from every method schema and bad lines of every kind get clean coded errors; the server stays up and quick', async (t) => {
  const env = tempEnvFor(t);
  const start = await env.cli(['server', 'start']);
  assert.equal(start.code, 0, `${start.stdout}${start.stderr}`);
  const pid = await env.serverPid();
  const t0 = performance.now();
  const { cases: byMethod, skipped } = methodCases(SEED, PER_METHOD);
  const all = [...byMethod, ...genericCases(SEED, 150)];
  const built = performance.now() - t0;
  const bytes = all.reduce((n, c) => n + c.line.length, 0);
  const mon = pingMonitor(env.socket);
  const problems: string[] = [];
  for (let b = 0; b * BATCH < all.length; b++) problems.push(...(await runBatch(env.socket, all.slice(b * BATCH, (b + 1) * BATCH), `batch${b}`)));
  // Many pipelined requests at once, on one connection.
  const flood = Array.from({ length: 2000 }, (_, i) => ({ what: 'pipelined', line: Buffer.from(JSON.stringify({ id: `pl${i}`, method: 'ping', params: { x: i } }) + '\n'), expect: { id: `pl${i}`, code: 'invalid_params' } }));
  problems.push(...(await runBatch(env.socket, flood, 'pipelined')));
  await hangUps(env.socket, all, rng(SEED + 1), 150);
  const stats = await mon.finish();
  // Still the same process, and still answering (a generous deadline: the machine may be loaded).
  const alive = pidAlive(pid!);
  const after = await waitFor(() => env.serverPid(), { timeoutMs: 10_000, message: 'ping after the fuzz' }).catch(() => undefined);
  const ms = performance.now() - t0;
  const maxPing = stats.max;
  const crashes = alive ? 0 : 1;
  const logged = env.logTail(10_000).split('\n').filter((l) => /uncaught|unhandled rejection|dispatch: /.test(l));
  t.diagnostic(
    `socket fuzz: ${all.length + flood.length} cases (${byMethod.length} from ${PER_METHOD} per method schema, ${skipped} valid-looking skipped, ${all.length - byMethod.length} generic, ${flood.length} pipelined) + 150 hang-ups, ${(bytes / 2 ** 20).toFixed(0)} MiB, in ${(ms / 1000).toFixed(1)} s (${(built / 1000).toFixed(1)} s building them); ` +
      `${crashes} crashes; ${problems.length} bad replies; ping max ${maxPing.toFixed(1)} ms, p99 ${stats.p99.toFixed(1)} ms over ${stats.n} pings; seed ${SEED}`,
  );
  assert.equal(stats.failure, undefined);
  assert.ok(alive, `the server died\n${env.logTail(20)}`);
  assert.equal(after, pid, `the server does not answer ping after the fuzz\n${env.logTail(20)}`);
  assert.deepEqual(problems.slice(0, 20), []);
  assert.deepEqual(logged, [], 'server log has uncaught errors');
  // The target is no stall over ~100 ms; the bound is looser because pings also wait on the OS scheduler, and on a
  // shared machine (2 cores, several test runs) round trips of 300 ms with an idle server happen. The printed max is the figure.
  assert.ok(maxPing < 1000, `slowest ping ${maxPing.toFixed(1)} ms`);
});
