// From a snapshot to what a fresh server does: the session shape to install, and per pane its history, its note and what to type into its shell.
import { basename } from 'node:path';
import type { RestoreAction, RestoredWindow } from '../core/reduce-restore.js';
import { stripControls } from '../core/text.js';
import { resumeCommand, usableSessionId } from './resume.js';
import type { PaneSnapshot, Snapshot } from './schema.js';

export interface PlanContext {
  /** The user's shell command (what a new pane runs). */
  shell: string[];
  /** `[session] relaunch` from the user's own config file (never a project's). */
  relaunch: readonly string[];
  /** Does this directory exist (and is it one)? */
  isDir(path: string): boolean;
  /** Where a pane goes when its directory is gone. */
  fallbackCwd: string;
  /**
   * Is the file at absolute `path` the one PATH finds for `name` (on-path.ts)? A relaunch types the name into the pane's
   * shell, so a program recorded at a path comes back only when that path is what the name runs. Without it, only a
   * program recorded by its bare name matches.
   */
  onPath?(name: string, path: string): boolean;
  cols?: number;
  rows?: number;
}

/** What happens to one pane beyond its shell starting. */
export interface PanePlan {
  /** History lines, already decompressed (so they are on screen before the shell's first output). */
  history?: string[];
  /** The dim line under the history. */
  note: string;
  /** A command line typed into the fresh shell once it shows its prompt. */
  typed?: string;
  /** Started from this agent definition: its hooks are armed again, and without a resume command its own command runs. */
  definition?: string;
  /** Set for agents resumed: governance SessionStart runs (resumed: true) before the line is typed. */
  agent?: { name: string; how: 'id' | 'latest'; sessionId?: string; argv: string[] };
}

export interface RestorePlan {
  action: RestoreAction;
  panes: Map<string, PanePlan>;
  savedAt: number;
}

