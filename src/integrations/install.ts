// Plans (and applies) installing castellan's hook bridge into an agent's own settings, and taking it out again.
import { toolEventKind } from './govern.js';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { codexNotifyArgv, installedHookCommand, REPO_ROOT } from './command-line.js';
import { planNotify, removeNotify } from './codex-toml.js';
import { formatJsonDoc, type HookSpec, type JsonObject, listOurHooks, mergeHooks, parseJsonDoc, removeHooks, SettingsError } from './settings-json.js';
import { HARNESS_TABLES, installedEvents } from './tables.js';
import type { AgentName } from './types.js';

export type Scope = 'user' | 'project';

export interface InstallContext {
  home: string;
  /** The agents' own variables (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR). */
  env: NodeJS.ProcessEnv;
  /** Project directory for --project. */
  dir: string;
  /** The argv that runs castellan's CLI (see cliArgv). */
  argv: readonly string[];
}

export interface FileChange {
  path: string;
  /** Current content (undefined: no such file). */
  before?: string;
  /** New content (undefined: delete the file). Equal to `before`: nothing to do. */
  after?: string;
  summary: string;
  /** Keep a copy of `before` when changing it (false for files that are castellan's alone). */
  backup: boolean;
}

export interface Plan {
  agent: AgentName;
  scope: Scope;
  changes: FileChange[];
  notes: string[];
}

export { SettingsError };

const PI_TEMPLATE = join(REPO_ROOT, 'share', 'integrations', 'pi', 'castellan.ts');
/** Agents castellan installs a file of its own for (a pi extension, an opencode plugin), from a template in share/. */
const PLUGIN_TEMPLATES: Partial<Record<AgentName, string>> = {
  pi: PI_TEMPLATE,
  opencode: join(REPO_ROOT, 'share', 'integrations', 'opencode', 'castellan.js'),
  kilo: join(REPO_ROOT, 'share', 'integrations', 'opencode', 'castellan.js'),
};
export const PI_MARK = 'castellan-integration';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Where each agent keeps the file castellan edits. */
export function settingsPath(agent: AgentName, scope: Scope, c: Pick<InstallContext, 'home' | 'env' | 'dir'>): string {
  const user = scope === 'user';
  switch (agent) {
    case 'claude':
      return user ? join(c.env.CLAUDE_CONFIG_DIR || join(c.home, '.claude'), 'settings.json') : join(c.dir, '.claude', 'settings.json');
    case 'codex':
      return user ? join(c.env.CODEX_HOME || join(c.home, '.codex'), 'hooks.json') : join(c.dir, '.codex', 'hooks.json');
    case 'gemini':
      return user ? join(c.home, '.gemini', 'settings.json') : join(c.dir, '.gemini', 'settings.json');
    case 'pi':
      return user ? join(c.env.PI_CODING_AGENT_DIR || join(c.home, '.pi', 'agent'), 'extensions', 'castellan.ts') : join(c.dir, '.pi', 'extensions', 'castellan.ts');
    case 'copilot':
      // Copilot CLI reads its user hooks from settings.json in $COPILOT_HOME (lab-checked); a repository's hooks are
      // .github/hooks/*.json files, which this does not write (--project is refused in planInstall).
      return user ? join(c.env.COPILOT_HOME || join(c.home, '.copilot'), 'settings.json') : join(c.dir, '.github', 'hooks', 'castellan.json');
    case 'qwen':
      return user ? join(c.home, '.qwen', 'settings.json') : join(c.dir, '.qwen', 'settings.json');
    case 'opencode':
    case 'kilo':
      // opencode loads every .js/.ts in its config dir's plugins/ (lab-checked, ~/.config/opencode/plugins/; Kilo: kilo/).
      return user ? join(c.env.XDG_CONFIG_HOME || join(c.home, '.config'), agent, 'plugins', 'castellan.js') : join(c.dir, `.${agent}`, 'plugins', 'castellan.js');
  }
}

