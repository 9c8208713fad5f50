// What a config reload could not apply to what already runs, and a watcher that reloads when a layer file changes.
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../config/schema.js';

/**
 * Settings a reload cannot apply to what already exists. Everything else applies live: [ui] and [keys] in
 * every attached client at once, hooks, governance, limits, agents and new_pane_cwd from the next use on.
 */
const NOT_LIVE: Array<{ key: string; get(c: Config): unknown; note: string }> = [
  { key: 'ui.scrollback', get: (c) => c.ui.scrollback, note: 'new panes only (open panes keep theirs)' },
  { key: 'session.shell', get: (c) => c.session.shell, note: 'new panes only (open panes keep theirs)' },
];

/** One line per changed setting that did not apply to everything ("ui.scrollback: new panes only (open panes keep theirs)"). */
export function reloadNotes(before: Config, after: Config): string[] {
  return NOT_LIVE.filter((s) => JSON.stringify(s.get(before)) !== JSON.stringify(s.get(after))).map((s) => `${s.key}: ${s.note}`);
}

/** Quiet time after the last change before reloading: editors write a file in several steps. */
export const WATCH_DEBOUNCE_MS = 200;

/**
 * Watches the directories of the layer files, not the files: editors that save by writing a new file and
 * renaming it over the old one (vim, `sed -i`, many IDEs) replace the inode a file watch would follow. A directory
 * that does not exist yet (no `~/.castellan/` when the server started) is waited for from its nearest existing
 * ancestor, and one that is removed and made again is watched again: the file appearing there is a change.
 */
export function watchConfigFiles(files: string[], onChange: () => void, debounceMs = WATCH_DEBOUNCE_MS): { close(): void } {
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const d = dirname(f);
    if (!byDir.has(d)) byDir.set(d, new Set());
    byDir.get(d)!.add(basename(f));
  }
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const watchers = new Map<string, FSWatcher>();
  const changed = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref?.();
  };
  const inode = (p: string) => {
    try {
      return statSync(p).ino;
    } catch {
      return undefined;
    }
  };
  /** The directory itself when it exists, else its nearest existing ancestor. */
  const nearest = (dir: string) => {
    let near = dir;
    while (!existsSync(near) && dirname(near) !== near) near = dirname(near);
    return near;
  };
  /** Calls `then` once `dir` exists, watching its nearest existing ancestor until it does. */
  const waitForDir = (dir: string, then: () => void): void => {
    if (closed) return;
    const near = nearest(dir);
    if (near === dir) return then();
    const key = `${dir}\0wait`;
    watchers.get(key)?.close();
    try {
      const w = watch(near, { persistent: false }, () => {
        // Something changed in the ancestor: one level nearer (or the directory itself) may exist now, or it went away.
        if (nearest(dir) === near) return;
        w.close();
        watchers.delete(key);
        waitForDir(dir, then);
      });
      w.on('error', () => w.close());
      watchers.set(key, w);
    } catch {
      /* not watchable: `castellan config reload` by hand */
    }
  };
  const arm = (dir: string, names: Set<string>): void => {
    if (closed) return;
    watchers.get(dir)?.close();
    watchers.delete(dir);
    const again = () =>
      waitForDir(dir, () => {
        arm(dir, names);
        // Made since we last looked, maybe with the file already in it.
        if ([...names].some((n) => existsSync(join(dir, n)))) changed();
      });
    const ino = inode(dir);
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        // The directory itself went away (rm -rf, renamed) or is another one now: watch what is there, or wait for it.
        // Linux names the directory itself when it is removed; a new one may reuse the inode number.
        if (inode(dir) !== ino || (name && String(name) === basename(dir) && !names.has(String(name)))) {
          w.close();
          watchers.delete(dir);
          return again();
        }
        // Some platforms give no name: then any change in the directory counts.
        if (name && !names.has(String(name))) return;
        changed();
      });
      w.on('error', () => {
        w.close();
        watchers.delete(dir);
        again();
      });
      watchers.set(dir, w);
    } catch {
      again();
    }
  };
  for (const [dir, names] of byDir) arm(dir, names);
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
