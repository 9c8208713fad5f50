// The per-agent resume table: how each agent is resumed by session id (or its latest conversation), keeping its original flags.
import { agentOfProcess } from '../detect/identify.js';
import { hasControls } from '../core/text.js';
import { LIMITS, sessionIdSchema } from './schema.js';

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
  /**
   * Without the pane's own id: `latest` types `latest()`; `none` resumes nothing and says so (issue 30 item 13): the
   * agent's "most recent conversation here" may be another pane's or an older one, and castellan never guesses between
   * candidates. `latest()` is then only shown as what to type by hand.
   */
  withoutId?: 'latest' | 'none';
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
  // The four below: flags from each CLI's --help in agent-lab (opencode 1.18.33, Kilo 7.7.7, Copilot CLI 1.0.102,
  // Qwen Code 0.24.4); their ids come from their hook payloads (integrations/*.ts `tools.session`).
  {
    agent: 'opencode',
    valueFlags: ['--model', '-m', '--agent', '--log-level', '--replay-limit'],
    boolFlags: ['--auto', '--mini', '--no-replay', '--pure', '--print-logs'],
    // --port/--hostname: a pinned server port may be taken now; -c/--continue/--fork: the resume decides.
    dropValueFlags: ['--session', '-s', '--continue', '-c', '--fork', '--prompt', '--port', '--hostname', '--mdns-domain', '--cors'],
    resume: (f, id) => ['opencode', ...f, '--session', id],
    latest: (f) => ['opencode', ...f, '--continue'],
    withoutId: 'none',
  },
  {
    agent: 'kilo',
    valueFlags: ['--model', '-m', '--agent', '--log-level', '--replay-limit'],
    boolFlags: ['--auto', '--mini', '--no-replay', '--pure', '--print-logs'],
    // --worktree: the pane's cwd already is that worktree (a second one would nest).
    dropValueFlags: ['--session', '-s', '--continue', '-c', '--fork', '--cloud-fork', '--worktree', '--prompt', '--port', '--hostname', '--mdns-domain', '--cors'],
    resume: (f, id) => ['kilo', ...f, '--session', id],
    latest: (f) => ['kilo', ...f, '--continue'],
    withoutId: 'none',
  },
  {
    agent: 'copilot',
    valueFlags: ['--model', '--reasoning-effort', '--context', '--auto-tier', '--agent', '--add-dir', '--plugin-dir', '--log-level', '--log-dir', '--stream', '--mode', '--max-autopilot-continues', '--allow-tool', '--deny-tool', '--available-tools', '--excluded-tools', '--allow-url', '--deny-url', '--disable-mcp-server', '--enable-mcp-server', '--additional-mcp-config', '--secret-env-vars'],
    boolFlags: ['--allow-all-tools', '--allow-all-paths', '--allow-all-urls', '--allow-all', '--yolo', '--autopilot', '--plan', '--experimental', '--no-experimental', '--banner', '--screen-reader', '--plain-diff', '--disallow-temp-dir', '--disable-builtin-mcps', '--no-custom-instructions', '--no-auto-update', '--no-ask-user', '--no-color', '--no-mouse', '--enable-all-github-mcp-tools', '--disable-client-telemetry'],
    // --session-id ID also *creates* a session when ID is unknown; --resume ID never starts a blank one silently.
    dropValueFlags: ['--resume', '-r', '--continue', '--session-id', '--connect', '--name', '-n', '--prompt', '-p', '--interactive', '-i', '--output-format', '--share', '--attachment', '--usage-output-file', '-C'],
    resume: (f, id) => ['copilot', ...f, '--resume', id],
    latest: (f) => ['copilot', ...f, '--continue'],
    withoutId: 'none',
  },
  {
    agent: 'qwen',
    valueFlags: ['--model', '-m', '--approval-mode', '--fallback-model', '--system-prompt', '--append-system-prompt', '--output-style', '--sandbox-image', '--allowed-mcp-server-names', '--mcp-config', '--allowed-tools', '--extensions', '-e', '--include-directories', '--add-dir', '--core-tools', '--exclude-tools', '--auth-type', '--openai-base-url', '--disabled-slash-commands', '--max-subagent-depth'],
    boolFlags: ['--yolo', '-y', '--sandbox', '-s', '--debug', '-d', '--bare', '--safe-mode', '--insecure', '--screen-reader', '--experimental-lsp'],
    // --openai-api-key: a secret is never typed into a shell (it would land in its history).
    dropValueFlags: ['--resume', '-r', '--continue', '-c', '--session-id', '--fork-session', '--prompt', '-p', '--prompt-interactive', '-i', '--output-format', '-o', '--input-format', '--worktree', '--json-fd', '--json-file', '--json-schema', '--input-file', '--max-session-turns', '--max-wall-time', '--max-tool-calls', '--acp', '--channel', '--openai-api-key'],
    resume: (f, id) => ['qwen', ...f, '--resume', id],
    latest: (f) => ['qwen', ...f, '--continue'],
    withoutId: 'none',
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

/**
 * The agent's command line for the snapshot. pi sets `process.title = "pi"`, which on Linux overwrites its argv: the
 * process list then shows `pi` and none of its flags. When the process shows the agent with no arguments, the first
 * source that knows them is used: each one is the agent's arguments (after the program), `undefined` when it knows
 * nothing. An empty array is an answer (the agent had no flags). What keptFlags later keeps is the same as ever.
 */
export function foregroundArgv(agent: string, procArgv: readonly string[], sources: ReadonlyArray<readonly string[] | undefined>): string[] {
  const start = agentArgStart(procArgv, agent);
  if (start === undefined || start < procArgv.length) return [...procArgv];
  const found = sources.find((s) => s !== undefined);
  return found ? [...procArgv, ...found] : [...procArgv];
}

/** The arguments after the agent's program in `argv` (a pane's launch command, a typed resume line), or undefined when `argv` does not run that agent. */
export function argsAfterAgent(argv: readonly string[] | undefined, agent: string): string[] | undefined {
  if (!argv?.length) return undefined;
  const start = agentArgStart(argv, agent);
  return start === undefined ? undefined : argv.slice(start);
}

/**
 * Never typed: control characters (a newline would end the typed line early), or a value as long as capture's clip
 * (LIMITS.arg): it may have been cut, and a cut value is another value.
 */
const unprintable = (a: string): boolean => hasControls(a) || a.length >= LIMITS.arg;

/** The flags of the original command line that the resume row keeps, and the ones it dropped. */
export function keptFlags(row: ResumeRow, args: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (unprintable(a)) {
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
      else if (i + 1 < args.length && !unprintable(args[i + 1])) kept.push(a, args[++i]);
      else {
        // Its value goes too: left behind it would be read as a positional (a prompt) — it is dropped either way.
        dropped.push(a);
        if (i + 1 < args.length) {
          dropped.push('(unprintable argument)');
          i++;
        }
      }
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
  /** What is typed; empty for `none`. */
  argv: string[];
  /** `id`: the same conversation; `latest`: the agent's most recent one in that directory; `none`: not resumed (no id, no guessing). */
  how: 'id' | 'latest' | 'none';
  dropped: string[];
  /** For `none`: what the user could type by hand (the agent's own "continue" form with the kept flags). */
  byHand?: string[];
}

/** How to bring back an agent: its resume argv (program by bare name, found on PATH), or undefined when castellan does not know how. */
/** The id a snapshot recorded for a pane, when it is one castellan would type. */
export const usableSessionId = (id: string | undefined): string | undefined => (id && sessionIdSchema.safeParse(id).success ? id : undefined);

export function resumeCommand(agent: string, foreground: readonly string[], sessionId: string | undefined, o: { guess?: boolean } = {}): ResumeCommand | undefined {
  const row = resumeRow(agent);
  if (!row) return undefined;
  const start = agentArgStart(foreground, agent) ?? foreground.length;
  const { kept, dropped } = keptFlags(row, foreground.slice(start));
  const id = sessionId && sessionIdSchema.safeParse(sessionId).success ? sessionId : undefined;
  if (id) return { argv: row.resume(kept, id), how: 'id', dropped };
  // `guess: false`: the restore plan saw more than one candidate for this pane's conversation (plan.ts).
  if (row.withoutId === 'none' || o.guess === false) return { argv: [], how: 'none', dropped, byHand: row.latest(kept) };
  return { argv: row.latest(kept), how: 'latest', dropped };
}