const SAFE = /^[A-Za-z0-9_\/.,:=+@%^-]+$/;
/** POSIX single-quoting: whatever the argument holds, the shell sees one word. */
export const shellQuote = (argv: readonly string[]): string => argv.map((a) => (a && SAFE.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');

const INTERPRETERS = /^(?:node|nodejs|bun|deno|python[\d.]*|ruby|perl)$/;
const show = (argv: readonly string[]): string => stripControls(argv.join(' '), '?').slice(0, 160);

/**
 * Is `recorded` (a snapshot's argv word: hostile) the program an entry names? The entry's own word (a bare name, or a
 * path the user wrote), or an absolute path that is the very file PATH finds for that bare name. `evil/htop`, `../htop`
 * and `/tmp/x/htop` are other programs that happen to share a base name.
 */
function sameProgram(recorded: string, word: string, onPath: PlanContext['onPath']): boolean {
  if (recorded === word) return true;
  return !word.includes('/') && recorded.startsWith('/') && basename(recorded) === word && !!onPath?.(word, recorded);
}

const sameArgs = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The `[session] relaunch` entry whose whole command line the recorded argv is, as its words (what is typed), or
 * undefined. Word for word: an entry "npm" must not let `npm run anything` come back, nor "htop" an `htop -d 1; ...`. A
 * script its interpreter ran (`node /usr/local/bin/npm run dev`, from `#!/usr/bin/env node`) is its script's command line.
 */
export function relaunchLine(argv: readonly string[], relaunch: readonly string[], onPath?: PlanContext['onPath']): string[] | undefined {
  if (!argv.length) return undefined;
  for (const entry of relaunch) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (!words.length) continue;
    if (sameProgram(argv[0]!, words[0]!, onPath) && sameArgs(argv.slice(1), words.slice(1))) return words;
    const interp = basename(argv[0]!);
    if (INTERPRETERS.test(interp) && argv.length > 1 && sameProgram(argv[0]!, interp, onPath) && sameProgram(argv[1]!, words[0]!, onPath) && sameArgs(argv.slice(2), words.slice(1))) return words;
  }
  return undefined;
}

function when(at: number): string {
  const d = new Date(at);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * Agent panes whose conversation castellan would have to guess (issue 30 item 13), and why: two or more panes of one
 * agent in one directory with no id (each one's "latest conversation here" is the same one), or two panes claiming
 * one id (a file fallback that saw the same newest file). Such panes resume nothing; their note names the command.
 */
function ambiguousPanes(s: Snapshot): Map<string, string> {
  const byDir = new Map<string, Array<{ pane: string; id?: string }>>();
  const byId = new Map<string, string[]>();
  for (const w of s.windows) {
    for (const p of w.panes) {
      if (p.kind !== 'agent' || !p.agent) continue;
      const id = usableSessionId(p.agent.sessionId);
      const dir = `${p.agent.name}\0${p.cwd}`;
      byDir.set(dir, [...(byDir.get(dir) ?? []), { pane: p.id, ...(id ? { id } : {}) }]);
      if (id) byId.set(`${p.agent.name}\0${id}`, [...(byId.get(`${p.agent.name}\0${id}`) ?? []), p.id]);
    }
  }
  const out = new Map<string, string>();
  // Without an id a pane would get "the latest conversation here", which may be any of its neighbours' (with an id or not).
  for (const [key, panes] of byDir) {
    if (panes.length < 2) continue;
    const all = panes.map((x) => x.pane).join(', ');
    for (const x of panes) if (!x.id) out.set(x.pane, `${panes.length} ${key.split('\0')[0]} panes ran in this directory (${all}) and this one had no conversation id, so "the latest conversation here" could be another pane's`);
  }
  for (const [key, ids] of byId) if (ids.length > 1) for (const id of ids) out.set(id, `${ids.length} panes (${ids.join(', ')}) were recorded with one conversation id, ${key.split('\0')[1]}, and castellan cannot tell whose it is`);
  return out;
}

function panePlan(p: PaneSnapshot, ctx: PlanContext, savedAt: number, cwdNote: string, history: string[] | undefined, ambiguous?: string): PanePlan {
  const plan = basePlan(p, ctx, savedAt, cwdNote, history, ambiguous);
  if (p.definition && p.kind !== 'shell' && p.kind !== 'exited') plan.definition = stripControls(p.definition, '');
  return plan;
}

function basePlan(p: PaneSnapshot, ctx: PlanContext, savedAt: number, cwdNote: string, history: string[] | undefined, ambiguous?: string): PanePlan {
  const head = `restored by castellan, snapshot of ${when(savedAt)}${cwdNote}`;
  const fg = p.foreground ?? [];
  if (p.kind === 'agent' && p.agent) {
    if (ambiguous) {
      const r = resumeCommand(p.agent.name, fg, undefined, { guess: false });
      const id = usableSessionId(p.agent.sessionId);
      const byId = id ? resumeCommand(p.agent.name, fg, id) : undefined;
      const forms = [byId?.argv.length ? byId.argv : undefined, r?.byHand].filter((x): x is string[] => !!x?.length).map((a) => show([shellQuote(a)]));
      return { history, note: `${head} — ${p.agent.name} was running; not resumed: ${ambiguous}${forms.length ? `; to pick yourself: ${forms.join(' or ')}` : ''}` };
    }
    const r = resumeCommand(p.agent.name, fg, p.agent.sessionId);
    if (r?.how === 'none') {
      // Nothing typed: the agent's "latest conversation here" could be another pane's or an older one (issue 30 item 13).
      const byHand = r.byHand ? `; to pick one yourself: ${show([shellQuote(r.byHand)])}` : '';
      return { history, note: `${head} — ${p.agent.name} was running; not resumed: no hook told castellan its conversation id (hooks not installed or not armed, or no prompt sent yet) and castellan does not guess between its conversations here${byHand}` };
    }
    if (r) {
      const dropped = r.dropped.length ? `; not replayed: ${show(r.dropped)}` : '';
      const how = r.how === 'id' ? `conversation ${p.agent.sessionId}` : 'its latest conversation here (no session id was known)';
      return { history, note: `${head} — resuming ${p.agent.name}, ${how}${dropped}`, typed: shellQuote(r.argv), agent: { name: p.agent.name, how: r.how === 'id' ? 'id' : 'latest', sessionId: r.how === 'id' ? p.agent.sessionId : undefined, argv: r.argv } };
    }
    return { history, note: `${head} — ${p.agent.name} was running (${show(fg)}); castellan does not know how to resume it` };
  }
  if (p.kind === 'program' && fg.length) {
    // Typed as the user wrote it: the program by its name, found on PATH by the pane's shell, never the path recorded.
    const line = relaunchLine(fg, ctx.relaunch, ctx.onPath);
    if (line) return { history, note: `${head} — relaunching ${show(line)} ([session] relaunch)`, typed: shellQuote(line) };
    return { history, note: `${head} — was running: ${show(fg)} (not relaunched; add it to [session] relaunch in ~/.castellan/config.toml)` };
  }
  return { history, note: head };
}

/** Pure: the snapshot as a session. Every pane starts as the user's shell; agents and allowed programs are typed into it. */
export function planRestore(s: Snapshot, ctx: PlanContext, histories: ReadonlyMap<string, string[]> = new Map()): RestorePlan {
  const panes = new Map<string, PanePlan>();
  const ambiguous = ambiguousPanes(s);
  const windows: RestoredWindow[] = s.windows.map((w) => ({
    id: w.id,
    name: w.name ? stripControls(w.name, ' ') : undefined,
    layout: w.layout,
    active: w.active,
    zoomed: w.zoomed,
    panes: w.panes.map((p) => {
      const gone = !ctx.isDir(p.cwd);
      const cwd = gone ? (ctx.isDir(s.cwd) ? s.cwd : ctx.fallbackCwd) : p.cwd;
      panes.set(p.id, panePlan(p, ctx, s.savedAt, gone ? ` (its directory ${stripControls(p.cwd, '?').slice(0, 120)} is gone; opened in ${cwd})` : '', histories.get(p.id), ambiguous.get(p.id)));
      return { id: p.id, name: p.name ? stripControls(p.name, ' ') : undefined, command: ctx.shell, cwd, parent: p.parent, episode: p.episode, ...(gone ? { cwdGone: stripControls(p.cwd, '?').slice(0, 1024) } : {}) };
    }),
  }));
  // A pane's parent must be restored too, or the tree would point at nothing.
  const ids = new Set(windows.flatMap((w) => w.panes.map((p) => p.id)));
  for (const w of windows) for (const p of w.panes) if (p.parent && !ids.has(p.parent)) p.parent = undefined;
  return {
    action: { type: 'server.restore', cols: ctx.cols ?? s.size.cols, rows: ctx.rows ?? s.size.rows, windows, current: s.currentWindow },
    panes,
    savedAt: s.savedAt,
  };
}
