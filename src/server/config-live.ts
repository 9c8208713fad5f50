// What a config reload could not apply to what already runs, and a watcher that reloads when a layer file changes.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
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
 * renaming it over the old one (vim, many IDEs) replace the inode a file watch would follow. A directory
 * that does not exist is skipped (creating it later needs `castellan config reload` once).
 */
export function watchConfigFiles(files: string[], onChange: () => void, debounceMs = WATCH_DEBOUNCE_MS): { close(): void } {
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const d = dirname(f);
    if (!byDir.has(d)) byDir.set(d, new Set());
    byDir.get(d)!.add(basename(f));
  }
  let timer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        // Some platforms give no name: then any change in the directory counts.
        if (name && !names.has(String(name))) return;
        if (timer) clearTimeout(timer);
        timer = setTimeout(onChange, debounceMs);
        timer.unref?.();
      });
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      /* no such directory, or not watchable: reload by hand */
    }
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
