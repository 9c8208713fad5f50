// Hostile hook payloads through the real bin: a tool-gating event that cannot be read whole is denied in the agent's
// protocol and audited; a state-only event with the same input exits 0 at once, silent. With a server and without.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBound, loadNote } from '../support/load.js';
import { makeTempEnv, type TempEnv } from '../support/temp-env.js';
import { auditRecords, type Feed, GATE, gateAnswer, limiter, runHook, type StdinKind } from './bridge-support.js';

const AGENTS = ['claude', 'codex', 'gemini', 'pi'] as const;
/** The gating read deadline (CASTELLAN_HOOK_READ_MS) for the slow feeds, which take longer than it. */
const READ_MS = 1500;
/** The others keep the default 10 s: pushing 10 MB through a pipe on a loaded box can take longer than READ_MS. */
const DEFAULT_READ_MS = 10_000;
/** State-only runs get a long gating deadline, to show theirs is the short one (1 s) regardless. */
const STATE_RUN_READ_MS = 20_000;
/** A state-only event must be done well before that long gating deadline (1 s read + node start under load). */
const STATE_BOUND_MS = loadBound(7000, 15_000);
/** A gating event must be done by its deadline plus node start and governance, with room for a loaded box. */
const GATE_BOUND_MS = DEFAULT_READ_MS + 5000;
/** A non-shell event for each agent that reports state only: stops and post-tool events. */
const STATE_EVENTS: Record<string, string> = { claude: 'Stop', codex: 'PostToolUse', gemini: 'AfterAgent', pi: 'tool_result' };

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Every input the bridge must survive, built (when a test runs) from the agent's own well-formed gating payload. */
const CASES: Array<{ name: string; why: RegExp; feed: (agent: string, cwd: string) => Feed; readMs?: number }> = (() => {
  const good = (agent: string, cwd: string) => GATE[agent].call(cwd);
  const text = (agent: string, cwd: string) => JSON.stringify(good(agent, cwd));
  const nameKey = (agent: string) => (agent === 'pi' ? 'toolName' : 'tool_name');
  const inputKey = (agent: string) => (agent === 'pi' ? 'input' : 'tool_input');
  const binary = Buffer.alloc(4096);
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 151 + 7) & 0xff;
  return [
    { name: 'empty stdin', why: /\(empty\)/, feed: () => ({ kind: 'whole', data: '' }) },
    { name: 'garbage bytes', why: /not JSON/, feed: () => ({ kind: 'whole', data: 'hello \x1b[31m}{ not json at all\x07\n' }) },
    { name: 'binary', why: /not JSON/, feed: () => ({ kind: 'whole', data: binary }) },
    { name: 'invalid JSON (cut short)', why: /not JSON/, feed: (a, cwd) => ({ kind: 'whole', data: text(a, cwd).slice(0, -5) }) },
    { name: 'a JSON array', why: /an array/, feed: (a, cwd) => ({ kind: 'whole', data: JSON.stringify([good(a, cwd)]) }) },
    { name: 'a JSON number', why: /number/, feed: () => ({ kind: 'whole', data: '42' }) },
    {
      name: 'deeply nested',
      why: /nested deeper than 64/,
      feed: (a, cwd) => ({ kind: 'whole', data: `{"${nameKey(a)}":${JSON.stringify(good(a, cwd)[nameKey(a)])},"${inputKey(a)}":{"command":"touch x","x":${nested(100_000)}}}` }),
    },
    {
      name: 'no tool name',
      why: /no tool name/,
      feed: (a, cwd) => {
        const { [nameKey(a)]: _drop, ...rest } = good(a, cwd);
        return { kind: 'whole', data: JSON.stringify(rest) };
      },
    },
    {
      name: '10 MB payload',
      why: /larger than 8 MiB/,
      feed: (a, cwd) => ({ kind: 'whole', data: JSON.stringify({ ...good(a, cwd), [inputKey(a)]: { command: 'touch x', description: 'x'.repeat(10 * 1024 * 1024) } }) }),
    },
    { name: 'slow payload', why: new RegExp(`not closed within ${READ_MS} ms`), feed: (a, cwd) => ({ kind: 'trickle', data: text(a, cwd), chunks: 12, everyMs: 250 }), readMs: READ_MS },
    { name: 'stdin never closed', why: new RegExp(`not closed within ${READ_MS} ms`), feed: (a, cwd) => ({ kind: 'open', data: text(a, cwd).slice(0, 20) }), readMs: READ_MS },
  ];
})();

const pool = limiter(6);
let paneSeq = 0;

function paneEnv(env: TempEnv, pane: string, readMs: number): Record<string, string> {
  return { ...env.env, CASTELLAN_ENV: '1', CASTELLAN_SOCKET: env.socket, CASTELLAN_PANE_ID: pane, CASTELLAN_HOOK_READ_MS: String(readMs) };
}

/** Policy: shell is denied, so a payload read as tool "unknown" (allowed) cannot hide behind the policy's own denial. */
function writeConfig(env: TempEnv): void {
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
}

async function serverEnv(): Promise<TempEnv> {
  const env = makeTempEnv();
  writeConfig(env);
  const r = await env.cli(['server', 'start']);
  assert.equal(r.code, 0, r.stderr);
  return env;
}

// One server env and one without a server for the whole file, and every case concurrent (bounded by the pool): most
// of the time is spent waiting on deadlines, so running the suites one after another would only add up the waits.
let online: Promise<TempEnv>;
let offline: Promise<TempEnv>;
before(() => {
  online = serverEnv();
  offline = Promise.resolve(makeTempEnv()).then((e) => (writeConfig(e), e));
});
after(async () => {
  await Promise.allSettled([online.then((e) => e.cleanup()), offline.then((e) => e.cleanup())]);
});

