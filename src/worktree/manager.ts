// The server's worktrees: made for agents, paired with their panes (kept across restarts), summarised live in borders, reviewed and merged.
import { join } from 'node:path';
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { PaneWorktree, State } from '../core/types.js';
import * as act from './actions.js';
import { createWorktree } from './create.js';
import { WorktreeError } from './errors.js';
import { heldWork, type Work } from './held.js';
import type { ChangeSummary, WorktreeRecord } from './record.js';
import { diffText, fileChanges, summarize } from './status.js';
import { readStore, storeFile, writeStore } from './store.js';
import { SummaryWatch } from './watch.js';

export interface WorktreeHost {
  stateDir: string;
  session: string;
  env: NodeJS.ProcessEnv;
  state(): State;
  dispatch(action: AnyAction): unknown;
  emit(e: { type: string; [k: string]: unknown }): void;
  listen(fn: (e: StampedEvent) => void): () => void;
  log(msg: string): void;
}

const within = (dir: string | undefined, root: string) => !!dir && (dir === root || dir.startsWith(root.endsWith('/') ? root : `${root}/`));

export type Target = { pane?: string; id?: string };

export class WorktreeManager {
  private records: WorktreeRecord[];
  private readonly file: string;
  private readonly watches = new Map<string, SummaryWatch>();
  private readonly summaries = new Map<string, ChangeSummary>();
  private readonly unlisten: () => void;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly h: WorktreeHost) {
    this.file = storeFile(h.stateDir, h.session);
    const r = readStore(this.file);
    if (r.problem) h.log(`worktrees: ${r.problem}; starting with none`);
    this.records = r.records;
    this.unlisten = h.listen((e) => this.onEvent(e));
    // After the session constructor has restored its panes: pairs whose pane came back are watched again.
    setImmediate(() => this.reconcile());
  }

  /** Where new worktrees go: castellan's state dir, never inside the user's checkout. */
  get root(): string {
    return join(this.h.stateDir, 'worktrees');
  }

  private reconcile(): void {
    const st = this.h.state();
    let changed = false;
    for (const r of this.records) {
      if (!r.pane) continue;
      const p = st.panes[r.pane];
      // A pane id alone is not enough: without restore a new server numbers panes from w1:p1 again.
      if (p && within(p.cwd, r.path)) this.watch(r);
      else {
        delete r.pane;
        changed = true;
      }
    }
    if (changed) this.save();
  }

  private onEvent(e: StampedEvent): void {
    if (e.type !== 'pane_closed') return;
    const pane = (e as { pane: string }).pane;
    const r = this.records.find((x) => x.pane === pane);
    if (!r) return;
    this.unwatch(r);
    delete r.pane;
    this.save();
    const s = this.summaries.get(r.id);
    // Closing the pane never loses the work: the worktree stays until it is merged and pruned, or discarded.
    this.h.emit({ type: 'worktree_kept', pane, id: r.id, branch: r.branch, path: r.path, files: s?.files ?? 0, ahead: s?.ahead ?? 0 });
  }

  private save(): void {
    const snapshot = this.records.map((r) => ({ ...r }));
    this.saving = this.saving.then(() => writeStore(this.file, snapshot)).catch((e) => this.h.log(`worktrees: could not save ${this.file}: ${(e as Error).message}`));
  }

  /** Waits for the records to be on disk (tests, shutdown). */
  flush(): Promise<void> {
    return this.saving;
  }

  /** Makes the worktree; `baseUncommitted` names the base's tracked changes the new worktree does not have. */
  async create(p: { cwd: string; agent?: string; branch?: string; parent?: string }): Promise<{ rec: WorktreeRecord; baseUncommitted: string[] }> {
    const { baseUncommitted, ...made } = await createWorktree({ cwd: p.cwd, root: this.root, agent: p.agent, branch: p.branch, env: this.h.env });
    const rec: WorktreeRecord = { ...made, ...(p.parent ? { parent: p.parent } : {}) };
    this.records.push(rec);
    this.save();
    this.h.emit({ type: 'worktree_created', id: rec.id, branch: rec.branch, path: rec.path, base: rec.base, repo: rec.repo, ...(baseUncommitted.length ? { base_uncommitted: baseUncommitted } : {}) });
    return { rec, baseUncommitted };
  }

  /** The pane now works in the worktree: the border shows it from here on. */
  pair(id: string, pane: string): void {
    const r = this.records.find((x) => x.id === id);
    if (!r) return;
    r.pane = pane;
    this.save();
    this.watch(r);
  }

  /** A start that failed after the worktree was made: take it back (nothing was done in it). */
  async abandon(id: string): Promise<void> {
    const r = this.records.find((x) => x.id === id);
    if (!r) return;
    await act.discard(r).catch((e) => this.h.log(`worktrees: could not take back ${r.path}: ${(e as Error).message}`));
    this.drop(r);
  }

  private watch(r: WorktreeRecord): void {
    if (this.watches.has(r.id)) return;
    const admin = join(r.commonDir, 'worktrees');
    const w = new SummaryWatch({ paths: [r.path, admin], log: this.h.log, refresh: () => this.refresh(r) });
    this.watches.set(r.id, w);
  }

  private unwatch(r: WorktreeRecord): void {
    this.watches.get(r.id)?.close();
    this.watches.delete(r.id);
  }

  private async refresh(r: WorktreeRecord): Promise<void> {
    const s = await summarize(r).catch((e) => (this.h.log(`worktree ${r.branch}: ${(e as Error).message}`), undefined));
    if (!s) return;
    this.summaries.set(r.id, s);
    if (!r.pane || !this.h.state().panes[r.pane]) return;
    const view: PaneWorktree = { branch: r.branch, files: s.files, added: s.added, removed: s.removed, ahead: s.ahead, ...(s.missing ? { missing: true } : {}) };
    const cur = this.h.state().panes[r.pane].worktree;
    if (cur && JSON.stringify(cur) === JSON.stringify(view)) return;
    try {
      this.h.dispatch({ type: 'pane.worktree', pane: r.pane, worktree: view });
    } catch {
      /* the server is stopping */
    }
    this.h.emit({ type: 'worktree_changed', pane: r.pane, id: r.id, ...view });
  }

  /** The record for a pane (or a worktree id / branch), or a clear error. */
  find(t: Target): WorktreeRecord {
    const r = t.pane ? this.records.find((x) => x.pane === t.pane) : this.records.find((x) => x.id === t.id || x.branch === t.id);
    if (r) return r;
    if (t.pane) throw this.h.state().panes[t.pane] ? new WorktreeError(`pane ${t.pane} does not work in a castellan worktree (start one with --worktree)`, 'not_a_worktree') : new WorktreeError(`no pane ${t.pane}`, 'pane_not_found');
    throw new WorktreeError(`no castellan worktree ${String(t.id).slice(0, 80)} (castellan worktree list shows them)`, 'not_a_worktree');
  }

  byPath(cwd: string): WorktreeRecord | undefined {
    return this.records.find((r) => within(cwd, r.path));
  }

  /** Each worktree (or the one asked for) with its summary, whether it is clean and merged, and what removing it would lose (`work`). */
  async list(only?: Target): Promise<Array<Record<string, unknown>>> {
    return Promise.all(
      (only ? [this.find(only)] : this.records).map(async (r) => {
        const s = await summarize(r).catch(() => undefined);
        const w = s ? await heldWork(r).catch(() => undefined) : undefined;
        const has = (...k: Work['kind'][]) => !!w?.some((x) => k.includes(x.kind));
        return { ...this.row(r), summary: s ?? null, clean: w ? !has('uncommitted', 'untracked', 'ignored') : null, merged: w ? !has('commits', 'stash') : null, work: w ? w.map((x) => x.why) : null };
      }),
    );
  }

  /** The worktree and branch of the pane working in one (pane.list reports them, as hook payloads do). */
  ofPane(pane: string): { worktree: string; branch: string } | undefined {
    const r = this.records.find((x) => x.pane === pane);
    return r ? { worktree: r.path, branch: r.branch } : undefined;
  }

  private row(r: WorktreeRecord): Record<string, unknown> {
    return { id: r.id, branch: r.branch, base: r.base, path: r.path, repo: r.repo, agent: r.agent ?? null, pane_id: r.pane ?? null, parent: r.parent ?? null, created_at: r.createdAt };
  }

  async review(t: Target, o: { diff?: boolean; color?: boolean } = {}): Promise<Record<string, unknown>> {
    const r = this.find(t);
    const c = await fileChanges(r);
    return { ...this.row(r), files: c.files, ahead: c.ahead, uncommitted: c.uncommitted, ...(o.diff ? { diff: await diffText(r, { color: o.color, maxBytes: 4 * 1024 * 1024 }) } : {}) };
  }

  private async run<T>(r: WorktreeRecord, what: string, fn: () => Promise<T>): Promise<T> {
    const out = await fn();
    this.h.emit({ type: 'worktree_action', action: what, id: r.id, branch: r.branch, ...(r.pane ? { pane: r.pane } : {}), result: out as unknown as Record<string, unknown> });
    this.watches.get(r.id)?.poke(0);
    return out;
  }

  commit(t: Target, message: string) {
    const r = this.find(t);
    return this.run(r, 'commit', () => act.commit(r, message));
  }

  merge(t: Target) {
    const r = this.find(t);
    return this.run(r, 'merge', () => act.merge(r));
  }

  rebase(t: Target) {
    const r = this.find(t);
    return this.run(r, 'rebase', () => act.rebase(r));
  }

  /** Discards the worktree and its branch; a pane still working in it is closed first. */
  async discard(t: Target, o: { keepBranch?: boolean } = {}) {
    const r = this.find(t);
    const out = await this.run(r, 'discard', async () => {
      const pane = r.pane;
      // Unpaired first, so closing the pane does not report the worktree as kept.
      this.unwatch(r);
      delete r.pane;
      if (pane && this.h.state().panes[pane]) this.h.dispatch({ type: 'pane.close', pane });
      return act.discard(r, o);
    });
    this.drop(r);
    return out;
  }

  /**
   * Removes the worktrees no pane works in that hold no work (see held.ts): nothing uncommitted, untracked or ignored,
   * no commit and no stash only the worktree has. Ignored files (build output, but also a secret.env) go only when
   * `includeIgnored` says so. Every other worktree is kept, with why.
   */
  async prune(o: { includeIgnored?: boolean } = {}): Promise<{ removed: Array<Record<string, unknown>>; kept: Array<Record<string, unknown>> }> {
    const removed: Array<Record<string, unknown>> = [];
    const kept: Array<Record<string, unknown>> = [];
    const held = async (r: WorktreeRecord) => {
      const w = (await heldWork(r)).filter((x) => !(o.includeIgnored && x.kind === 'ignored'));
      return w.map((x) => (x.kind === 'ignored' ? `${x.why}: --include-ignored deletes them` : x.why));
    };
    for (const r of [...this.records]) {
      if (r.pane && this.h.state().panes[r.pane]) {
        kept.push({ ...this.row(r), why: 'a pane works in it' });
        continue;
      }
      try {
        const why = await act.removeIfDone(r, () => held(r));
        if (why.length) {
          kept.push({ ...this.row(r), why: why.join('; ') });
          continue;
        }
        this.drop(r);
        removed.push(this.row(r));
      } catch (e) {
        kept.push({ ...this.row(r), why: `could not check it, so it stays: ${(e as Error).message}` });
      }
    }
    return { removed, kept };
  }

  private drop(r: WorktreeRecord): void {
    this.unwatch(r);
    this.summaries.delete(r.id);
    this.records = this.records.filter((x) => x !== r);
    this.save();
    if (r.pane && this.h.state().panes[r.pane]) {
      try {
        this.h.dispatch({ type: 'pane.worktree', pane: r.pane });
      } catch {
        /* stopping */
      }
    }
  }

  dispose(): void {
    this.unlisten();
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }
}
