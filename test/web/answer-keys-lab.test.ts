// End to end with real agents from agent-lab (against its offline mock model), inside castellan: the agent blocks on its
// own permission dialog, the bytes the web view sends for approve (src/web/answer-keys.ts, written to the pane as the
// page's answer is) run the tool; the deny bytes refuse it, and the "deny with a message" text then reaches the agent,
// which answers it. No castellan hooks are installed: this is the path for agents whose permission hook does not answer.
// `claude-auto` is Claude Code in auto mode (its fallback dialog: Enter stays, then Down Enter picks Yes under a selected No).
// Opt-in: CASTELLAN_LAB=1 [CASTELLAN_LAB_AGENTS=claude,claude-auto,codex,gemini,qwen,copilot,opencode,kilo,pi] node --import tsx --test test/web/answer-keys-lab.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DOWN, ENTER, answerKeys, answerSequence, pressKeys } from '../../src/web/answer-keys.js';
import { tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { GiveUp, waitFor } from '../support/wait-for.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const LAB_HOME = process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab');
const INSTALLS = join(LAB_HOME, 'installs');
const AGENTS = (process.env.CASTELLAN_LAB_AGENTS ?? 'claude').split(',').filter(Boolean);
/** Arguments the lab's start script passes on to the agent (Claude's default auto mode asks a server-side classifier). */
const ARGS: Record<string, string[]> = { claude: ['--permission-mode', 'manual'] };
/** `claude-auto`: Claude Code in its default auto mode, whose check the mock cannot do, so it falls back to asking. */
const REAL: Record<string, string> = { 'claude-auto': 'claude' };
const log = (s: string) => process.env.CASTELLAN_LAB_VERBOSE && process.stderr.write(`[answer-keys-lab] ${s}\n`);
const PANE = 'w1:p1';

type PaneRow = { pane_id: string; agent: { name: string | null; state: string } };

async function state(env: TempEnv): Promise<{ name: string | null; state: string } | undefined> {
  const r = await env.call<{ panes: PaneRow[] }>('pane.list');
  return r.panes.find((p) => p.pane_id === PANE)?.agent;
}
const screen = async (env: TempEnv) => (await env.call<{ text: string }>('pane.read', { pane_id: PANE })).text;
/** Typed, then Enter apart (Gemini/Qwen read text + Enter in one burst as a paste). */
async function prompt(env: TempEnv, text: string): Promise<void> {
  await env.call('pane.send_text', { pane_id: PANE, text });
  await new Promise((r) => setTimeout(r, 600));
  await env.call('pane.send_text', { pane_id: PANE, text: '\r' });
}