function gatingSuite(label: string, envOf: () => Promise<TempEnv>, only?: readonly string[], o: { agents?: readonly string[]; stdin?: StdinKind } = {}) {
  describe(`${label}: a tool-gating event that cannot be read is denied`, { concurrency: true }, () => {
    for (const agent of o.agents ?? AGENTS)
      for (const c of CASES) {
        if (only && !only.includes(c.name)) continue;
        test(`${agent} ${GATE[agent].event}: ${c.name}`, async () => {
          const env = await envOf();
          await pool(async () => {
            const pane = `w9:p${++paneSeq}`;
            const r = await runHook({ agent, event: GATE[agent].event, feed: c.feed(agent, env.home), env: paneEnv(env, pane, c.readMs ?? DEFAULT_READ_MS), cwd: env.home, stdin: o.stdin });
            assert.equal(r.hung, false, 'the bridge did not exit by itself');
            assert.ok(r.ms < GATE_BOUND_MS, `took ${Math.round(r.ms)} ms`);
            assert.equal(r.code, 0, r.stderr);
            const a = gateAnswer(agent, r.stdout);
            assert.ok(a, `no answer, so the agent would run the tool (stderr: ${r.stderr})`);
            assert.equal(a.decision, 'deny');
            assert.match(a.reason, /^castellan: the hook payload could not be read \(.+\); denied$/);
            assert.match(a.reason, c.why);
            const rec = auditRecords(env.stateDir).find((x) => x.pane === pane);
            assert.ok(rec, `no audit record for ${pane}`);
            assert.equal(rec.decision, 'deny');
            assert.equal(rec.source, 'payload');
            assert.match(String(rec.reason), c.why);
            assert.equal(typeof rec.payload_bytes, 'number');
          });
        });
      }
  });
}

describe('the hook bridge under hostile payloads', { concurrency: true }, () => {
  gatingSuite('with a server', () => online);
  // With no server the bridge still decides (governance is local): the same kinds of input, fewer of them.
  gatingSuite('with no server', () => offline, ['empty stdin', 'binary', 'a JSON array', 'no tool name', '10 MB payload', 'stdin never closed']);
  // A real pipe (a shell pipeline, a Rust agent) is read another way than the socketpair Node gives (stdin-pipe.ts).
  gatingSuite('stdin a real pipe', () => online, undefined, { agents: ['claude', 'codex'], stdin: 'fifo' });

  // The state path is the same code for every agent: each input on one agent's event (in turn), and the inputs that
  // could keep an agent waiting on every agent's.
  const WAITERS = ['10 MB payload', 'slow payload', 'stdin never closed'];
  describe('state-only events with the same inputs: exit 0 at once, silent, no decision', { concurrency: true }, () => {
    for (const [i, c] of CASES.entries())
      for (const agent of WAITERS.includes(c.name) ? AGENTS : [AGENTS[i % AGENTS.length]])
        test(`${agent} ${STATE_EVENTS[agent]}: ${c.name}`, async () => {
          const env = await online;
          await pool(async () => {
            const pane = `w8:p${++paneSeq}`;
            const r = await runHook({ agent, event: STATE_EVENTS[agent], feed: c.feed(agent, env.home), env: paneEnv(env, pane, STATE_RUN_READ_MS), cwd: env.home });
            assert.equal(r.hung, false);
            assert.ok(r.ms < STATE_BOUND_MS, `took ${Math.round(r.ms)} ms (${loadNote()})`);
            assert.equal(r.code, 0);
            assert.equal(r.stdout, '');
            assert.equal(r.stderr, '');
            assert.equal(auditRecords(env.stateDir).filter((x) => x.pane === pane && x.type === 'governance_decision').length, 0);
          });
        });
  });

  describe('what can be read is still judged on its merits', { concurrency: true }, () => {
    for (const agent of AGENTS)
      for (const stdin of ['socket', 'fifo'] as const)
        test(`${agent}: a well-formed shell call is denied by the policy, not as unreadable (stdin a ${stdin})`, async () => {
          const env = await online;
          await pool(async () => {
            const r = await runHook({ agent, event: GATE[agent].event, feed: { kind: 'whole', data: JSON.stringify(GATE[agent].call(env.home)) }, env: paneEnv(env, `w7:p${++paneSeq}`, DEFAULT_READ_MS), cwd: env.home, stdin });
            const a = gateAnswer(agent, r.stdout);
            assert.equal(a?.decision, 'deny');
            assert.match(a!.reason, /permission policy denies shell/);
          });
        });
    for (const stdin of ['socket', 'fifo'] as const)
      test(`claude: a 5 MB Write (under the 8 MiB cap) is read whole and allowed (stdin a ${stdin})`, async () => {
        const env = await online;
        await pool(async () => {
          const payload = { session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(env.home, 'big.txt'), content: 'y'.repeat(5 * 1024 * 1024) }, cwd: env.home };
          const r = await runHook({ agent: 'claude', event: 'PreToolUse', feed: { kind: 'whole', data: JSON.stringify(payload) }, env: paneEnv(env, `w7:p${++paneSeq}`, DEFAULT_READ_MS), cwd: env.home, stdin });
          assert.equal(r.code, 0, r.stderr);
          assert.equal(r.stdout, '');
        });
      });
  });
});
