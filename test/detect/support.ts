// Helpers for detection tests: fixture paths, the labelled screens, recorded frame streams and a snapshot builder.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { DetectSnapshot } from '../../src/detect/engine.js';
import { loadRules } from '../../src/detect/rules.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));

let cached: ReturnType<typeof loadRules> | undefined;
/** Built-in rules only (no user directory), loaded once per test file. */
export function builtin(): ReturnType<typeof loadRules> {
  cached ??= loadRules();
  return cached;
}

export interface Label { file: string; agent: string; expect: string; title: string; note: string }

export function labels(): Label[] {
  const [, ...rows] = readFileSync(join(FIXTURES, 'labels.tsv'), 'utf8').trim().split('\n');
  return rows.map((r) => {
    const [file, agent, expect, title, note] = r.split('\t');
    return { file, agent, expect, title, note };
  });
}

export const fixture = (rel: string): string => readFileSync(join(FIXTURES, rel), 'utf8');

/** A snapshot from plain rows (padded to `rows`), as src/server/screen.ts would hand it out. */
export function snap(lines: string[], opts: { title?: string; cursor?: { x: number; y: number }; cols?: number; rows?: number } = {}): DetectSnapshot {
  const rows = opts.rows ?? lines.length;
  const all = [...lines, ...Array(Math.max(0, rows - lines.length)).fill('')];
  return { lines: all, title: opts.title ?? '', cursor: opts.cursor ?? { x: 0, y: rows - 1 }, cols: opts.cols ?? 80, rows };
}

export type FrameEvent =
  | { kind: 'frame'; t: number; snap: DetectSnapshot }
  | { kind: 'truth'; t: number; state: string; note: string };

/** Replays a recorded `*.frames.jsonl` (changed rows per snapshot + the driver's truth marks). */
export function frames(rel: string): { meta: { agent: string; cols: number; rows: number; origin: string }; events: FrameEvent[] } {
  const [head, ...rest] = fixture(rel).trim().split('\n').map((l) => JSON.parse(l));
  const meta = head.meta;
  let lines: string[] = Array(meta.rows).fill('');
  let title = '';
  let cursor = { x: 0, y: 0 };
  const events: FrameEvent[] = [];
  for (const r of rest) {
    if (r.truth) { events.push({ kind: 'truth', t: r.t, state: r.truth, note: r.note }); continue; }
    if (r.r) {
      lines = [...lines];
      for (const [i, text] of Object.entries(r.r as Record<string, string>)) lines[Number(i)] = text;
    }
    if (r.title !== undefined) title = r.title;
    if (r.c) cursor = { x: r.c[0], y: r.c[1] };
    events.push({ kind: 'frame', t: r.t, snap: { lines, title, cursor, cols: meta.cols, rows: meta.rows } });
  }
  return { meta, events };
}
