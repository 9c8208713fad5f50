// The one door of src/restore: load a snapshot before the server starts, and a SessionSnapshots object the session drives.
import { statSync } from 'node:fs';
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { ReduceResult } from '../core/reducer.js';
import type { Paths } from '../platform/paths.js';
import { applyRestore, type ApplyHost } from './apply.js';
import { Capture, type CaptureHost, type LivePane } from './capture.js';
import { unpackHistory } from './history.js';
import { onPath } from './on-path.js';
import { planRestore } from './plan.js';
import type { Snapshot } from './schema.js';
import { dropSnapshot, readSnapshot, setAsideSnapshot } from './store.js';
import { SnapshotWriter, type WriteStats } from './writer.js';

export { listSnapshots, dropSnapshot, snapshotFile, readSnapshot, setAsideSnapshot, bringBack, pruneAside, ASIDE_KEEP_MS } from './store.js';
export type { AsideReason } from './store.js';
export type { SnapshotListing } from './store.js';
export type { Snapshot } from './schema.js';

export type RestoreMode = 'auto' | 'ask' | 'off';

export interface LoadedSnapshot {
  snapshot: Snapshot;
  /** Decompressed history per pane (a pane whose history does not inflate simply has none). */
  histories: Map<string, string[]>;
  notes: string[];
}

/** Reads the session's snapshot (a bad one is kept aside with a message); never throws. */
export async function loadSnapshot(paths: Pick<Paths, 'stateDir' | 'session'>): Promise<{ loaded?: LoadedSnapshot; message?: string }> {
  const r = readSnapshot(paths);
  if (r.kind === 'none') return {};
  if (r.kind === 'bad') return { message: r.message };
  const histories = new Map<string, string[]>();
  const notes = [...r.notes];
  for (const w of r.snapshot.windows) {
    for (const p of w.panes) {
      if (!p.history) continue;
      const lines = await unpackHistory(p.history);
      if (lines) histories.set(p.id, lines);
      else notes.push(`pane ${p.id}: its history could not be read; restored without it`);
    }
  }
  return { loaded: { snapshot: r.snapshot, histories, notes } };
}

const STRUCTURAL = new Set(['pane_created', 'pane_closed', 'pane_exited', 'pane_renamed', 'focus_changed', 'window_created', 'window_closed', 'window_renamed', 'layout_changed', 'pane_agent_status_changed']);

export interface SnapshotHost extends Omit<CaptureHost, 'pane'>, Omit<ApplyHost, 'pane' | 'paneCwd'> {
  paths: Pick<Paths, 'stateDir' | 'session'>;
  pane(id: string): (LivePane & NonNullable<ReturnType<ApplyHost['pane']>>) | undefined;
  dispatch(action: AnyAction): ReduceResult;
  listen(fn: (e: StampedEvent) => void): () => void;
  /** The command a new pane runs (the user's shell). */
  shell(): string[];
  /** `[session] relaunch` from the user layer only. */
  relaunch(): string[];
  /** The PATH the panes' shells search: a relaunched program is typed by name and found there. */
  pathEnv(): string | undefined;
}

/** After a restore the snapshot on disk still describes the session: no rewrite while the panes repaint their history. */
const RESTORE_QUIET_MS = 10_000;

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The session's side of restore: writes snapshots as the session changes, and installs one at start. */
export class SessionSnapshots {
  private readonly capture: Capture;
  private readonly writer: SnapshotWriter;
  private readonly unlisten: () => void;
  /** Resolves when every restored pane's follow-up (SessionStart, typed command) is done. */
  restoring: Promise<void> = Promise.resolve();

  constructor(private readonly h: SnapshotHost) {
    this.capture = new Capture(h);
    this.writer = new SnapshotWriter({ capture: this.capture, paths: h.paths, log: h.log });
    this.unlisten = h.listen((e) => {
      if (!STRUCTURAL.has(e.type)) return;
      if (e.type === 'pane_agent_status_changed') this.capture.noteState(h.state());
      this.writer.structural();
    });
  }

  /** Installs the snapshot's shape and paints its panes; false when the reducer refused it (the caller starts fresh). */
  restore(loaded: LoadedSnapshot, size: { cols?: number; rows?: number }): boolean {
    const pathEnv = this.h.pathEnv();
    const plan = planRestore(loaded.snapshot, { shell: this.h.shell(), relaunch: this.h.relaunch(), isDir, fallbackCwd: this.h.cwd, onPath: (name, path) => onPath(name, path, pathEnv), ...size }, loaded.histories);
    try {
      this.h.dispatch(plan.action);
    } catch (e) {
      this.h.log(`restore: refused: ${(e as Error).message}; starting fresh`);
      return false;
    }
    const st = this.h.state();
    this.writer.quietFor(RESTORE_QUIET_MS);
    // A pane resumed by id keeps that id for the next snapshot: an agent whose hooks do not fire again before the next
    // crash (or has none installed now) must not lose its conversation, since without an id the new agents resume none.
    const emit: typeof this.h.emit = (e) => {
      if (e.type === 'agent_resumed' && typeof e.pane === 'string' && typeof e.agent === 'string') {
        const argv = Array.isArray(e.argv) && e.argv.every((a) => typeof a === 'string') ? (e.argv as string[]) : undefined;
        this.capture.noteResumed(e.pane, e.agent, typeof e.session_id === 'string' ? e.session_id : undefined, Date.now(), argv);
      }
      this.h.emit(e);
    };
    this.restoring = applyRestore({ ...this.h, emit, pane: (id) => this.h.pane(id), paneCwd: (id) => st.panes[id]?.cwd ?? this.h.cwd }, plan);
    this.h.log(`restored ${plan.action.windows.length} window(s), ${plan.panes.size} pane(s) from the snapshot of ${new Date(plan.savedAt).toISOString()}`);
    return true;
  }

  /** A pane printed something: its history or cwd may have changed. */
  content(): void {
    this.writer.content();
  }

  /** Writes a snapshot now (`server stop` keeps the session as it was at that moment). */
  save(): Promise<WriteStats | undefined> {
    return this.writer.flush();
  }

  get lastWrite(): WriteStats | undefined {
    return this.writer.last;
  }

  /** No snapshot any more: the user ended the session (last window closed, `server stop --forget`). */
  async forget(): Promise<void> {
    this.writer.disable();
    this.unlisten();
    dropSnapshot(this.h.paths);
    // A write already in flight would bring it back: drop it again once that write landed.
    await this.writer.idle();
    dropSnapshot(this.h.paths);
  }

  /**
   * The user killed the session (kill-session, kill-server): its state now is saved and set aside, not restored at the
   * next start, kept a day (listed by `session snapshots`, back with `session restore`). The file, if there was one.
   */
  async killed(): Promise<string | undefined> {
    await this.save().catch(() => undefined);
    this.writer.disable();
    this.unlisten();
    await this.writer.idle();
    return setAsideSnapshot(this.h.paths, 'killed');
  }

  dispose(): void {
    this.writer.dispose();
    this.unlisten();
  }
}
