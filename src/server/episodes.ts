// Recursive episodes on the server: sub-harness splits gated by SessionStart hooks, SessionEnd when a child ends, the tree for herd wait.
import { basename } from 'node:path';
import { ApiError } from '../api/errors.js';
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { SplitAction } from '../core/reduce-panes.js';
import type { ReduceResult } from '../core/reducer.js';
import { childrenOf } from '../core/select.js';
import type { PaneState, State } from '../core/types.js';
import type { GovEvent } from '../hooks/aggregate.js';
import type { GovernOptions } from '../hooks/context.js';
import { governSessionEnd, governSessionStart } from '../hooks/pipeline.js';
import type { Paths } from '../platform/paths.js';

export interface EpisodeHost {
  paths: Paths;
  env: NodeJS.ProcessEnv;
  state(): State;
  dispatch(action: AnyAction): ReduceResult;
  /** The reducer's answer to an action, committed nowhere (limits and placement are checked before any hook runs). */
  preview(action: AnyAction): ReduceResult;
  emit(e: { type: string; [k: string]: unknown }): void;
  listen(fn: (e: StampedEvent) => void): () => void;
  log(msg: string): void;
}

export interface EpisodeNode {
  pane_id: string;
  parent?: string;
  goal_id?: string;
  depth?: number;
  rlm?: boolean;
  state: string;
  agent?: string;
  exited?: { code: number | null; signal?: number | null };
  children: EpisodeNode[];
}

interface ChildSession {
  plugin: string;
  cwd: string;
  goalId: string;
  parent: string;
  depth: number;
}

/** How long episode.end waits for its children's SessionEnd hooks (each hook has its own timeout, 30 s by default). */
const END_WAIT_MS = 60_000;

const bounded = <T>(p: Promise<T>, ms: number): Promise<T | undefined> => {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((r) => (t = setTimeout(() => r(undefined), ms)))]).finally(() => clearTimeout(t));
};

export class EpisodeManager {
  /** Sub-harness panes whose SessionStart ran: their SessionEnd is still owed. */
  private readonly sessions = new Map<string, ChildSession>();
  private readonly pending = new Set<Promise<unknown>>();
  /** SessionEnd hooks running, by pane. */
  private readonly ending = new Map<string, Promise<void>>();
  private readonly unlisten: () => void;

  constructor(private readonly h: EpisodeHost) {
    this.unlisten = h.listen((e) => this.onEvent(e));
  }

  /** Governance runs inside the server: its events go straight to subscribers, never through a socket to itself. */
  private gov(): GovernOptions {
    return {
      env: this.h.env,
      paths: this.h.paths,
      link: null,
      sink: { emit: (e: GovEvent) => this.h.emit(e as { type: string; [k: string]: unknown }), flush: async () => {} },
    };
  }

  start(p: { paneId: string; goalId: string; rlm?: boolean }): Record<string, unknown> {
    return this.h.dispatch({ type: 'episode.start', pane: p.paneId, goalId: p.goalId, rlm: p.rlm ?? true }).result ?? {};
  }

  /** Ends the episode; resolves once the SessionEnd hooks of the children it closed have run (bounded), so the root's own SessionEnd comes after its tree's. */
  async end(paneId: string): Promise<Record<string, unknown>> {
    const r = this.h.dispatch({ type: 'episode.end', pane: paneId }).result ?? {};
    const closed = (r.closed as string[] | undefined) ?? [];
    const owed = closed.map((id) => this.ending.get(id)).filter((x): x is Promise<void> => !!x);
    if (owed.length) await bounded(Promise.allSettled(owed), END_WAIT_MS);
    return r;
  }

