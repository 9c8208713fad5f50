// Takes a snapshot of the live session: layout, each pane's cwd and foreground program (src/platform/proc), agent session ids, history.
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { panesOf } from '../core/layout.js';
import type { PaneState, State } from '../core/types.js';
import { identify } from '../detect/identify.js';
import { readPaneProcessesAsync } from '../platform/proc/index.js';
import { PaneHistory, type HistorySource } from './history-pieces.js';
import { argsAfterAgent, foregroundArgv } from './resume.js';
import { LIMITS, sessionIdSchema, SNAPSHOT_VERSION, type PaneSnapshot, type Snapshot } from './schema.js';

/** What capture needs of one live pane. */
export interface LivePane {
  readonly exited: boolean;
  readonly lastOutputAt: number;
  readonly size: { cols: number; rows: number };
  readonly screen: HistorySource;
  readonly pty?: { readonly pid: number; cwd(): string | undefined; cwdFresh?(maxAgeMs?: number): Promise<string | undefined>; foregroundPid(): number | undefined };
}

export interface CaptureHost {
  session: string;
  cwd: string;
  home: string;
  state(): State;
  pane(id: string): LivePane | undefined;
  /** Lines of history to keep per pane (ui.scrollback, capped by LIMITS.historyLines). */
  historyLines(): number;
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'fish', 'dash', 'ksh', 'tcsh', 'csh', 'nu', 'elvish', 'xonsh', 'pwsh', 'login', 'tsh']);
export const isShellArgv = (argv: readonly string[]): boolean => argv.length > 0 && SHELLS.has(basename(argv[0]).replace(/^-/, ''));

/** How old a directory a snapshot takes (ms): a snapshot records, it does not open anything there. */
const SNAPSHOT_CWD_MS = 500;
const clip = (argv: readonly string[]): string[] => argv.slice(0, LIMITS.argv).map((a) => a.slice(0, LIMITS.arg));

/** Claude keeps a conversation per file in ~/.claude/projects/<cwd with non-alphanumerics as "-">/<id>.jsonl: the newest since the pane began. */
async function claudeSessionFromFiles(home: string, cwd: string, since: number): Promise<string | undefined> {
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).slice(0, 2000);
  } catch {
    return undefined;
  }
  let best: { id: string; at: number } | undefined;
  for (const n of names) {
    const id = n.slice(0, -6);
    if (!sessionIdSchema.safeParse(id).success) continue;
    try {
      const at = (await stat(join(dir, n))).mtimeMs;
      if (at >= since - 1000 && (!best || at > best.at)) best = { id, at };
    } catch {
      /* gone */
    }
  }
  return best?.id;
}

/**
 * Qwen Code keeps a conversation per file in ~/.qwen/projects/<cwd with non-alphanumerics as "-">/chats/<id>.jsonl. Only
 * when exactly one was written since the pane began is it this pane's: two (another pane or program in the same
 * directory, a /clear) are candidates castellan does not choose between (issue 30 item 13), so none is named.
 */
async function qwenSessionFromFiles(home: string, cwd: string, since: number): Promise<string | undefined> {
  const dir = join(home, '.qwen', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), 'chats');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).slice(0, 2000);
  } catch {
    return undefined;
  }
  const fresh: string[] = [];
  for (const n of names) {
    const id = n.slice(0, -6);
    if (!sessionIdSchema.safeParse(id).success) continue;
    try {
      if ((await stat(join(dir, n))).mtimeMs >= since - 1000) fresh.push(id);
    } catch {
      /* gone */
    }
  }
  return fresh.length === 1 ? fresh[0] : undefined;
}

const SESSION_FILES: Record<string, (home: string, cwd: string, since: number) => Promise<string | undefined>> = { claude: claudeSessionFromFiles, qwen: qwenSessionFromFiles };

/** How long a resumed agent may take to appear in its pane before its id is forgotten (the typed line failed). */
const RESUME_SEEN_MS = 120_000;

interface HistoryCache {
  key: string;
  b64: string;
  lines: number;
}

