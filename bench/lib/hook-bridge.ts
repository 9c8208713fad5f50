// The hook bridge timed as an agent runs it: the installed hook command line, through sh, in a real pane's environment.
//
// An agent (Claude Code, Gemini CLI) runs a hook as `/bin/sh -c "<command>"` with the payload written to a socketpair
// on stdin and the pipe then closed; the command is the line castellan installed (command-line.ts hookCommand), and the
// environment is the pane's, which the server passed on from the machine's (NODE_EXTRA_CA_CERTS included, where set).
// So the headline row starts a server with the machine's NODE_EXTRA_CA_CERTS, reads the pane's environment from
// /proc/PID/environ and times `sh -c '<installed line>'` in it. Beside it: `node -e 0` (Node's own start, the floor),
// the bridge run as raw node without sh (what the bridge itself costs), and the raw node run with NODE_EXTRA_CA_CERTS
// (what a line without the CA cut pays), and the server's share (hook-rtt.ts: the bridge's two requests sent from here).
// Wall time from bash's $EPOCHREALTIME, CPU from `times` (the children's).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CastellanServer } from './castellan.js';
import { serverRoundTrip, type BridgeRequests } from './hook-rtt.js';
import type { BenchEnv } from './env.js';
import type { Row } from './report.js';
import { median, round, shq, waitUntil } from './util.js';

export interface Timed {
  wallMs: number[];
  cpuMs: number[];
}

/**
 * One `bash -c` per call: wall time from $EPOCHREALTIME and the child's CPU from `times`, both in ms. `input` is the
 * call's stdin as a Node-based agent gives it: written to a socketpair (libuv's "pipe"), then closed; `viaPipe` takes
 * it from a real pipe instead (`<<<`, as a shell pipeline or a Rust agent gives).
 */
export function timedCall(cmd: string, env: NodeJS.ProcessEnv, input = '', viaPipe = false): { wallMs: number; cpuMs: number } {
  // Through a pipe: bash reads the input first (untimed), and a here-string that small is a pipe in bash >= 5.1.
  const script = viaPipe
    ? `IFS= read -r -d '' P; s=$EPOCHREALTIME; ${cmd} <<< "$P" >/dev/null 2>&1; e=$EPOCHREALTIME; echo "$s $e"; times`
    : `s=$EPOCHREALTIME; ${cmd} >/dev/null 2>&1; e=$EPOCHREALTIME; echo "$s $e"; times`;
  const sec = (x: string) => {
    const m = /(\d+)m([\d.]+)s/.exec(x);
    return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  };
  const out = execFileSync('bash', ['-c', script], { env, encoding: 'utf8', input }).trim().split('\n');
  const [s, e] = out[0].split(' ').map(Number);
  // `times` prints the shell's own user/sys, then its children's.
  const [u, sy] = out[2].trim().split(/\s+/);
  return { wallMs: (e - s) * 1000, cpuMs: (sec(u) + sec(sy)) * 1000 };
}

