// The scale bench's herd: 64 panes (16 windows of 2 fake agents + 2 shells) in castellan or tmux, a client attached.
//
// The agents are bench/scale/fake-agent.mjs: real agents' recorded streams replayed at their own cadence, named as
// the agent (so castellan identifies and reads them as it does the real ones). Both systems get the same panes in the
// same order; `working()` starts n agents spinning (one of them in the visible window), `cpu()` samples a window.
import { fileURLToPath } from 'node:url';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { cpuMs, rssKiB } from '../lib/proc.js';
import type { TermClient } from '../lib/term-client.js';
import { TmuxServer } from '../lib/tmux.js';
import { median, now, shq, sleep } from '../lib/util.js';

export const FAKE_AGENT = fileURLToPath(new URL('./fake-agent.mjs', import.meta.url));
export const AGENT_KINDS = ['claude', 'codex', 'gemini', 'pi'] as const;
export const SHELL = ['bash', '--norc', '--noprofile'];

export interface PaneSpec {
  /** The pane's program (argv). */
  command: string[];
  agent?: string;
}

/** 16 windows x (agent, agent, shell, shell): 32 agents (claude, codex, gemini, pi in turn) and 32 shells. */
export function herdSpec(windows = 16): PaneSpec[][] {
  const out: PaneSpec[][] = [];
  let k = 0;
  for (let w = 0; w < windows; w++) {
    const win: PaneSpec[] = [];
    for (let i = 0; i < 2; i++) {
      const agent = AGENT_KINDS[k++ % AGENT_KINDS.length];
      win.push({ agent, command: [process.execPath, FAKE_AGENT, agent, '--fast'] });
    }
    win.push({ command: SHELL }, { command: SHELL });
    out.push(win);
  }
  return out;
}

export interface CpuWindow {
  seconds: number;
  /** Server CPU, % of a core, over the whole window. */
  serverPct: number;
  clientPct: number;
  /** Median of the 500 ms samples of server CPU, % of a core (a GC burst does not move it). */
  serverMedianPct: number;
  serverRssKiB: number;
}

export interface Herd {
  name: 'castellan' | 'tmux';
  pid: number;
  client: TermClient;
  /** Pane ids in spec order (window by window). */
  panes: Array<{ id: string; agent?: string }>;
  type(pane: string, text: string): Promise<void>;
  stop(): Promise<void>;
}

export async function sampleCpu(pid: number, clientPid: number, seconds: number): Promise<CpuWindow> {
  const s0 = cpuMs(pid), c0 = cpuMs(clientPid), t0 = now();
  const samples: number[] = [];
  let prev = s0, prevT = t0;
  const end = t0 + seconds * 1000;
  while (now() < end) {
    await sleep(Math.min(500, Math.max(1, end - now())));
    const x = cpuMs(pid), t = now();
    samples.push(((x - prev) / (t - prevT)) * 100);
    prev = x;
    prevT = t;
  }
  const ms = now() - t0;
  return { seconds: ms / 1000, serverPct: ((cpuMs(pid) - s0) / ms) * 100, clientPct: ((cpuMs(clientPid) - c0) / ms) * 100, serverMedianPct: median(samples), serverRssKiB: rssKiB(pid) };
}

export async function castellanHerd(b: BenchEnv, spec = herdSpec(), o: { cols?: number; rows?: number; profile?: boolean } = {}): Promise<Herd & { s: CastellanServer }> {
  const cols = o.cols ?? 202, rows = o.rows ?? 53;
  const s = await CastellanServer.start(b, { cols, rows, command: spec[0][0].command, profile: o.profile });
  try {
    const panes: Herd['panes'] = [];
    for (let w = 0; w < spec.length; w++) {
      let first: string;
      if (w === 0) first = 'w1:p1';
      else first = (await s.api.request<{ pane_id: string }>('window.new', { command: spec[w][0].command, focus: false })).pane_id;
      panes.push({ id: first, agent: spec[w][0].agent });
      // 2x2: right of the first, then below each.
      const right = (await s.api.request<{ pane_id: string }>('pane.split', { pane_id: first, direction: 'right', command: spec[w][1].command, focus: false })).pane_id;
      panes.push({ id: right, agent: spec[w][1].agent });
      for (const [of, p] of [[first, spec[w][2]], [right, spec[w][3]]] as const) {
        const id = (await s.api.request<{ pane_id: string }>('pane.split', { pane_id: of, direction: 'down', command: p.command, focus: false })).pane_id;
        panes.push({ id, agent: p.agent });
      }
    }
    await s.api.request('window.select', { window_id: 'w1' }).catch(() => undefined);
    await s.notePanes();
    const client = await s.attach(cols, rows);
    return {
      name: 'castellan', pid: s.pid, client, panes, s,
      type: async (pane, text) => void (await s.api.request('pane.send_text', { pane_id: pane, text })),
      stop: () => s.stop(),
    };
  } catch (e) {
    await s.stop();
    throw e;
  }
}

export async function tmuxHerd(b: BenchEnv, spec = herdSpec(), o: { cols?: number; rows?: number } = {}): Promise<Herd & { t: TmuxServer }> {
  const cols = o.cols ?? 200, rows = o.rows ?? 51;
  const cmd = (p: PaneSpec) => p.command.map(shq).join(' ');
  const t = await TmuxServer.start(b, { cols, rows: rows - 1, command: cmd(spec[0][0]) });
  try {
    const panes: Herd['panes'] = [];
    const pid1 = async (target: string) => (await t.cmd('display-message', '-p', '-t', target, '#{pane_id}')).trim();
    for (let w = 0; w < spec.length; w++) {
      if (w > 0) await t.cmd('new-window', '-d', '-t', `b:${w}`, cmd(spec[w][0]));
      const first = await pid1(`b:${w}.0`);
      panes.push({ id: first, agent: spec[w][0].agent });
      const right = (await t.cmd('split-window', '-d', '-h', '-P', '-F', '#{pane_id}', '-t', first, cmd(spec[w][1]))).trim();
      panes.push({ id: right, agent: spec[w][1].agent });
      for (const [of, p] of [[first, spec[w][2]], [right, spec[w][3]]] as const) {
        const id = (await t.cmd('split-window', '-d', '-v', '-P', '-F', '#{pane_id}', '-t', of, cmd(p))).trim();
        panes.push({ id, agent: p.agent });
      }
    }
    await t.cmd('select-window', '-t', 'b:0');
    await t.notePanes();
    const client = await t.attach(cols, rows);
    return {
      name: 'tmux', pid: t.pid, client, panes, t,
      type: async (pane, text) => void (await t.cmd('send-keys', '-t', pane, '-l', text)),
      stop: () => t.stop(),
    };
  } catch (e) {
    await t.stop();
    throw e;
  }
}

/** Starts n agents working: the visible window's first agent, then one agent in each following window. */
export async function startWorking(h: Herd, n: number): Promise<string[]> {
  const agents = h.panes.filter((p) => p.agent);
  const chosen = agents.filter((_, i) => i % 2 === 0).slice(0, n);
  for (const p of chosen) await h.type(p.id, 'w');
  return chosen.map((p) => p.id);
}

export async function stopWorking(h: Herd, panes: string[]): Promise<void> {
  for (const p of panes) await h.type(p, 'r');
}

