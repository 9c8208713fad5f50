// Shared driver for the badge latency script and the stream recorder: a private lab mock, agent facts, one scenario.
//
// Not part of castellan and not in CI: it needs the agent lab (/work/shared/agent-lab, or AGENT_LAB_DIR) and
// its installed agents. Ground truth comes from two clocks that are the same wall clock: the driver's own
// send times (Enter, Escape) and the mock's log ("response end" with `end: answer | tool_call`, Date.now()).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
/** Where the lab installed its agents: panes get a temp HOME, so it is passed explicitly. */
export const LAB_HOME = process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache/agent-lab');
export const SLOW_SECONDS = Number(process.env.BADGE_SLOW_SECONDS ?? 3);

export interface AgentFacts {
  args: string[];
  idle: RegExp;
  working: RegExp;
  dialog: RegExp;
  quit: string;
  /** How long after its prompt first shows the agent takes input (Gemini draws its box before it listens). */
  settleMs?: number;
  /** Escapes that interrupt a turn (opencode, Kilo and Copilot CLI: Esc twice, within a short window). */
  interruptEscapes?: number;
  /** The long tool step's prompt, when the default one draws no dialog for this agent. */
  longTool?: string;
}

/** Strings the lab README gives per agent (plain screen text). */
export const AGENTS: Record<string, AgentFacts> = {
  claude: { args: ['--permission-mode', 'manual'], idle: /\? for shortcuts/, working: /esc to interrupt/, dialog: /Do you want to proceed\?/, quit: '/exit' },
  codex: { args: [], idle: /› Ask Codex to do anything/, working: /esc to interrupt/, dialog: /Would you like to run the following command\?/, quit: '/quit' },
  // Gemini's braille spinner: "⠋ Thinking... (esc to cancel, 1s)", also "⠙ Executing Hooks: …" (no "esc to cancel")
  gemini: { args: [], idle: /Type your message/, working: /esc to cancel|^ ?[\u2800-\u28ff] \S/m, dialog: /Allow execution of/, quit: '/quit', settleMs: 8000 },
  pi: { args: [], idle: /\(mock\) mock-model/, working: /Working\.\.\./, dialog: /Allow\?/, quit: '/quit' },
  // opencode / Kilo: home screen `Ask anything…`, in a session the footer `ctrl+p commands`; busy `esc interrupt`.
  opencode: { args: [], idle: /Ask anything|ctrl\+p commands/, working: /esc (again to )?interrupt/, dialog: /Permission required/, quit: '/exit', settleMs: 5000, interruptEscapes: 2 },
  kilo: { args: [], idle: /Ask anything|ctrl\+p commands/, working: /esc (again to )?interrupt/, dialog: /Permission required/, quit: '/exit', settleMs: 5000, interruptEscapes: 2 },
  // Copilot's footer (`… · ? help`) is cut at 80 columns: its prompt glyph tells it is up.
  copilot: { args: [], idle: /❯/, working: /[◉◎] Working/, dialog: /Do you want to run this command\?/, quit: '/exit', interruptEscapes: 2 },
  // Qwen asked nothing for `sleep 4 && touch long-file` in both modes here (the turn just ran): its long step is a plain call.
  qwen: { args: [], idle: /Type your message/, working: /esc to cancel/, dialog: /Allow execution of/, quit: '/quit', settleMs: 4000, longTool: 'Please RUN: touch long-file' },
};

import type { Mark, Truth } from './badge-score.js';
export type { Mark, Truth };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => T | undefined | false, timeoutMs = 30_000, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A private mock (its own port and log), so the "response end" lines are this run's only. */
export class Mock {
  readonly dir = mkdtempSync(join(tmpdir(), 'badge-mock-'));
  readonly log = join(this.dir, 'mock.log');
  private child?: ChildProcess;
  port = 0;

  async start(): Promise<void> {
    const portFile = join(this.dir, 'port');
    this.child = spawn(process.execPath, [join(LAB, 'mock/mock-server.js'), '0', this.log], {
      env: { ...process.env, MOCK_SLOW_SECONDS: String(SLOW_SECONDS), MOCK_PORT_FILE: portFile }, stdio: 'ignore',
    });
    this.port = await until('mock port', () => existsSync(portFile) && Number(readFileSync(portFile, 'utf8').trim()), 10_000);
  }

