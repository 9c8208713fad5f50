// One pane's history for snapshots, packed in pieces that are kept: lines that left the screen long ago never change, so a snapshot after more output packs only what is new.
//
// A piece is CHUNK lines at absolute line numbers (the history's numbering, which stays put as output arrives, is
// cleared past by ED3/RIS; the normal buffer's, which the alternate screen leaves alone) packed as one
// gzip member; members concatenated inflate to their texts concatenated, so the snapshot's format is unchanged.
// Pieces are taken only from lines SETTLED above the screen: those are archived lines that no resize re-wraps
// (xterm keeps at most 64 archived and 32 unarchived history lines that a resize may pull back or reflow).
import { gzipSync } from 'node:zlib';
import { HistoryPacker } from './history.js';

/** What packing needs of a pane's screen: its normal buffer (screen.ts), whatever screen is showing. */
export interface HistorySource {
  lineCount(): number;
  readRange(from: number, to: number, ansi: boolean): string[];
  /** The absolute number of line 0, and the index of the first screen row (history is above it). */
  normalLines?(): { readonly first: number; readonly screenTop: number };
  /** History lines not encoded yet: the first read of any of them encodes them all in one go (src/history/pending.ts). */
  pendingLines?(): number;
}

/** Lines per kept piece. */
export const CHUNK = 250;
/** Lines just above the screen that pieces never take (see the file comment; well past 64 + 32). */
export const SETTLED = 256;
/** Main-thread time a slice of serialising may take before it yields to the event loop (a line costs from ~5 µs to ~100 µs, by width and styling). */
const SLICE_MS = 4;
/** Lines serialised between two looks at the clock. */
const STEP = 16;
/**
 * Before reading a pane whose history still has lines pending, the store is left to encode them in its own slices
 * (it does once output has paused 50 ms): a read would encode all of them at once, 10 000 lines ~40 ms of one
 * synchronous slice. Waited at most this long, and only while it makes progress (a pane still printing does not).
 */
const SETTLE_MS = 2000;
const STALLED_MS = 200;
/** The newline between two pieces, as a gzip member of its own. */
const SEP = gzipSync('\n');

interface Piece {
  /** Absolute number of its first line. */
  from: number;
  lines: number;
  /** Index (in the piece) of its last line that is not blank, -1 for none. */
  lastText: number;
  gz: Buffer;
}

export class PaneHistory {
  /** Kept pieces by the absolute number of the line after their last. */
  private pieces = new Map<number, Piece>();
  private size = '';

  /** `alive` says the pane is still the one being read (checked after every slice, between which this yields). */
  constructor(private readonly alive: () => boolean) {}

  /** The last `want` lines of history + screen (trailing blank lines dropped), gzipped; undefined if the pane went away meanwhile. */
  async pack(src: HistorySource, want: number, size: string): Promise<{ gz: Buffer; lines: number } | undefined> {
    if (size !== this.size) {
      this.pieces.clear();
      this.size = size;
    }
    await settle(src);
    if (!this.alive()) return undefined;
    const end = src.lineCount();
    const v = src.normalLines?.();
    let at = Math.max(0, end - want);
    const parts: Piece[] = [];
    const kept = new Map<number, Piece>();
    const fresh = new Set<number>();
    if (v) {
      const settled = v.screenTop - SETTLED;
      for (;;) {
        const from = v.first + at;
        const next = (Math.floor(from / CHUNK) + 1) * CHUNK;
        const to = next - v.first;
        if (to > settled || to > end) break;
        let p = this.pieces.get(next);
        if (!p || p.from !== from) {
          const r = await this.range(src, at, to, true);
          if (!r) return undefined;
          p = { from, ...r };
          fresh.add(next);
        }
        kept.set(next, p);
        parts.push(p);
        at = to;
      }
      // Output evicted or cleared lines while this read by index: the pieces just packed may hold other lines than their numbers say.
      if (src.normalLines!().first !== v.first) for (const k of fresh) kept.delete(k);
    }
    this.pieces = kept;
    const tail = await this.range(src, at, end, false);
    if (!tail) return undefined;
    if (tail.lines > 0) return join(parts, tail);
    // Nothing but blank lines after the pieces: the history ends at the last piece with text, cut after its last text line.
    let j = parts.length - 1;
    while (j >= 0 && parts[j].lastText < 0) j--;
    if (j < 0) return tail;
    const startOf = (p: Piece) => p.from - v!.first;
    const cut = await this.range(src, startOf(parts[j]), startOf(parts[j]) + parts[j].lastText + 1, false);
    if (!cut) return undefined;
    return join(parts.slice(0, j), cut);
  }

  private async range(src: HistorySource, from: number, to: number, keepBlanks: boolean): Promise<{ gz: Buffer; lines: number; lastText: number } | undefined> {
    const packer = new HistoryPacker({ keepBlanks });
    try {
      for (let y = from; y < to; ) {
        // Yields first: the call may come from a callback (zlib's) that already ran a slice in this turn of the loop.
        await new Promise((r) => setImmediate(r));
        // The pane closed meanwhile (its screen is disposed): nothing to keep.
        if (!this.alive()) return undefined;
        // Slices by time, not by line count: one wide, heavily styled line costs what twenty plain ones do.
        const t0 = performance.now();
        const lines: string[] = [];
        do {
          const next = Math.min(to, y + STEP);
          for (const l of src.readRange(y, next, true)) lines.push(l);
          y = next;
        } while (y < to && performance.now() - t0 < SLICE_MS);
        await packer.add(lines);
      }
      return { gz: await packer.endBuffer(), lines: packer.lines, lastText: packer.lastText };
    } finally {
      packer.abort();
    }
  }
}

/** Waits (bounded) while the screen's history store encodes its pending lines itself, a slice at a time. */
async function settle(src: HistorySource): Promise<void> {
  if (!src.pendingLines) return;
  const t0 = performance.now();
  let last = src.pendingLines();
  let progressAt = t0;
  while (last > 0) {
    await new Promise((r) => setTimeout(r, 10));
    const n = src.pendingLines();
    const t = performance.now();
    if (n < last) progressAt = t;
    last = n;
    if (t - progressAt > STALLED_MS || t - t0 > SETTLE_MS) return;
  }
}

function join(parts: readonly Piece[], last: { gz: Buffer; lines: number }): { gz: Buffer; lines: number } {
  const bufs: Buffer[] = [];
  let lines = 0;
  for (const p of parts) {
    bufs.push(p.gz, SEP);
    lines += p.lines;
  }
  bufs.push(last.gz);
  return { gz: Buffer.concat(bufs), lines: lines + last.lines };
}