/** The hook entries castellan wants in an agent's JSON settings: one per installed table row, shaped by the table. */
export function hookSpecs(agent: AgentName, argv: readonly string[]): HookSpec[] {
  const shape = HARNESS_TABLES[agent].install;
  if (!shape) return [];
  return installedEvents(agent)
    .filter((r) => r.event !== 'notify')
    .map((r) => {
      const command = installedHookCommand(argv, agent, r.event);
      // A tool hook runs castellan's governance (user hooks up to 30 s, a prompt up to 60 s): if the agent killed
      // it first the tool would run anyway, so it gets two minutes; state-only events stay short.
      const governs = toolEventKind(agent, r.event) === 'pre';
      return { event: r.event, ...(r.matcher ? { matcher: r.matcher } : {}), hook: shape.hook(r.event, command, governs) as JsonObject };
    });
}

function jsonChange(path: string, specs: HookSpec[] | null, entries: 'nested' | 'flat' = 'nested'): { change: FileChange; value: JsonObject } {
  const before = read(path);
  const doc = parseJsonDoc(before, path);
  let summary: string;
  let value: JsonObject;
  if (specs) {
    const m = mergeHooks(doc.value, specs, path, entries);
    value = m.value;
    const parts = [
      m.added.length ? `added ${m.added.join(', ')}` : '',
      m.updated.length ? `updated ${m.updated.join(', ')}` : '',
      m.removed.length ? `removed ${m.removed.join(', ')}` : '',
    ].filter(Boolean);
    summary = parts.length ? parts.join('; ') : `already installed (${m.unchanged.length} hooks)`;
  } else {
    const r = removeHooks(doc.value, path, entries);
    value = r.value;
    summary = r.removed.length ? `removed castellan hooks from ${r.removed.join(', ')}` : 'no castellan hooks';
  }
  const changed = JSON.stringify(value) !== JSON.stringify(doc.value) || (!doc.exists && specs !== null);
  const after = changed ? formatJsonDoc(value, doc.indent) : before;
  return { change: { path, before, after, summary, backup: true }, value };
}

/** The template with the marked lines filled in (TypeScript declarations for pi's .ts, plain ones for a .js plugin). */
function pluginSource(agent: AgentName, argv: readonly string[]): string {
  const template = PLUGIN_TEMPLATES[agent]!;
  const ts = template.endsWith('.ts');
  const events = installedEvents(agent).map((r) => r.event);
  const lines = readFileSync(template, 'utf8').split('\n');
  return lines
    .map((l) => {
      if (l.endsWith('// @castellan-command')) return `const INSTALLED_COMMAND${ts ? ': string[] | null' : ''} = ${JSON.stringify(argv)}; // @castellan-command`;
      if (l.endsWith('// @castellan-events')) return `const EVENTS${ts ? ': string[]' : ''} = ${JSON.stringify(events)}; // @castellan-events`;
      if (l.endsWith('// @castellan-agent')) return `const AGENT = ${JSON.stringify(agent)}; // @castellan-agent`;
      return l;
    })
    .join('\n');
}

