// The server's use of src/restore: what restore needs from the session, the restore decision at start, and governance for resumed agents.
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { ReduceResult } from '../core/reducer.js';
import type { State } from '../core/types.js';
import { governSessionStart, type GovEvent } from '../hooks/pipeline.js';
import type { Paths } from '../platform/paths.js';
import { SessionSnapshots, type LoadedSnapshot } from '../restore/index.js';
import { LIMITS } from '../restore/schema.js';
import type { ConfigHolder } from './config-holder.js';
import type { PaneRuntime } from './pane-runtime.js';

/** What main.ts read before the session existed: a snapshot, or why there is none to use. */
export interface RestoreInput {
  loaded?: LoadedSnapshot;
  /** A refused snapshot (kept aside): shown to the first client. */
  message?: string;
  /** `--restore` (true) or `--no-restore` (false); undefined: `[session] restore` decides. */
  choice?: boolean;
}

export interface SnapshotDeps {
  paths: Paths;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: ConfigHolder;
  state(): State;
  runtime(id: string): PaneRuntime | undefined;
  dispatch(a: AnyAction): ReduceResult;
  listen(fn: (e: StampedEvent) => void): () => void;
  emit(e: { type: string; [k: string]: unknown }): void;
  shell(): string[];
  agents?: { adopt(p: { name: string; paneId: string; cwd: string }): { agentId: string; command: string } | { refused: string } };
  log(msg: string): void;
}

/** Snapshots are written unless `[session] restore = "off"` (and `--restore` did not ask for this start). */
export function makeSnapshots(d: SnapshotDeps, forced = false): SessionSnapshots | undefined {
  if (d.config.value.session.restore === 'off' && !forced) return undefined;
  return new SessionSnapshots({
    session: d.paths.session,
    paths: d.paths,
    cwd: d.cwd,
    home: d.paths.home,
    state: d.state,
    pane: (id) => d.runtime(id),
    historyLines: () => Math.min(d.config.value.ui.scrollback, LIMITS.historyLines),
    dispatch: d.dispatch,
    listen: d.listen,
    emit: d.emit,
    log: d.log,
    shell: d.shell,
    adopt: d.agents ? (p) => d.agents!.adopt(p) : undefined,
    // Only the user's own file may name programs to start again: a repository's castellan.toml never does.
    relaunch: () => d.config.loaded.layers.find((l) => l.layer === 'user')?.value.session?.relaunch ?? [],
    pathEnv: () => d.env.PATH,
    sessionStart: async (p) => {
      const r = await governSessionStart(
        { goalId: `resume-${p.pane}`, plugin: p.agent, paneId: p.pane, cwd: p.cwd, command: p.argv, resumed: true },
        { env: d.env, paths: d.paths, link: null, sink: { emit: (e: GovEvent) => d.emit(e as { type: string; [k: string]: unknown }), flush: async () => {} } },
      );
      return { ok: r.ok, reason: r.reason };
    },
  });
}

/** Restores when a snapshot is there and the user did not say no (`[session] restore = "off"` or `--no-restore`); true when it did. */
export function startFromSnapshot(s: SessionSnapshots | undefined, input: RestoreInput | undefined, size: { cols?: number; rows?: number }, log: (m: string) => void): boolean {
  if (input?.message) log(`restore: ${input.message}`);
  for (const n of input?.loaded?.notes ?? []) log(`restore: ${n}`);
  if (!input?.loaded || input.choice === false) return false;
  return s ? s.restore(input.loaded, size) : false;
}