export class Capture {
  /** The last agent session id seen per pane: a hook report is kept after the badge moves on (reset, heuristics). */
  private readonly ids = new Map<string, { agent: string; id: string }>();
  private readonly resumed = new Map<string, { agent: string; id?: string; argv?: readonly string[]; at: number; seen: boolean }>();
  private readonly history = new Map<string, HistoryCache>();
  /** Each pane's kept history pieces (for the runtime they were read from). */
  private readonly pieces = new Map<string, { rt: LivePane; packer: PaneHistory }>();

  constructor(private readonly h: CaptureHost) {}

  /**
   * The id a restored pane's agent was resumed into: its conversation until a hook reports another. Kept apart from
   * hook ids because the agent is not running yet (a snapshot now sees the shell in front): it is dropped once the
   * agent was seen and is gone again, or if the agent never shows up within RESUME_SEEN_MS (the typed line failed).
   */
  noteResumed(pane: string, agent: string, id: string | undefined, now = Date.now(), argv?: readonly string[]): void {
    const ok = id !== undefined && sessionIdSchema.safeParse(id).success;
    // The typed line also keeps the agent's flags for an agent whose process title hides them (pi): see foregroundArgv.
    if (ok || argv?.length) this.resumed.set(pane, { agent, ...(ok ? { id } : {}), ...(argv?.length ? { argv: argv.slice(0, LIMITS.argv) } : {}), at: now, seen: false });
  }

  /** Remembers ids from hook reports now in state; cheap, called on every agent event. */
  noteState(st: State): void {
    for (const p of Object.values(st.panes)) {
      const r = p.agent.hook;
      if (r?.sessionId && r.agent && sessionIdSchema.safeParse(r.sessionId).success) this.ids.set(p.id, { agent: r.agent, id: r.sessionId });
    }
    for (const id of this.ids.keys()) if (!st.panes[id]) this.ids.delete(id);
    for (const id of this.resumed.keys()) if (!st.panes[id]) this.resumed.delete(id);
    for (const id of this.history.keys()) if (!st.panes[id]) this.history.delete(id);
    for (const id of this.pieces.keys()) if (!st.panes[id]) this.pieces.delete(id);
  }

  private async pane(p: PaneState): Promise<PaneSnapshot> {
    const rt = this.h.pane(p.id);
    const base: PaneSnapshot = { id: p.id, name: p.name, command: clip(p.command), cwd: p.cwd.slice(0, LIMITS.text), kind: 'exited', ...(p.parent ? { parent: p.parent } : {}), ...(p.episode ? { episode: p.episode } : {}) };
    const def = p.env?.CASTELLAN_AGENT_TYPE;
    if (def) base.definition = def.slice(0, 128);
    if (rt) Object.assign(base, await this.historyOf(p.id, rt));
    if (!rt || rt.exited || p.exited || !rt.pty) return base;
    // Off the server's thread where asking starts a process (ps, lsof: the portable backend); a read from the last
    // half second will do, so one lsof answers every pane of a snapshot.
    base.cwd = ((rt.pty.cwdFresh ? await rt.pty.cwdFresh(SNAPSHOT_CWD_MS) : rt.pty.cwd()) ?? p.cwd).slice(0, LIMITS.text);
    const root = rt.pty.pid;
    const procs = await readPaneProcessesAsync(root);
    const reported = p.agent.hook?.agent;
    const ident = identify({ processes: procs.processes, rootPid: root, foregroundPid: procs.foregroundPid, launchCommand: p.command, reported });
    const rootProc = procs.processes.find((x) => x.pid === root);
    const rootIsShell = isShellArgv(rootProc?.argv.length ? rootProc.argv : p.command);
    if (ident.agent && ident.source === 'process' && ident.pid !== undefined) {
      const proc = procs.processes.find((x) => x.pid === ident.pid);
      base.kind = 'agent';
      const r = this.resumed.get(p.id);
      if (r?.agent === ident.agent) r.seen = true;
      // An agent whose process title hides its flags (pi): what its integration reported, else the line castellan typed
      // to resume it, else the pane's own launch command (issue 30 item 15).
      const hook = p.agent.hook?.agent === ident.agent ? p.agent.hook.args : undefined;
      base.foreground = clip(foregroundArgv(ident.agent, proc?.argv ?? [], [hook, r?.agent === ident.agent ? argsAfterAgent(r.argv, ident.agent) : undefined, argsAfterAgent(p.command, ident.agent)]));
      base.inShell = ident.pid !== root && rootIsShell;
      const known = this.ids.get(p.id) ?? (r?.agent === ident.agent && r.id ? { agent: r.agent, id: r.id } : undefined);
      let sessionId = known?.agent === ident.agent ? known.id : undefined;
      let from: 'hook' | 'files' | undefined = sessionId ? 'hook' : undefined;
      if (!sessionId && SESSION_FILES[ident.agent]) {
        sessionId = await SESSION_FILES[ident.agent](this.h.home, base.cwd, p.createdAt).catch(() => undefined);
        if (sessionId) from = 'files';
      }
      base.agent = { name: ident.agent, ...(sessionId ? { sessionId, sessionFrom: from } : {}) };
      return base;
    }
    // The agent is gone (a shell is in front again): its id must not resume it.
    this.ids.delete(p.id);
    const r = this.resumed.get(p.id);
    if (r && (r.seen || Date.now() - r.at > RESUME_SEEN_MS)) this.resumed.delete(p.id);
    const fg = procs.foregroundPid !== undefined && procs.foregroundPid !== root ? procs.processes.find((x) => x.pid === procs.foregroundPid) : undefined;
    if (fg) {
      base.kind = 'program';
      base.foreground = clip(fg.argv.length ? fg.argv : [fg.comm]);
      base.inShell = rootIsShell;
    } else if (rootIsShell) {
      base.kind = 'shell';
    } else {
      base.kind = 'program';
      base.foreground = clip(rootProc?.argv.length ? rootProc.argv : p.command);
      base.inShell = false;
    }
    return base;
  }