export function planInstall(agent: AgentName, scope: Scope, c: InstallContext): Plan {
  const path = settingsPath(agent, scope, c);
  const notes: string[] = [];
  const changes: FileChange[] = [];
  if (PLUGIN_TEMPLATES[agent]) {
    const before = read(path);
    if (before !== undefined && !before.includes(PI_MARK)) throw new SettingsError(`${path} exists and is not castellan's; move it away first`);
    const after = pluginSource(agent, c.argv);
    const what = agent === 'pi' ? 'extension' : 'plugin';
    changes.push({ path, before, after, summary: before === after ? 'already installed' : before ? `updated the ${what}` : `added the ${what}`, backup: false });
    notes.push(agent === 'pi' ? 'pi loads it at its next start (or after /reload).' : `${HARNESS_TABLES[agent].label} loads plugins when it starts: restart running sessions.`);
    return { agent, scope, changes, notes };
  }
  // Left out with a note rather than refused: `install all --project` must still do the other agents.
  if (agent === 'copilot' && scope === 'project') return { agent, scope, changes: [], notes: ['Copilot CLI: castellan installs its hooks for your user only (~/.copilot/settings.json); --project does nothing for it'] };
  const shape = HARNESS_TABLES[agent].install!;
  const { change, value } = jsonChange(path, hookSpecs(agent, c.argv), shape.entries);
  changes.push(change);
  if (agent === 'copilot') notes.push('Copilot CLI reads hooks when it starts: restart running sessions.');
  if (agent === 'qwen') {
    notes.push('Qwen Code reads hooks when it starts: restart running sessions.');
  }
  if (agent === 'claude') notes.push('Claude Code reads hooks when a session starts: restart running sessions (`/hooks` lists them).');
  if (agent === 'gemini') {
    const hc = value.hooksConfig as JsonObject | undefined;
    if (hc && hc.enabled === false) notes.push(`hooks are switched off in ${path} (hooksConfig.enabled = false): castellan's entries will not run until you switch them on.`);
    if (scope === 'project') notes.push('Gemini CLI runs project hooks only in trusted folders.');
  }
  if (agent === 'codex') {
    notes.push('Codex asks to review new hooks at its next start ("Hooks need review"): trust them, or only `notify` reports reach castellan.');
    if (scope === 'user') {
      const toml = join(dirname(path), 'config.toml');
      const before = read(toml);
      const n = planNotify(before, codexNotifyArgv(c.argv));
      const summary = { added: 'added notify', updated: 'updated notify', unchanged: 'notify already installed', foreign: 'notify left alone', unparsable: 'notify not added' }[n.status];
      changes.push({ path: toml, before, after: n.status === 'added' || n.status === 'updated' ? n.text : before, summary, backup: true });
      if (n.status === 'foreign')
        notes.push(`${toml} already sets notify = ${JSON.stringify(n.foreign)}; left as it is (castellan's Stop hook reports finished turns anyway).`);
      if (n.status === 'unparsable') notes.push(`${toml} does not parse as TOML; notify was not added (the hooks in hooks.json do the work).`);
    }
  }
  return { agent, scope, changes, notes };
}

export function planUninstall(agent: AgentName, scope: Scope, c: Omit<InstallContext, 'argv'>): Plan {
  const path = settingsPath(agent, scope, c);
  const changes: FileChange[] = [];
  if (PLUGIN_TEMPLATES[agent]) {
    const before = read(path);
    if (before === undefined) changes.push({ path, before, after: before, summary: 'not installed', backup: false });
    else if (!before.includes(PI_MARK)) changes.push({ path, before, after: before, summary: 'not castellan\'s: left alone', backup: false });
    else changes.push({ path, before, after: undefined, summary: `removed the ${agent === 'pi' ? 'extension' : 'plugin'}`, backup: false });
    return { agent, scope, changes, notes: [] };
  }
  changes.push(jsonChange(path, null, HARNESS_TABLES[agent].install?.entries).change);
  if (agent === 'codex' && scope === 'user') {
    const toml = join(dirname(path), 'config.toml');
    const before = read(toml);
    const r = removeNotify(before);
    changes.push({ path: toml, before, after: r.removed ? r.text : before, summary: r.removed ? 'removed notify' : 'no castellan notify', backup: true });
  }
  return { agent, scope, changes, notes: [] };
}

export const isNoop = (ch: FileChange) => ch.before === ch.after;

/** Writes a plan: a timestamped backup of each changed file first, then the new content atomically (mode kept). Returns file → backup. */
export function applyPlan(plan: Plan, stamp: string): Record<string, string> {
  const backups: Record<string, string> = {};
  for (const ch of plan.changes) {
    if (isNoop(ch)) continue;
    if (ch.after === undefined) {
      unlinkSync(ch.path);
      continue;
    }
    mkdirSync(dirname(ch.path), { recursive: true });
    let mode: number | undefined;
    if (ch.before !== undefined) {
      mode = statSync(ch.path).mode & 0o777;
      if (ch.backup) {
        let b = `${ch.path}.castellan-backup-${stamp}`;
        for (let i = 2; existsSync(b); i++) b = `${ch.path}.castellan-backup-${stamp}-${i}`;
        writeFileSync(b, ch.before, { mode: mode ?? 0o600 });
        backups[ch.path] = b;
      }
    }
    const tmp = `${ch.path}.castellan-tmp-${process.pid}`;
    writeFileSync(tmp, ch.after, { mode: mode ?? 0o644 });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, ch.path);
  }
  return backups;
}

/** `YYYYMMDD-HHMMSS` for backup names. */
export function backupStamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** What castellan has installed in a JSON settings text (for dry runs and tests). */
export function installedHooks(text: string | undefined, path = 'settings'): Record<string, string[]> {
  return listOurHooks(parseJsonDoc(text, path).value);
}