/** The environment a program started in the pane gets: the pane process's own, as the server gave it. */
function paneEnv(pid: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

const CLAUDE_PRE = (cwd: string) => JSON.stringify({ session_id: 'bench', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls -la' }, cwd });
const CLAUDE_PROMPT = (cwd: string) => JSON.stringify({ session_id: 'bench', hook_event_name: 'UserPromptSubmit', prompt: 'hello', cwd });

export interface HookSeries {
  cmd: string;
  input: string;
  viaPipe?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Every how many rounds this series runs (the slow CA series needs fewer samples). */
  every?: number;
  /** Untimed, after each call: waits out what the call left running (a background bridge), so it loads no other series. */
  settle?: () => Promise<void>;
}

/** Is a process running whose argv holds every one of `words` (read from /proc, no exec)? */
function running(words: readonly string[]): boolean {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (words.every((w) => argv.includes(w))) return true;
  }
  return false;
}

export interface HookBridgeResult {
  rows: Row[];
  raw: Record<string, unknown>;
}

/**
 * Times the bridge rows against a live server with one bash pane. `calls` rounds, each running every series once in
 * turn (alternating, so a load change on a shared box moves every series alike).
 */
/** A live server with one bash pane, and that pane's environment: where every bridge series runs. */
export async function bridgePane(b: BenchEnv): Promise<{ s: CastellanServer; env: NodeJS.ProcessEnv }> {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  // The server starts as the daemon would on this machine: with its NODE_EXTRA_CA_CERTS, which its panes inherit.
  const s = await CastellanServer.start({ ...b, env: { ...b.env, ...(ca ? { NODE_EXTRA_CA_CERTS: ca } : {}) } }, { cols: 202, rows: 53, command: ['bash', '--norc', '--noprofile'] });
  try {
    const pane = (await s.notePanes()).find((p) => p.pid);
    if (!pane?.pid) throw new Error('the bench pane has no pid');
    const env = paneEnv(pane.pid);
    if (!env.CASTELLAN_ENV || !env.CASTELLAN_PANE_ID) throw new Error('the pane environment lacks CASTELLAN_ENV / CASTELLAN_PANE_ID');
    return { s, env };
  } catch (e) {
    await s.stop();
    throw e;
  }
}

/** The two requests the bridge sends for CLAUDE_PRE in this pane, with the params the build under test makes. */
async function claudePreRequests(b: BenchEnv, env: NodeJS.ProcessEnv, cwd: string): Promise<BridgeRequests> {
  const { decideParams } = (await import(join(b.root, 'dist', 'integrations', 'server-decide.js'))) as typeof import('../../src/integrations/server-decide.js');
  const { resolvePaths } = (await import(join(b.root, 'dist', 'platform', 'paths.js'))) as typeof import('../../src/platform/paths.js');
  const paths = resolvePaths({ env });
  // What the bridge makes of CLAUDE_PRE (govern.ts: a Bash call is the shell tool running `sh -c` on its command).
  const decide = decideParams(
    { phase: 'pre', tool: 'shell', argv: ['/bin/sh', '-c', 'ls -la'], cwd, toolInput: { command: 'ls -la' }, agentId: 'claude:bench', paneId: env.CASTELLAN_PANE_ID, prompt: 'defer', env, paths },
    process.pid,
  );
  return { socket: paths.socket, report: { pane_id: env.CASTELLAN_PANE_ID, agent: 'claude', state: 'working', source: 'hook', session_id: 'bench' }, decide };
}

/**
 * Times the bridge rows against a live server with one bash pane. `calls` rounds, each running every series once in
 * turn (alternating, so a load change on a shared box moves every series alike), and once the server's share alone.
 */
export async function hookBridge(b: BenchEnv, section: string, calls: number): Promise<HookBridgeResult> {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const { s, env } = await bridgePane(b);
  const load0 = loadavg()[0];
  let got: Record<string, Timed>;
  let line: string;
  const serverMs: number[] = [];
  try {
    // The line castellan installs into an agent's settings, from the build under test (dist/, as `castellan install` writes it).
    const { cliArgv, hookCommand, installedHookCommand } = (await import(join(b.root, 'dist', 'integrations', 'command-line.js'))) as typeof import('../../src/integrations/command-line.js');
    const argv = cliArgv({ bin: join(b.root, 'bin', 'castellan.js') });
    line = installedHookCommand(argv, 'claude', 'PreToolUse');
    const node = shq(process.execPath);
    const bin = shq(argv[1]!);
    const noCa = { ...env, NODE_EXTRA_CA_CERTS: '' };
    const pre = CLAUDE_PRE(s.home);
    const requests = await claudePreRequests(b, env, s.home);
    const series: Record<string, HookSeries> = {
      nodeZero: { cmd: `${node} -e 0`, input: '', env: noCa },
      hookLine: { cmd: `sh -c ${shq(line)}`, input: pre },
      hookLinePipe: { cmd: `sh -c ${shq(line)}`, input: pre, viaPipe: true },
      // Door off: the line as it was before the hook door (the Node bridge in the foreground), what door.sh falls back to.
      hookLineNode: { cmd: `sh -c ${shq(hookCommand(argv, 'claude', 'PreToolUse'))}`, input: pre },
      // The installed line runs a state-only event's bridge in the background: the agent waits for sh and `head` only.
      hookLineState: {
        cmd: `sh -c ${shq(installedHookCommand(argv, 'claude', 'UserPromptSubmit'))}`,
        input: CLAUDE_PROMPT(s.home),
        settle: () => waitUntil(() => !running([argv[1]!, 'UserPromptSubmit']), 'the background UserPromptSubmit bridge to end', 10_000, 5).then(() => undefined),
      },
      // The same bridge in the foreground: what the background line runs once the agent has gone on.
      hookStateFg: { cmd: `sh -c ${shq(hookCommand(argv, 'claude', 'UserPromptSubmit'))}`, input: CLAUDE_PROMPT(s.home) },
      hookRaw: { cmd: `${node} ${bin} hook claude PreToolUse`, input: pre, env: noCa },
      ...(ca ? { hookRawCa: { cmd: `${node} ${bin} hook claude PreToolUse`, input: pre, env: { ...env, NODE_EXTRA_CA_CERTS: ca }, every: 3 } } : {}),
    };
    got = Object.fromEntries(Object.keys(series).map((k) => [k, { wallMs: [], cpuMs: [] }]));
    for (let i = 0; i < calls; i++) {
      for (const [k, x] of Object.entries(series)) {
        if (i % (x.every ?? 1)) continue;
        const one = timedCall(x.cmd, x.env ?? env, x.input, x.viaPipe);
        got[k].wallMs.push(one.wallMs);
        got[k].cpuMs.push(one.cpuMs);
        await x.settle?.();
      }
      serverMs.push(await serverRoundTrip(requests));
    }
  } finally {
    await s.stop();
  }
  const load = [round(load0, 2), round(loadavg()[0], 2)];
  const S = section;
  const m = (k: string, f: keyof Timed) => median(got[k]?.[f] ?? []);
  const caNote = ca ? 'NODE_EXTRA_CA_CERTS set, as on this machine' : 'no NODE_EXTRA_CA_CERTS here';
  const rows: Row[] = [
    { section: S, metric: 'node -e 0 (floor: Node start, NODE_EXTRA_CA_CERTS empty), median wall', unit: 'ms', castellan: m('nodeZero', 'wallMs'), digits: 1 },
    { section: S, metric: 'node -e 0 (floor), median CPU', unit: 'ms', castellan: m('nodeZero', 'cpuMs'), digits: 1 },
    {
      section: S,
      metric: `hook bridge PreToolUse: sh -c <installed hook line> (through the hook door), pane env (${caNote}), payload on a socketpair, median wall`,
      unit: 'ms',
      castellan: m('hookLine', 'wallMs'),
      digits: 1,
      target: '< 60',
      pass: m('hookLine', 'wallMs') < 60,
    },
    { section: S, metric: 'hook bridge PreToolUse: sh -c <installed hook line>, median CPU (sh + door.sh + coreutils, or node when handed on)', unit: 'ms', castellan: m('hookLine', 'cpuMs'), digits: 1 },
    { section: S, metric: 'hook bridge PreToolUse, door off: sh -c <the plain Node bridge line, what door.sh falls back to>, median wall', unit: 'ms', castellan: m('hookLineNode', 'wallMs'), digits: 1 },
    { section: S, metric: 'hook bridge PreToolUse, door off: median CPU (sh + node)', unit: 'ms', castellan: m('hookLineNode', 'cpuMs'), digits: 1 },
    { section: S, metric: 'hook bridge PreToolUse: sh -c <installed hook line>, payload through a shell pipe, median wall', unit: 'ms', castellan: m('hookLinePipe', 'wallMs'), digits: 1 },
    { section: S, metric: 'hook bridge state-only event (UserPromptSubmit): sh -c <installed hook line> (bridge in the background), median wall the agent waits', unit: 'ms', castellan: m('hookLineState', 'wallMs'), digits: 1 },
    { section: S, metric: 'hook bridge state-only event (UserPromptSubmit): the same bridge in the foreground, median wall', unit: 'ms', castellan: m('hookStateFg', 'wallMs'), digits: 1 },
    { section: S, metric: 'hook bridge PreToolUse: raw node bin hook (no sh, NODE_EXTRA_CA_CERTS empty), median wall', unit: 'ms', castellan: m('hookRaw', 'wallMs'), digits: 1 },
    {
      section: S,
      metric: "hook bridge PreToolUse: the server's share (a fresh connection, pane.report_agent + hook.decide pipelined as the bridge sends them, to both replies), median",
      unit: 'ms',
      castellan: median(serverMs),
      digits: 2,
    },
    { section: S, metric: 'hook bridge PreToolUse: raw node bin hook (no sh, NODE_EXTRA_CA_CERTS empty), median CPU', unit: 'ms', castellan: m('hookRaw', 'cpuMs'), digits: 1 },
    ...(ca ? [{ section: S, metric: 'hook bridge PreToolUse: raw node bin hook with NODE_EXTRA_CA_CERTS (a line without the CA cut), median wall', unit: 'ms', castellan: m('hookRawCa', 'wallMs'), digits: 1 }] : []),
  ];
  return { rows, raw: { line, caCerts: ca ?? null, loadavg1: load, ...got, serverMs } };
}