  /** The pane's episode and the tree of sub-harness panes below it. */
  tree(paneId: string): EpisodeNode {
    const st = this.h.state();
    const p = st.panes[paneId];
    if (!p) throw new ApiError('pane_not_found', `no pane ${paneId}`);
    const node = (x: PaneState, seen: Set<string>): EpisodeNode => ({
      pane_id: x.id,
      ...(x.parent ? { parent: x.parent } : {}),
      ...(x.episode ? { goal_id: x.episode.goalId, depth: x.episode.depth, rlm: x.episode.rlm } : {}),
      state: x.agent.state,
      ...(x.agent.agent ? { agent: x.agent.agent } : {}),
      ...(x.exited ? { exited: { code: x.exited.code, signal: x.exited.signal ?? null } } : {}),
      children: childrenOf(st, x.id)
        .filter((c) => !seen.has(c.id))
        .map((c) => node(c, new Set([...seen, c.id]))),
    });
    return node(p, new Set([p.id]));
  }

  /**
   * A sub-harness split: the reducer checks it first (episode, limits, room), the pane id is reserved, the governance
   * SessionStart hooks run for that id (a failure refuses the split: code `denied`, the hook's reason), then the pane opens.
   */
  async split(action: SplitAction, o: { plugin?: string } = {}): Promise<ReduceResult> {
    const a: SplitAction = { ...action, subHarness: true };
    const dry = this.h.preview(a);
    if (dry.error) throw new ApiError(dry.error.code, dry.error.message);
    const r = dry.result as { pane: string; window: string; parent: string; depth: number; goal_id: string };
    const child = dry.state.panes[r.pane];
    const plugin = o.plugin ?? basename(child.command[0] ?? 'shell');
    const session: ChildSession = { plugin, cwd: child.cwd, goalId: r.goal_id, parent: r.parent, depth: r.depth };
    const id = String(this.h.dispatch({ type: 'pane.reserve', window: r.window }).result?.pane);
    let start: { ok: boolean; reason?: string };
    try {
      start = await governSessionStart(
        { goalId: session.goalId, plugin, paneId: id, cwd: session.cwd, command: child.command, parentPane: session.parent, depth: session.depth },
        this.gov(),
      );
    } catch (e) {
      start = { ok: false, reason: `SessionStart hooks could not run: ${(e as Error).message}` };
    }
    if (!start.ok) {
      this.unreserve(id);
      throw new ApiError('denied', `SessionStart hook refused sub-harness pane ${id} of ${session.parent}: ${start.reason ?? 'no reason given'}`);
    }
    try {
      this.sessions.set(id, session);
      return this.h.dispatch({ ...a, reserved: id });
    } catch (e) {
      // The tree changed while the hooks ran (a limit reached, the parent gone): the session that started is ended.
      this.sessions.delete(id);
      this.unreserve(id);
      this.track(this.sessionEnd(id, session, 'error', null));
      throw e;
    }
  }

  private unreserve(id: string): void {
    try {
      this.h.dispatch({ type: 'pane.unreserve', pane: id });
    } catch {
      /* the server is stopping */
    }
  }

  private onEvent(e: StampedEvent): void {
    if (e.type !== 'sub_harness_ended') return;
    const ev = e as StampedEvent & { pane: string; status?: string; exit_code?: number | null; signal?: number };
    const s = this.sessions.get(ev.pane);
    if (!s) return;
    this.sessions.delete(ev.pane);
    const run = this.sessionEnd(ev.pane, s, String(ev.status ?? 'closed'), ev.exit_code ?? null, ev.signal).finally(() => this.ending.delete(ev.pane));
    this.ending.set(ev.pane, run);
    this.track(run);
  }

  private async sessionEnd(pane: string, s: ChildSession, status: string, exitCode: number | null, signal?: number): Promise<void> {
    try {
      const r = await governSessionEnd(
        { goalId: s.goalId, plugin: s.plugin, status, exitCode, ...(signal ? { signal: String(signal) } : {}), paneId: pane, cwd: s.cwd, parentPane: s.parent, depth: s.depth },
        this.gov(),
      );
      if (!r.ok) this.h.log(`sub-harness ${pane}: SessionEnd hook failed: ${r.reason ?? ''}`);
    } catch (e) {
      this.h.log(`sub-harness ${pane}: SessionEnd hooks could not run: ${(e as Error).message}`);
    }
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Hooks still running (tests and shutdown can wait for them). */
  idle(): Promise<void> {
    return Promise.allSettled([...this.pending]).then(() => undefined);
  }

  dispose(): void {
    this.unlisten();
  }
}
