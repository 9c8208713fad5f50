// A snapshot's version and size limits, zod-free: `castellan ls` peeks at snapshots without loading the schema.
export const SNAPSHOT_VERSION = 1;

/** Limits on what a snapshot may hold: a hostile or runaway file is refused, not half-read. */
export const LIMITS = {
  /** The whole file. */
  fileBytes: 64 * 1024 * 1024,
  windows: 64,
  panesPerWindow: 64,
  /** Layout nesting (a split tree of 64 panes is at most 63 deep). */
  depth: 64,
  /** One pane's history, compressed (base64) and once decompressed. */
  historyB64Chars: 8 * 1024 * 1024,
  historyBytes: 16 * 1024 * 1024,
  /** Lines of history kept per pane (also bounded by ui.scrollback). */
  historyLines: 10_000,
  argv: 64,
  arg: 4096,
  text: 4096,
} as const;