  /** History is packed again only for panes that printed something since the last snapshot, and then only its newest lines (history-pieces.ts). */
  private async historyOf(id: string, rt: LivePane): Promise<Pick<PaneSnapshot, 'history' | 'historyLines'>> {
    const want = this.h.historyLines();
    if (want <= 0) return {};
    const size = `${rt.size.cols}x${rt.size.rows}`;
    const key = `${rt.lastOutputAt}:${size}:${want}`;
    const cached = this.history.get(id);
    if (cached?.key === key) return { history: cached.b64, historyLines: cached.lines };
    let ph = this.pieces.get(id);
    if (!ph || ph.rt !== rt) {
      ph = { rt, packer: new PaneHistory(() => this.h.pane(id) === rt) };
      this.pieces.set(id, ph);
    }
    // In slices, yielding between them: serialising 10 000 styled lines at once stalls the loop for half a second under load.
    const r = await ph.packer.pack(rt.screen, want, size);
    if (!r) return {};
    const b64 = r.gz.toString('base64');
    if (b64.length > LIMITS.historyB64Chars) return {};
    this.history.set(id, { key, b64, lines: r.lines });
    return { history: b64, historyLines: r.lines };
  }

  /** The whole snapshot; yields to the event loop between panes so a big session never stalls keystrokes. */
  async take(): Promise<Snapshot> {
    const st = this.h.state();
    this.noteState(st);
    const windows: Snapshot['windows'] = [];
    for (const wid of st.windowOrder.slice(0, LIMITS.windows)) {
      const w = st.windows[wid];
      const panes: PaneSnapshot[] = [];
      for (const pid of panesOf(w.layout).slice(0, LIMITS.panesPerWindow)) {
        const p = st.panes[pid];
        if (!p) continue;
        panes.push(await this.pane(p));
        await new Promise((r) => setImmediate(r));
      }
      if (panes.length !== panesOf(w.layout).length) continue;
      windows.push({ id: w.id, name: w.name, layout: w.layout, active: w.active, zoomed: w.zoomed, panes });
    }
    const cols = Math.max(10, Math.min(2000, st.defaultSize.cols));
    const rows = Math.max(4, Math.min(1000, st.defaultSize.rows));
    return { version: SNAPSHOT_VERSION, session: this.h.session, savedAt: Date.now(), pid: process.pid, cwd: this.h.cwd, size: { cols, rows }, currentWindow: st.currentWindow, windows };
  }
}