for (const agent of AGENTS) {
  const real = REAL[agent] ?? agent;
  const installed = existsSync(join(INSTALLS, real));
  const skip = !process.env.CASTELLAN_LAB ? 'set CASTELLAN_LAB=1 to run real agents from agent-lab' : !installed ? `${agent} is not installed (agent-lab/install.sh ${agent})` : false;
  test(`${agent}: the web view's approve keys run the tool, its deny keys refuse it and the message reaches the agent`, { skip, timeout: 420_000 }, async (t) => {
    const env = tempEnvFor(t, { env: { AGENT_LAB_HOME: LAB_HOME } }); // the agents stay where they are installed, HOME is new
    const scratch = join(env.root, 'lab');
    const work = join(scratch, 'work');
    mkdirSync(scratch, { recursive: true });
    const mockEnv = { ...env.env, MOCK_SLOW_SECONDS: '1' };
    const mockState = join(env.root, 'mock');
    const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', mockState], { env: mockEnv, encoding: 'utf8' }).trim();
    t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', mockState], { env: mockEnv, stdio: 'ignore' }));
    const srv = await env.cli(['server', 'start', '--cols', '160', '--rows', '45', '--', join(LAB, 'run-agent.sh'), '--port', port, '--scratch', scratch, real, ...(ARGS[agent] ?? [])]);
    assert.equal(srv.code, 0, srv.stderr);
    const observe = async () => `${JSON.stringify(await state(env))}\n${await screen(env)}`;
    const settle = async (what: string) => {
      // Idle and drawn: the agent is known, idle, and its screen has stopped changing for a moment.
      let last = '';
      await waitFor(
        async () => {
          const s = await state(env);
          const now = await screen(env);
          if (/\[exited with code \d+/.test(now)) throw new GiveUp(`${agent} exited:\n${now}`);
          const ok = s?.name === real && (s.state === 'idle' || s.state === 'done') && now === last;
          last = now;
          return ok;
        },
        { timeoutMs: 150_000, intervalMs: 1500, message: `${agent} ${what}`, observe },
      );
    };
    await settle('started and idle');
    // CASTELLAN_LAB_KEYS='{"approve":["1"]}' tries other keys without editing the table.
    const override = JSON.parse(process.env.CASTELLAN_LAB_KEYS ?? '{}') as object;
    const keysNow = async () => ({ ...answerKeys(real, (await env.call<{ lines: string[] }>('pane.read', { pane_id: PANE })).lines), ...override });
    const keys = await keysNow();
    // A person taps a second or more after the dialog is drawn (Claude Code drops keys that come right after its dialog appears).
    const sent: Array<readonly string[]> = [];
    const tapDelay = () => new Promise((r) => setTimeout(r, 2000));
    // The page's answer, as src/web/live.ts writes it.
    const answer = async (how: 'approve' | 'deny', withMessage = false) => {
      await tapDelay();
      // As the page does: the keys for the dialog on screen now (src/web/live.ts passes the pane's rows).
      const seq = answerSequence(await keysNow(), how, withMessage);
      sent.push(seq);
      log(`${agent} ${how}: ${JSON.stringify(seq)} on:\n${(await screen(env)).split('\n').slice(-8).join('\n')}`);
      await pressKeys((text) => env.call('pane.send_text', { pane_id: PANE, text }), seq);
    };
    const blocked = async (what: string) => {
      await waitFor(async () => (await state(env))?.state === 'blocked', { timeoutMs: 90_000, message: `${agent} blocked on its dialog (${what})`, observe });
      log(`${agent} blocked (${what}):\n${await screen(env)}`);
    };
    const left = () => waitFor(async () => (await state(env))?.state !== 'blocked', { timeoutMs: 30_000, message: `${agent} left its dialog after the deny keys`, observe });

    if (agent === 'claude-auto') {
      // A command outside the project: "Auto mode can't check actions" (Enter stays), then "❯ No / Yes" (Down Enter).
      const outside = join(env.root, 'outside-x');
      await prompt(env, `Please RUN: touch ${outside}`);
      for (let i = 0; i < 3 && !existsSync(outside); i++) {
        // Blocked with a dialog drawn (the badge can lag a moment behind the dialog going away).
        const asking = async () => (await state(env))?.state === 'blocked' && /Enter to stay in auto mode|Do you want to proceed\?/.test(await screen(env));
        await waitFor(async () => existsSync(outside) || (await asking()), { timeoutMs: 90_000, message: 'claude asked (auto mode)', observe });
        if (existsSync(outside)) break;
        const before = await screen(env);
        log(`claude-auto blocked:\n${before}`);
        const marker = before.includes('Enter to stay in auto mode') ? 'Enter to stay in auto mode' : 'Do you want to proceed?';
        await answer('approve');
        await waitFor(async () => existsSync(outside) || !(await screen(env)).includes(marker), { timeoutMs: 30_000, message: 'claude took the answer', observe });
      }
      assert.deepEqual(sent, [[ENTER], [DOWN, ENTER]], 'Enter stayed in auto mode, Down Enter chose Yes below the selected No');
      await waitFor(() => existsSync(outside), { timeoutMs: 60_000, message: 'the approved command ran (auto mode)', observe });
      await env.cli(['server', 'stop']);
      return;
    }

    // Approve: the tool runs.
    await prompt(env, 'Please RUN: touch approved-from-web');
    await blocked('approve');
    await answer('approve');
    await waitFor(() => existsSync(join(work, 'approved-from-web')), { timeoutMs: 60_000, message: `${agent}: the approved command ran`, observe });
    await waitFor(async () => /Tool finished/.test(await screen(env)), { timeoutMs: 60_000, message: `${agent} got the tool result`, observe });
    await settle('idle after the approved tool');

    // Deny: the tool does not run, the dialog goes, the agent takes its next prompt.
    await prompt(env, 'Please RUN: touch denied-from-web');
    await blocked('deny');
    await answer('deny');
    await left();
    await settle('idle after the deny');
    log(`${agent} after deny:\n${await screen(env)}`);

    // Deny with a message: the tool does not run, the agent takes the message as its next instruction and answers it.
    await prompt(env, 'Please RUN: touch denied-again-from-web');
    await blocked('deny with a message');
    const before = (await screen(env)).split('Hello from the mock model').length;
    await answer('deny', true);
    await new Promise((r) => setTimeout(r, keys.messageDelayMs));
    // As the page sends it (src/server/web-host.ts prompt() for a pane castellan did not start the agent in).
    await env.call('pane.send_text', { pane_id: PANE, text: 'Then just say hello', paste: true });
    await new Promise((r) => setTimeout(r, 150));
    await env.call('pane.send_text', { pane_id: PANE, text: '\r' });
    // The mock answers a prompt with its hello; Kilo hands the message to the model as the refusal's feedback instead.
    await waitFor(async () => (await screen(env)).split('Hello from the mock model').length > before || /feedback: Then just say hello/.test(await screen(env)), { timeoutMs: 90_000, message: `${agent} answered the message after the deny`, observe });
    log(`${agent} after deny + message:\n${await screen(env)}`);
    assert.equal(existsSync(join(work, 'denied-from-web')), false, 'the denied command did not run');
    assert.equal(existsSync(join(work, 'denied-again-from-web')), false, 'the command denied with a message did not run');
    await env.cli(['server', 'stop']);
  });
}
