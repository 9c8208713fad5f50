// Agent definitions: Markdown files with YAML frontmatter (project .castellan/agents, user ~/.castellan/agents), validated with diagnostics.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { findExecutable } from '../platform/exec-path.js';
import { readFileBounded } from '../platform/read-file.js';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { parseDocument as ParseDocument } from 'yaml';
import { z } from 'zod';
import { AGENT_HOOK_TYPES, MAX_COMMAND, hooksSchema, unalias, type AgentHooks, type AgentHookType } from './agent-hooks-schema.js';
import { frontmatterShapeProblem, lineOf, splitFrontmatter } from './frontmatter.js';
import { trustStatus, type TrustData } from './trust.js';
import { findProjectRoot, formatPath, loadConfig, type Diagnostic } from './load.js';
import { DEFAULT_AGENTS } from './schema.js';

// Loaded on the first definition parsed: a server with no agent definitions never loads yaml (73 modules).
let yamlParse: typeof ParseDocument | undefined;
const parseDocument: typeof ParseDocument = (...a) => (yamlParse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parseDocument)(...a);

/** Agents castellan knows how to talk to (how the first message is delivered, which bridge answers). */
export const AGENT_KINDS = [...DEFAULT_AGENTS, 'other'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

export { AGENT_HOOK_TYPES, compilePattern, type AgentHookEntry, type AgentHooks, type AgentHookType } from './agent-hooks-schema.js';

const MAX_FILE = 1024 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;


const frontSchema = z.looseObject({
  name: z.string().regex(NAME, 'use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
  description: z.string().max(1000).optional(),
  // Optional: without it the program is the `agent`, else `[agents] default`, else the first agent on PATH.
  command: z.string().trim().min(1, 'the command is empty (leave it out to run the agent named by `agent` or the default)').max(MAX_COMMAND).optional(),
  agent: z.enum(AGENT_KINDS).optional(),
  hooks: z.unknown().optional(),
  // Start it in a git worktree of its own by default (agent.start / prefix a), as `--worktree` does.
  worktree: z.boolean().optional(),
});

/** Where the program of a definition came from: its `command`, its `agent`, `[agents] default`, the first on PATH, or nowhere. */
export type CommandSource = 'command' | 'agent' | 'default' | 'path' | 'none';

export interface AgentDefinition {
  name: string;
  description: string;
  /** What runs in the pane (`/bin/sh -c COMMAND`); empty when nothing names a program (then it cannot start). */
  command: string;
  commandFrom: CommandSource;
  /** Which agent it is (frontmatter `agent`, else guessed from the command's words). */
  kind: AgentKind;
  /** The Markdown body: the agent's instructions. */
  body: string;
  file: string;
  source: 'project' | 'user';
  sha256: string;
  hooks: AgentHooks;
  /** false: the hooks block was invalid and is skipped (see the diagnostics). */
  hooksValid: boolean;
  /** Starts in a new git worktree unless the start says otherwise (src/worktree). */
  worktree?: boolean;
}

export interface ListedAgent extends AgentDefinition {
  /** `user` files need no trust. */
  trust: 'trusted' | 'untrusted' | 'changed' | 'user';
  startable: boolean;
  /** Why it cannot be started. */
  reason?: string;
}

/** The agent a command line starts: the first word whose basename is a known agent (`run-agent.sh ... claude` too). */
export function guessKind(command: string): AgentKind {
  for (const w of command.split(/\s+/)) {
    const b = basename(w.replace(/^['"]|['"]$/g, ''));
    const kind = DEFAULT_AGENTS.find((a) => a === b);
    if (kind) return kind;
  }
  return 'other';
}

/** Parses one definition file. Never throws: problems are diagnostics; an invalid hooks block is dropped, the agent kept. */
export function parseAgentFile(text: string, file: string, source: 'project' | 'user', sha256 = createHash('sha256').update(text).digest('hex')): { agent?: AgentDefinition; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const err = (message: string, extra: Partial<Diagnostic> = {}) => diagnostics.push({ severity: 'error', file, message, ...extra });
  const fm = splitFrontmatter(text);
  if (!fm) {
    err('no YAML frontmatter: the file must start with a "---" line, the fields, and a closing "---" line');
    return { diagnostics };
  }
  const shape = frontmatterShapeProblem(fm.yaml);
  if (shape) {
    err(`frontmatter is refused: ${shape}`);
    return { diagnostics };
  }
  const doc = parseDocument(fm.yaml, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    err(`frontmatter is not valid YAML: ${e.message.split('\n')[0]}`, { line: lineOf(fm.yaml, e.pos?.[0], fm.yamlLine) });
    return { diagnostics };
  }
  let raw: unknown;
  try {
    // An alias bomb (a billion laughs) is refused by the yaml library; a few aliases are plenty for a definition.
    raw = doc.toJS({ maxAliasCount: 50 });
  } catch (e) {
    err(`frontmatter is refused: ${(e as Error).message.split('\n')[0]}`);
    return { diagnostics };
  }
  // The line of the field, or of the nearest enclosing one that exists (a missing field is reported where it belongs).
  const where = (path: ReadonlyArray<PropertyKey>) => {
    const keys = path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    for (let n = keys.length; n > 0; n--) {
      const node = doc.getIn(keys.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lineOf(fm.yaml, node.range[0], fm.yamlLine);
    }
    return undefined;
  };
  const front = frontSchema.safeParse(raw ?? {});
  if (!front.success) {
    for (const i of front.error.issues) {
      const path = i.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      err(i.message, { path: formatPath(path) || undefined, line: where(path) });
    }
    return { diagnostics };
  }
  let hooks: AgentHooks = {};
  let hooksValid = true;
  if (front.data.hooks !== undefined && front.data.hooks !== null) {
    const h = hooksSchema.safeParse(unalias(front.data.hooks));
    if (h.success) hooks = h.data as AgentHooks;
    else {
      hooksValid = false;
      // One diagnostic for the block: the first problem, where it is, and what happens now.
      const first = h.error.issues[0];
      const at = first.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      const unknown = first.code === 'unrecognized_keys' ? first.keys[0] : undefined;
      const path = ['hooks', ...at, ...(unknown !== undefined ? [unknown] : [])];
      const what =
        unknown === undefined ? first.message : at.length === 0 ? `unknown hook type (use ${AGENT_HOOK_TYPES.join(', ')}, or Stop for SubagentStop)` : 'unknown field (use type, command, pattern, reason, prompt, timeout_ms, strength)';
      const more = h.error.issues.length > 1 ? ` (+${h.error.issues.length - 1} more)` : '';
      err(`${what}${more}; the agent does not start until its hooks parse (a hook written to deny must not be dropped)`, {
        path: formatPath(path),
        line: where(path),
      });
    }
  }
  if (front.data.command === undefined && front.data.agent === 'other') {
    err('`agent: other` names no program: give the definition a `command`', { path: 'command', line: where(['agent']) });
    return { diagnostics };
  }
  const named = front.data.command ?? front.data.agent;
  const agent: AgentDefinition = {
    name: front.data.name,
    description: (front.data.description ?? '').trim(),
    command: named ?? '',
    commandFrom: front.data.command !== undefined ? 'command' : named ? 'agent' : 'none',
    kind: front.data.agent ?? guessKind(named ?? ''),
    body: fm.body.trim(),
    file,
    source,
    sha256,
    hooks,
    hooksValid,
    ...(front.data.worktree ? { worktree: true } : {}),
  };
  return { agent, diagnostics };
}

/** The first of the known agents found as an executable on PATH (a relative PATH entry is skipped: it depends on the cwd). */
export function firstAgentOnPath(pathEnv: string | undefined): AgentKind | undefined {
  return DEFAULT_AGENTS.find((name) => findExecutable(name, { path: pathEnv ?? '' }));
}

/**
 * A definition without a program gets one: `[agents] default` (from the merged config, so an untrusted repository
 * cannot choose it), else the first of claude/codex/gemini/pi on PATH. Nothing found: listed, not startable.
 */
function withProgram<T extends AgentDefinition>(a: T, pick: () => { kind?: AgentKind; from: CommandSource }): T {
  if (a.commandFrom !== 'none') return a;
  const p = pick();
  return p.kind ? { ...a, command: p.kind, commandFrom: p.from, kind: p.kind } : a;
}

/** Where definitions live for a working directory. The project dir is left out when it is the user's own (cwd under HOME with no project). */
export function agentDirs(cwd: string, home: string): { project?: string; user: string } {
  const user = resolve(home, '.castellan', 'agents');
  const project = resolve(findProjectRoot(cwd, { home }), '.castellan', 'agents');
  return project === user ? { user } : { project, user };
}

/** The `*.md` files of a definitions directory, sorted; a missing directory has none. */
export function agentFiles(dir: string | undefined): string[] {
  if (!dir) return [];
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

function readDefinition(file: string, source: 'project' | 'user'): { agent?: AgentDefinition; diagnostics: Diagnostic[] } {
  const r = readFileBounded(file, MAX_FILE);
  if (!r.ok) return { diagnostics: [{ severity: 'error', file, message: `cannot read: ${r.message}; skipped` }] };
  // A NUL byte never belongs in Markdown with YAML frontmatter: a binary file, not worth parsing.
  if (r.buf.includes(0)) return { diagnostics: [{ severity: 'error', file, message: 'is a binary file (it holds NUL bytes); skipped' }] };
  // Hashed as bytes, exactly as `castellan trust` records it.
  return parseAgentFile(r.buf.toString('utf8'), file, source, createHash('sha256').update(r.buf).digest('hex'));
}

/**
 * Every definition visible from `cwd`: project ones first (they win a name clash), then the user's. Project files
 * are startable only while trusted with their current content (`castellan trust`); they are listed either way.
 */
export function loadAgents(o: {
  cwd: string;
  home: string;
  trust: TrustData;
  /** `[agents] default`; read from the config seen from `cwd` when not given. */
  defaultAgent?: AgentKind | null;
  /** PATH searched for an agent when neither is set (default: this process's). */
  pathEnv?: string;
}): { agents: ListedAgent[]; diagnostics: Diagnostic[] } {
  const dirs = agentDirs(o.cwd, o.home);
  let picked: { kind?: AgentKind; from: CommandSource } | undefined;
  const pick = () =>
    (picked ??= (() => {
      const d = o.defaultAgent !== undefined ? o.defaultAgent ?? undefined : loadConfig({ cwd: o.cwd, home: o.home, trust: o.trust }).config.agents.default;
      if (d) return { kind: d, from: 'default' as const };
      const onPath = firstAgentOnPath(o.pathEnv ?? process.env.PATH);
      return onPath ? { kind: onPath, from: 'path' as const } : { from: 'none' as const };
    })());
  const root = findProjectRoot(o.cwd, { home: o.home });
  const diagnostics: Diagnostic[] = [];
  const agents: ListedAgent[] = [];
  const byName = new Map<string, ListedAgent>();
  const add = (file: string, source: 'project' | 'user') => {
    const r = readDefinition(file, source);
    diagnostics.push(...r.diagnostics);
    if (!r.agent) return;
    r.agent = withProgram(r.agent, pick);
    const prev = byName.get(r.agent.name);
    if (prev) {
      diagnostics.push({ severity: 'warning', file, path: 'name', message: `agent "${r.agent.name}" is already defined in ${prev.file}; this one is ignored` });
      return;
    }
    let listed: ListedAgent;
    if (!r.agent.command) {
      const t = source === 'user' ? 'user' : trustStatus(o.trust, file, r.agent.sha256, root);
      listed = { ...r.agent, trust: t, startable: false, reason: `${file} names no program: give it a \`command\` or an \`agent\`, set \`[agents] default\`, or put claude, codex, gemini or pi on PATH` };
    } else if (source === 'user') listed = { ...r.agent, trust: 'user', startable: true };
    else {
      const t = trustStatus(o.trust, file, r.agent.sha256, root);
      listed =
        t === 'trusted'
          ? { ...r.agent, trust: t, startable: true }
          : {
              ...r.agent,
              trust: t,
              startable: false,
              reason:
                t === 'untrusted'
                  ? `${file} is not trusted; run \`castellan trust\` in the project to allow this agent to start`
                  : `${file} changed since it was trusted; run \`castellan trust\` again to allow this agent to start`,
            };
    }
    // Hooks written to stop something (a SubagentStop deny) that do not parse must not start the agent without them.
    if (listed.startable && !listed.hooksValid) {
      listed = { ...listed, startable: false, reason: `${file}: its hooks do not parse, and castellan does not start an agent without the hooks written for it (castellan agent list shows the problem)` };
    }
    byName.set(listed.name, listed);
    agents.push(listed);
  };
  for (const f of agentFiles(dirs.project)) add(f, 'project');
  for (const f of agentFiles(dirs.user)) add(f, 'user');
  return { agents, diagnostics };
}

/** The public JSON shape of a listed agent definition (the agent.list method and `castellan agent list --json`). */
export function agentSummary(a: Pick<ListedAgent, 'name' | 'description' | 'command' | 'commandFrom' | 'source' | 'file' | 'trust' | 'startable' | 'reason' | 'hooksValid'> & { kind: string; hooks: Partial<Record<string, unknown[]>> }) {
  return {
    name: a.name,
    description: a.description,
    command: a.command,
    command_from: a.commandFrom,
    kind: a.kind,
    source: a.source,
    file: a.file,
    trust: a.trust,
    startable: a.startable,
    ...(a.reason ? { reason: a.reason } : {}),
    hooks: Object.fromEntries(Object.entries(a.hooks).map(([k, v]) => [k, v?.length ?? 0])),
    hooks_valid: a.hooksValid,
  };
}
