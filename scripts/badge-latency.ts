// Badge latency of real agents in castellan panes: ground truth (driver + mock log) → pane_agent_status_changed.
//
//   npx tsx scripts/badge-latency.ts [--agents claude,codex,gemini,pi,opencode,kilo,copilot,qwen] [--modes screen,hooks] [--runs N] [--bin PATH] [--json FILE]
//                                    [--run-timeout SECONDS (300: one agent's scenario; a stuck one is stopped)]
//   npx tsx scripts/badge-latency.ts --merge a.json,b.json     (one table from earlier runs' --json files)
//
// Not in CI: it needs the agent lab (AGENT_LAB_DIR, default /work/shared/agent-lab) with its agents installed, and a
// built castellan (`npm run build`; --bin points at another build to compare). Per agent and mode it starts a castellan
// server in a temp HOME (no client attached: panes are unfocused, a finished turn shows `done`), runs the agent with
// the lab's run-agent.sh in a pane (with hooks: `castellan hook AGENT EVENT` for the events castellan's installer
// registers, nothing for the rest; for pi, castellan's extension as `castellan integrations install pi` installs it), walks badge-lab's
// scenario and times, for every ground-truth mark, the first badge event that shows the wanted state. Flicker: any
// badge change that is not a step forward along the scenario's expected path (working → blocked → working → rest).
// Every run ends by stopping its server and mock and killing whatever still runs with the run's temp HOME.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcClient } from '../src/platform/rpc-client.js';
import { installedEvents } from '../src/integrations/tables.js';
import { hookCommand, installedHookCommand } from '../src/integrations/command-line.js';
import type { AgentName } from '../src/integrations/types.js';
import { AGENTS, LAB_HOME, Mock, agentCommand, onlyEvents, prunedHooksEnv, runScenario, sleep, type Term } from './badge-lab.js';
import { flicker, score, type BadgeEvent, type Latency } from './badge-score.js';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const BIN = arg('bin', fileURLToPath(new URL('../bin/castellan.js', import.meta.url)));
const agents = arg('agents', 'claude,codex,gemini,pi').split(',');
const modes = arg('modes', 'screen,hooks').split(',') as Array<'screen' | 'hooks'>;
const runs = Number(arg('runs', '1'));
/** What castellan's installer writes for one event of `agent`, with this run's bin. */
// --foreground-hooks: every event's bridge in the foreground (the agent waits for it), to compare with the installed lines.
const foreground = process.argv.includes('--foreground-hooks');
const bridgeLine = (agent: AgentName, event: string) =>
  foreground ? hookCommand([process.execPath, BIN], agent, event) : installedHookCommand([process.execPath, BIN], agent, event);
/** One agent's whole scenario takes 1-2 min; a run that takes longer is stuck (an agent that never drew its prompt). */
const RUN_TIMEOUT_MS = Number(arg('run-timeout', '300')) * 1000;

/** Pids of the processes this run started: everything whose HOME lies in the run's temp HOME (server, agent, hooks). */
function processesUnder(home: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').some((v) => v === `HOME=${home}` || v.startsWith(`HOME=${home}/`))) out.push(Number(d));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

/** Stops what a run left behind (an agent that ignored the server's SIGHUP, a hook still running): TERM, then KILL. */
async function reap(home: string, log: (m: string) => void): Promise<void> {
  for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
    const pids = processesUnder(home);
    if (!pids.length) return;
    log(`${sig} to ${pids.length} leftover process(es): ${pids.join(' ')}`);
    for (const pid of pids) { try { process.kill(pid, sig); } catch { /* already gone */ } }
    await sleep(1000);
  }
}

const homes = new Set<string>();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const h of homes) for (const pid of processesUnder(h)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    process.exit(130);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error(`${what} took over ${ms / 1000} s`)), ms); });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** `castellan integrations install pi` into the lab's HOME for pi (run-agent.sh --scratch keeps what is there). */
async function installPiExtension(piHome: string, env: Record<string, string>): Promise<void> {
  const p = spawn(process.execPath, [BIN, 'integrations', 'install', 'pi'], { env: { ...env, HOME: piHome, PI_CODING_AGENT_DIR: join(piHome, '.pi', 'agent') }, stdio: 'ignore' });
  const code = await withTimeout(new Promise((r) => p.on('exit', r)), 20_000, 'castellan integrations install pi');
  if (code !== 0) throw new Error(`castellan integrations install pi exited ${code}`);
}

interface Result { agent: string; mode: string; run: number; latencies: Latency[]; flicker: number; flickers: string[] }

