// The per-agent resume table: how each agent is resumed by session id (or its latest conversation), keeping its original flags.
import { agentOfProcess } from '../detect/identify.js';
import { hasControls } from '../core/text.js';
import { sessionIdSchema } from './schema.js';

export interface ResumeRow {
  agent: string;
  /** Flags kept with their value (`--model x`, `--model=x`). */
  valueFlags: readonly string[];
  /** Flags kept alone. */
  boolFlags: readonly string[];
  /** Flags dropped together with their value: an old resume target, a one-shot prompt, an output mode. */
  dropValueFlags: readonly string[];
  /** The argv that resumes conversation `id` with `flags`. */
  resume(flags: string[], id: string): string[];
  /** The argv that resumes the latest conversation in the cwd, when no id is known. */
  latest(flags: string[]): string[];
}

/** Add a row to teach castellan to resume another agent. Flags not listed are dropped (say so in the pane). */
export const RESUME_TABLE: readonly ResumeRow[] = [
  {
    agent: 'claude',
    valueFlags: ['--model', '--permission-mode', '--settings', '--add-dir', '--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools', '--mcp-config', '--append-system-prompt', '--system-prompt', '--fallback-model', '--agent', '--effort', '--setting-sources', '--plugin-dir'],
    boolFlags: ['--dangerously-skip-permissions', '--allow-dangerously-skip-permissions', '--verbose', '--debug', '--ide', '--strict-mcp-config', '--chrome', '--no-chrome'],
    dropValueFlags: ['--resume', '-r', '--session-id', '--output-format', '--input-format', '--max-turns', '-p', '--print'],
    resume: (f, id) => ['claude', ...f, '--resume', id],
    latest: (f) => ['claude', ...f, '--continue'],
  },
  {
    agent: 'codex',
    valueFlags: ['--model', '-m', '--sandbox', '-s', '--ask-for-approval', '-a', '--config', '-c', '--profile', '-p', '--cd', '-C', '--add-dir', '--enable', '--disable'],
    boolFlags: ['--yolo', '--full-auto', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', '--search', '--oss', '--no-alt-screen', '--no-daemon'],
    dropValueFlags: ['--image', '-i'],
    resume: (f, id) => ['codex', 'resume', ...f, id],
    latest: (f) => ['codex', 'resume', ...f, '--last'],
  },
  {
    agent: 'gemini',
    valueFlags: ['--model', '-m', '--approval-mode', '--include-directories', '--extensions', '-e', '--allowed-tools', '--allowed-mcp-server-names', '--sandbox-image'],
    boolFlags: ['--yolo', '-y', '--sandbox', '-s', '--debug', '-d', '--screen-reader', '--checkpointing'],
    dropValueFlags: ['--resume', '-r', '--prompt', '-p', '--prompt-interactive', '-i', '--output-format', '-o', '--delete-session'],
    resume: (f, id) => ['gemini', ...f, '--resume', id],
    latest: (f) => ['gemini', ...f, '--resume', 'latest'],
  },
  {
    agent: 'pi',
    valueFlags: ['--model', '--provider', '--thinking', '--models', '--tools', '--append-system-prompt', '--system-prompt', '--extension', '-e', '--skill'],
    boolFlags: ['--no-tools', '--no-extensions', '--no-skills', '--verbose'],
    dropValueFlags: ['--session', '--session-dir', '--mode', '--api-key', '--export', '-p', '--print'],
    resume: (f, id) => ['pi', ...f, '--session', id],
    latest: (f) => ['pi', ...f, '--continue'],
  },
];

export const resumeRow = (agent: string | undefined): ResumeRow | undefined => RESUME_TABLE.find((r) => r.agent === agent);

/** Where the agent's own arguments start in a process argv (`node …/gemini --model x` → after the script). */
export function agentArgStart(argv: readonly string[], agent: string): number | undefined {
  for (let i = 0; i < Math.min(argv.length, 6); i++) {
    if (agentOfProcess({ comm: '', argv: [argv[i]] }) === agent) return i + 1;
  }
  return undefined;
}

/** The flags of the original command line that the resume row keeps, and the ones it dropped. */
export function keptFlags(row: ResumeRow, args: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (hasControls(a) || a.length > 4096) {
      dropped.push('(unprintable argument)');
      continue;
    }
    if (a === '--') {
      dropped.push(...args.slice(i));
      break;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (row.valueFlags.includes(name)) {
      if (eq > 0) kept.push(a);
      else if (i + 1 < args.length && !hasControls(args[i + 1])) kept.push(a, args[++i]);
      else dropped.push(a);
    } else if (row.boolFlags.includes(name) && eq < 0) {
      kept.push(a);
    } else if (row.dropValueFlags.includes(name)) {
      dropped.push(a);
      if (eq < 0 && i + 1 < args.length && !args[i + 1].startsWith('-')) i++;
    } else {
      // Unknown flags and positionals (a first prompt, `resume`, an old id) are not replayed: they could re-send a prompt.
      dropped.push(a);
    }
  }
  return { kept, dropped };
}

export interface ResumeCommand {
  argv: string[];
  /** `id`: the same conversation; `latest`: the agent's most recent one in that directory. */
  how: 'id' | 'latest';
  dropped: string[];
}

/** How to bring back an agent: its resume argv (program by bare name, found on PATH), or undefined when castellan does not know how. */
export function resumeCommand(agent: string, foreground: readonly string[], sessionId: string | undefined): ResumeCommand | undefined {
  const row = resumeRow(agent);
  if (!row) return undefined;
  const start = agentArgStart(foreground, agent) ?? foreground.length;
  const { kept, dropped } = keptFlags(row, foreground.slice(start));
  const id = sessionId && sessionIdSchema.safeParse(sessionId).success ? sessionId : undefined;
  return id ? { argv: row.resume(kept, id), how: 'id', dropped } : { argv: row.latest(kept), how: 'latest', dropped };
}