  /** "response end" times (ms) of the given kind after `since`. */
  ends(kind: 'answer' | 'tool_call', since: number): number[] {
    if (!existsSync(this.log)) return [];
    const out: number[] = [];
    for (const line of readFileSync(this.log, 'utf8').split('\n')) {
      if (!line.includes('response end')) continue;
      try {
        const r = JSON.parse(line) as { end?: string; ms?: number; scenario?: string };
        if (r.end === kind && typeof r.ms === 'number' && r.ms >= since && !String(r.scenario).startsWith('side')) out.push(r.ms);
      } catch { /* a torn line */ }
    }
    return out;
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (c?.pid && c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([gone, sleep(3000)]);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A hook command line (the lab substitutes {event}) that runs `bridge(EVENT)` only for the events `events` lists
 * and returns at once for the rest. The lab registers every event an agent has; castellan installs a few
 * (`castellan integrations install`): a bridge on Gemini's per-chunk AfterModel, which Gemini awaits, would
 * slow the agent itself and time the lab, not castellan.
 */
export function onlyEvents(events: readonly string[], bridge: (event: string) => string): string {
  // One branch per event: each gets the line castellan installs for it (a tool event's differs from a state event's).
  return `case {event} in ${events.map((e) => `${e}) ${bridge(e)};;`).join(' ')} esac`;
}

/**
 * Environment that makes run-agent.sh start the agent through a wrapper in `dir` which first drops from the
 * lab's hook config every event `events` does not list (scripts/badge-prune-hooks.mjs), as castellan's installer
 * would have written it. The wrapper is named after the agent and execs it: identification sees the agent.
 */
export function prunedHooksEnv(agent: string, dir: string, events: readonly string[]): Record<string, string> {
  // pi, opencode and Kilo have no hook file: their extension / plugin runs the hook command, which filters itself.
  if (agent === 'pi' || agent === 'opencode' || agent === 'kilo') return {};
  const real = join(LAB_HOME, 'installs', agent, 'node_modules/.bin', agent);
  const prune = join(new URL('.', import.meta.url).pathname, 'badge-prune-hooks.mjs');
  mkdirSync(dir, { recursive: true });
  const wrapper = join(dir, agent);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(wrapper, `#!/bin/sh\n${q(process.execPath)} ${q(prune)} ${agent} "$HOME" ${events.map(q).join(' ')}\nexec ${q(real)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return { [`AGENT_LAB_${agent.toUpperCase()}_BIN`]: wrapper };
}

/** The pane's command: the lab's run-agent.sh (it execs the agent), with hooks through `hooksCmd` if given. */
export function agentCommand(agent: string, port: number, scratch: string, hooksCmd?: string): string[] {
  return [join(LAB, 'run-agent.sh'), '--port', String(port), '--scratch', scratch, ...(hooksCmd ? ['--hooks-cmd', hooksCmd] : []), agent, ...AGENTS[agent].args];
}

/** What a scenario needs from the terminal it drives: castellan's pane or a bare pty. */
export interface Term {
  /** Plain text of the visible screen. */
  text(): Promise<string>;
  /** Types text (no Enter). */
  type(text: string): Promise<void>;
  /** Presses a key (Enter, Escape, C-u); resolves with the send time. */
  key(name: 'Enter' | 'Escape' | 'C-u'): Promise<number>;
}

async function waitScreen(term: Term, re: RegExp, what: string, timeoutMs = 30_000): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const t = Date.now();
    if (re.test(await term.text())) return t;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${re})`);
    await sleep(15);
  }
}

/**
 * The end of a step: the agent's busy marker gone (an agent slowed by its own hooks may still be finishing the
 * turn when the mock is done: the next prompt would land in it and shift every later mark), then 2.5 s of rest.
 */
async function settle(term: Term, f: AgentFacts): Promise<void> {
  await waitGone(term, f.working, 'the busy marker', 45_000);
  await sleep(2500);
}

async function waitGone(term: Term, re: RegExp, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (re.test(await term.text())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} to go`);
    await sleep(15);
  }
}

/** Submits a prompt: text, a pause (Gemini takes text + Enter in one burst as a paste), Enter. */
async function prompt(term: Term, text: string): Promise<number> {
  await term.type(text);
  await sleep(400);
  return term.key('Enter');
}

/**
 * prompt → streamed answer; tool call → dialog → approve → answer; a long tool run (flicker); a think → Escape
 * (interrupt); tool call → dialog → Escape (rejection). Returns the ground-truth marks.
 */
export async function runScenario(agent: string, term: Term, mock: Mock, log: (m: string) => void): Promise<Mark[]> {
  const f = AGENTS[agent];
  const marks: Mark[] = [];
  const mark = (t: number, step: string, transition: string, want: Truth) => { marks.push({ t, step, transition, want }); log(`${step}: ${transition} at ${t}`); };
  await waitScreen(term, f.idle, 'the idle prompt', 60_000);
  await sleep(f.settleMs ?? 2500);

  // 1. a streamed answer
  let t = await prompt(term, 'Please answer SLOW');
  mark(t, 'answer', 'prompt→working', 'working');
  const a1 = await until('answer end', () => mock.ends('answer', t)[0], 40_000);
  mark(a1, 'answer', 'answer→rest', 'rest');
  await settle(term, f);

  // 2. tool call, approved
  t = await prompt(term, 'Please run TOOL');
  mark(t, 'tool', 'prompt→working', 'working');
  const tc = await until('tool call', () => mock.ends('tool_call', t)[0], 40_000);
  mark(tc, 'tool', 'tool call→blocked', 'blocked');
  const drawn = await waitScreen(term, f.dialog, 'the permission dialog');
  mark(drawn, 'tool', 'dialog drawn→blocked', 'blocked');
  await sleep(1500); // Claude ignores an Enter sent the instant its dialog opens
  t = await term.key('Enter');
  mark(t, 'tool', 'approve→working', 'working');
  const a2 = await until('answer after the tool', () => mock.ends('answer', t)[0], 40_000);
  mark(a2, 'tool', 'tool answer→rest', 'rest');
  await settle(term, f);

  // 3. a long tool run (nothing streams for 4 s): must stay working
  t = await prompt(term, f.longTool ?? 'Please RUN: sleep 4 && touch long-file');
  mark(t, 'longtool', 'prompt→working', 'working');
  mark(await waitScreen(term, f.dialog, 'the permission dialog'), 'longtool', 'dialog drawn→blocked', 'blocked');
  await sleep(1500);
  t = await term.key('Enter');
  mark(t, 'longtool', 'approve→working', 'working');
  const a3 = await until('answer after the long tool', () => mock.ends('answer', t)[0], 40_000);
  mark(a3, 'longtool', 'tool answer→rest', 'rest');
  await settle(term, f);

  // 4. a think (spinner, no tokens), interrupted
  t = await prompt(term, 'Please THINK again');
  mark(t, 'interrupt', 'prompt→working', 'working');
  await sleep(1500);
  t = await term.key('Escape');
  for (let i = 1; i < (f.interruptEscapes ?? 1); i++) { await sleep(80); await term.key('Escape'); }
  mark(t, 'interrupt', 'interrupt→rest', 'rest');
  await settle(term, f);
  if (agent === 'claude') { await term.key('C-u'); await sleep(500); } // Claude puts the prompt back

  // 5. a tool call, rejected with Escape
  t = await prompt(term, 'Please RUN: touch rejected-file');
  mark(t, 'reject', 'prompt→working', 'working');
  mark(await waitScreen(term, f.dialog, 'the permission dialog'), 'reject', 'dialog drawn→blocked', 'blocked');
  await sleep(1500);
  t = await term.key('Escape');
  mark(t, 'reject', 'reject→rest', 'rest');
  await waitGone(term, f.dialog, 'the dialog', 10_000);
  await settle(term, f);
  return marks;
}