async function runOne(agent: string, mode: 'screen' | 'hooks', run: number): Promise<Result> {
  const home = mkdtempSync(join('/tmp', 'bl-'));
  homes.add(home);
  const socket = join(home, '.config/castellan/castellan.sock');
  // Only the events castellan's installer registers get the bridge (onlyEvents) or a hook at all (prunedHooksEnv).
  const hooked = installedEvents(agent as AgentName).map((r) => r.event);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8', SHELL: '/bin/bash', AGENT_LAB_HOME: LAB_HOME,
    ...(mode === 'hooks' ? prunedHooksEnv(agent, join(home, 'wrap'), hooked) : {}),
  };
  const mock = new Mock();
  const log = (m: string) => process.stderr.write(`[${agent}/${mode}#${run}] ${m}\n`);
  let api: RpcClient | undefined;
  try {
    await mock.start();
    const server = spawn(process.execPath, [BIN, 'server', 'start', '--cols', '82', '--rows', '27', '--', 'bash', '--norc'], { env, stdio: 'ignore' });
    await withTimeout(new Promise((r) => server.on('exit', r)), 20_000, 'castellan server start');
    const client = await RpcClient.connect(socket, 5000);
    api = client;
    // pi's hooks are castellan's own extension, installed as a user installs it (the lab's extension then only gates bash).
    if (mode === 'hooks' && agent === 'pi') await installPiExtension(join(home, 'lab', 'home'), env);
    // The others get the line castellan's installer writes for each event (background for state-only events, command-line.ts).
    const hooksCmd = mode === 'hooks' && agent !== 'pi' ? onlyEvents(hooked, (ev) => bridgeLine(agent as AgentName, ev)) : undefined;
    const w = await client.request<{ pane_id: string }>('window.new', { command: agentCommand(agent, mock.port, join(home, 'lab'), hooksCmd), focus: false });
    const pane = w.pane_id;
    const events: BadgeEvent[] = [];
    client.onMessage((msg) => {
      const e = msg.event as (BadgeEvent & { type: string; pane: string }) | undefined;
      if (e?.type === 'pane_agent_status_changed' && e.pane === pane) { events.push(e); log(`badge ${e.old}→${e.new} (${e.source ?? ''}) at ${e.ts}`); }
    });
    await client.request('events.subscribe', { types: ['pane_agent_status_changed'], panes: [pane] });
    const term: Term = {
      text: async () => (await client.request<{ text: string }>('pane.read', { pane_id: pane })).text,
      type: async (text) => { await client.request('pane.send_text', { pane_id: pane, text }); },
      key: async (name) => { const t = Date.now(); await client.request('pane.send_keys', { pane_id: pane, keys: [name] }); return t; },
    };
    const scenario = runScenario(agent, term, mock, log);
    // After a timeout the abandoned scenario fails on its own once the server is gone: not an unhandled rejection.
    scenario.catch(() => undefined);
    const marks = await withTimeout(scenario, RUN_TIMEOUT_MS, `${agent}/${mode} scenario`);
    const f = flicker(marks, events);
    return { agent, mode, run, latencies: score(marks, events), flicker: f.length, flickers: f };
  } finally {
    await api?.request('server.stop', {}, 3000).catch(() => undefined);
    api?.close();
    await mock.stop();
    await sleep(500);
    await reap(home, log);
    homes.delete(home);
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };

async function main(): Promise<void> {
  for (const a of agents) if (!AGENTS[a]) throw new Error(`unknown agent ${a}`);
  const merge = arg('merge', '');
  if (merge) {
    const files = merge.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')) as { loadavg: number[]; results: Result[] });
    console.log(`merged ${files.length} file(s); load averages at their ends: ${files.map((f) => f.loadavg.map((l) => l.toFixed(1)).join('/')).join(', ')}`);
    return table(files.flatMap((f) => f.results));
  }
  const results: Result[] = [];
  const failed: string[] = [];
  const loadStart = loadavg();
  for (let r = 1; r <= runs; r++) {
    for (const agent of agents) {
      for (const mode of modes) {
        try { results.push(await runOne(agent, mode, r)); } catch (e) { failed.push(`${agent}/${mode}#${r}: ${(e as Error).message}`); process.stderr.write(`${agent}/${mode}#${r} failed: ${(e as Error).message}\n`); }
      }
    }
  }
  const json = arg('json', '');
  if (json) writeFileSync(json, JSON.stringify({ bin: BIN, loadStart, loadavg: loadavg(), results, failed }, null, 1));
  // Timings on a loaded machine are upper bounds: the load goes with them.
  console.log(`castellan ${BIN}; load average at start ${loadStart.map((l) => l.toFixed(2)).join(' ')}, at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${runs} run(s)`);
  table(results);
  if (failed.length) console.log(`failed runs (not in the table): ${failed.join('; ')}`);
}

/**
 * missed: no badge showed the state before the next step of the scenario (e.g. a 5 s stale-hook correction);
 * short: the agent left the state within 250 ms (pi draws its gate 0.1 s after the prompt), so none was owed.
 * flicker: per run, the badge changes the agent did not make (0 is the target).
 */
function table(results: Result[]): void {
  console.log('| agent | mode | transition | median ms | max ms | n | missed | short |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const agent of agents) {
    for (const mode of modes) {
      const rs = results.filter((x) => x.agent === agent && x.mode === mode);
      if (!rs.length) continue;
      const names = [...new Set(rs.flatMap((x) => x.latencies.map((l) => l.transition)))];
      for (const n of names) {
        const all = rs.flatMap((x) => x.latencies.filter((l) => l.transition === n));
        const got = all.map((l) => l.ms).filter((v): v is number => v !== null);
        const short = all.filter((l) => l.short).length;
        console.log(`| ${agent} | ${mode} | ${n} | ${got.length ? median(got) : '-'} | ${got.length ? Math.max(...got) : '-'} | ${got.length} | ${all.length - got.length - short} | ${short} |`);
      }
      const total = rs.reduce((s, x) => s + x.flicker, 0);
      console.log(`| ${agent} | ${mode} | **flicker** | ${total} in ${rs.length} run(s) (${rs.map((x) => x.flicker).join(', ')}) | | | ${rs.flatMap((x) => x.flickers).join('; ')} | |`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
