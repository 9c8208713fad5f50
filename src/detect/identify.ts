// Which agent runs in a pane: from its process tree (foreground first), what the agent reported, or the launch command.
//
// Never from the screen alone: a transcript can quote another agent's screen. Native agents are found
// by process name (claude 2.1.x and codex are binaries); node/bun/python agents by their script in
// argv (`node …/bin/gemini`, `node …/pi-coding-agent/dist/cli.js`). Wrappers (npx, npm exec, the
// codex node shim) are looked through: the nearest match under the foreground process wins. The signatures are
// data: each rule file's `[identify]` table (src/detect/signatures.ts).
import { builtinRules } from './rules.js';
import type { Signature } from './signatures.js';

export type { Signature };

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** The kernel's short program name (comm): the executable name, at most 15 characters. */
  comm: string;
  /** The process's argv (may be empty for kernel threads or vanished processes). */
  argv: readonly string[];
}

export interface IdentifyInput {
  /** The pane's process tree (the pane's root process and its descendants); may be empty. */
  processes: readonly ProcInfo[];
  /** The pane's root process (the one castellan spawned). Default: the process whose parent is not listed. */
  rootPid?: number;
  /** Leader of the terminal's foreground process group (tpgid), when known. */
  foregroundPid?: number;
  /** The command the pane was launched with (argv). */
  launchCommand?: readonly string[];
  /** The agent a hook bridge or the API reported for this pane. */
  reported?: string;
  /** Signature rows to match (default: the built-in ones); the server adds the user's rule files' rows. */
  signatures?: readonly Signature[];
}

export type IdentifySource = 'process' | 'report' | 'command' | 'shell' | 'none';

export interface Identification {
  agent?: string;
  source: IdentifySource;
  /** The process that matched, for `source = "process"`. */
  pid?: number;
  /** Short human reason ("pid 123 node …/gemini", "foreground is bash"). */
  why: string;
}

/**
 * The table of agents castellan recognises: the `[identify]` rows of the built-in rule files (src/detect/rules/*.toml),
 * loaded once. The server passes its own table (built-in rows plus the user's ~/.castellan/detect files) to identify().
 */
export function builtinSignatures(): readonly Signature[] {
  return builtinRules().signatures;
}

const matches = (s: Signature, arg: string): boolean => s.scripts.some((re) => re.test(arg)) || s.packageRes.some((re) => re.test(arg));

const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3', 'tsx', 'npx', 'npm', 'pnpm', 'yarn', 'uv', 'uvx', 'pipx']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'fish', 'dash', 'ksh', 'tcsh', 'csh', 'nu', 'elvish', 'xonsh', 'pwsh', 'login']);

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const isInterpreter = (name: string): boolean => INTERPRETERS.has(name) || /^(?:node|python3?)[\d.]*$/.test(name);

/** The agent one process is, judged from its name and arguments alone. */
export function agentOfProcess(p: Pick<ProcInfo, 'comm' | 'argv'>, table: readonly Signature[] = builtinSignatures()): string | undefined {
  const exe = base(p.argv[0] ?? '') || p.comm;
  for (const name of [p.comm, exe]) {
    const hit = table.find((s) => s.names.includes(name));
    if (hit) return hit.agent;
  }
  // `cursor-agent` is started as `agent`: only its install path tells it apart from other "agent"s.
  if (!isInterpreter(p.comm) && !isInterpreter(exe)) {
    const path = p.argv[0] ?? '';
    const hit = path.includes('/') ? table.find((s) => matches(s, path)) : undefined;
    return hit?.agent;
  }
  for (const arg of p.argv.slice(1, 6)) {
    if (arg.startsWith('-')) continue;
    const hit = table.find((s) => matches(s, arg));
    if (hit) return hit.agent;
  }
  return undefined;
}

/** Breadth-first from `start`: the nearest descendant (or itself) that is an agent. */
function searchTree(procs: readonly ProcInfo[], start: number, table: readonly Signature[]): { agent: string; proc: ProcInfo } | undefined {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p); else children.set(p.ppid, [p]);
  }
  const first = byPid.get(start);
  const queue: ProcInfo[] = first ? [first] : [...(children.get(start) ?? [])];
  const seen = new Set<number>();
  while (queue.length) {
    const p = queue.shift()!;
    if (seen.has(p.pid)) continue;
    seen.add(p.pid);
    const agent = agentOfProcess(p, table);
    if (agent) return { agent, proc: p };
    queue.push(...(children.get(p.pid) ?? []).sort((a, b) => a.pid - b.pid));
  }
  return undefined;
}

const describe = (p: ProcInfo): string => `pid ${p.pid} ${[p.comm, ...p.argv.slice(1, 3)].join(' ').slice(0, 120)}`;

/** Pure: decides the pane's agent. Order: process tree, then a report, then the launch command. */
export function identify(input: IdentifyInput): Identification {
  const procs = input.processes;
  const table = input.signatures ?? builtinSignatures();
  if (procs.length > 0) {
    const pids = new Set(procs.map((p) => p.pid));
    const root = input.rootPid ?? procs.find((p) => !pids.has(p.ppid))?.pid ?? procs[0].pid;
    const fg = input.foregroundPid !== undefined && pids.has(input.foregroundPid) ? input.foregroundPid : undefined;
    // The foreground group is what the user talks to; a background job is not the pane's agent.
    const hit = searchTree(procs, fg ?? root, table);
    if (hit) return { agent: hit.agent, source: 'process', pid: hit.proc.pid, why: describe(hit.proc) };
    const front = procs.find((p) => p.pid === (fg ?? root));
    if (front && SHELLS.has(front.comm.replace(/^-/, ''))) {
      // Back at a shell prompt: whatever was reported or launched before has exited.
      return { source: 'shell', why: `foreground is ${front.comm} (pid ${front.pid})` };
    }
    if (input.reported) return { agent: input.reported, source: 'report', why: `reported by the agent; foreground ${front ? describe(front) : 'unknown'}` };
    return { source: 'none', why: front ? `foreground ${describe(front)} is no known agent` : 'no foreground process' };
  }
  if (input.reported) return { agent: input.reported, source: 'report', why: 'reported by the agent (process tree unavailable)' };
  const cmd = input.launchCommand ?? [];
  if (cmd.length > 0) {
    const agent = agentOfProcess({ comm: base(cmd[0]), argv: cmd }, table);
    if (agent) return { agent, source: 'command', why: `launched as ${cmd.join(' ').slice(0, 120)}` };
    // `sh -c "claude --resume"` and friends
    const inline = cmd.length >= 3 && SHELLS.has(base(cmd[0])) && cmd[1] === '-c' ? cmd[2].trim().split(/\s+/) : undefined;
    const agent2 = inline ? agentOfProcess({ comm: base(inline[0]), argv: inline }, table) : undefined;
    if (agent2) return { agent: agent2, source: 'command', why: `launched as ${cmd.join(' ').slice(0, 120)}` };
  }
  return { source: 'none', why: 'no process information, report or known launch command' };
}
