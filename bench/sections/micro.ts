// 3b. Frame cost in process: castellan's own Screen (dist/server/screen.js) and Painter (dist/client/painter.js)
// timed directly, without the socket and event loop around them.
//
// server build = screen.viewportRows() + the per-row diff ClientLink does + JSON.stringify of the frame message;
// client paint = JSON.parse of that message + painter.updateRows() + painter.paint().
// dense: 64 KB of the ANSI file parsed between frames (the screen scrolled: all 50 rows changed, as under a flood);
// sparse: one character typed between frames (one row changed, as for a keystroke echo). Pane 200x50.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchEnv } from '../lib/env.js';
import type { Row, SectionResult } from '../lib/report.js';
import { log, quantile, round } from '../lib/util.js';

interface ScreenLike {
  write(d: Uint8Array | string, cb?: () => void): void;
  viewportRows(): string[];
  cursor(): { x: number; y: number; visible: boolean; shape: string; blink: boolean };
  dispose(): void;
}
interface PainterLike {
  setSlots(s: Array<{ id: string; inner: { x: number; y: number; w: number; h: number } }>): void;
  setChrome(lines: string[]): void;
  updateRows(id: string, lines: Array<[number, string]>): void;
  setCursor(c: unknown): void;
  paint(): void;
}

const write = (s: ScreenLike, d: Uint8Array | string) => new Promise<void>((r) => s.write(d, r));

export async function micro(b: BenchEnv): Promise<SectionResult> {
  const { Screen } = (await import(pathToFileURL(join(b.root, 'dist', 'server', 'screen.js')).href)) as { Screen: new (o: object) => ScreenLike };
  const { Painter } = (await import(pathToFileURL(join(b.root, 'dist', 'client', 'painter.js')).href)) as { Painter: new (w: (s: string) => void) => PainterLike };
  const frames = b.opts.quick ? 150 : 400;
  const data = readFileSync(b.file).subarray(0, 64 * 1024 * (frames + 40));
  const result: Record<string, { buildMs: number[]; paintMs: number[]; rowsPerFrame: number; bytesPerFrame: number }> = {};
  for (const kind of ['dense', 'sparse'] as const) {
    const screen = new Screen({ cols: 200, rows: 50, scrollback: 10_000 });
    let out = 0;
    const painter = new Painter((s) => (out += s.length));
    painter.setSlots([{ id: 'w1:p1', inner: { x: 1, y: 1, w: 200, h: 50 } }]);
    painter.setChrome([]);
    let sent: string[] = [];
    let off = 0;
    const next = () => {
      const c = data.subarray(off, off + 64 * 1024);
      off += 64 * 1024;
      return c;
    };
    // Warm up the JIT and fill the screen.
    for (let i = 0; i < 30; i++) await write(screen, next());
    if (kind === 'sparse') await write(screen, '\r\n$ ');
    const buildMs: number[] = [];
    const paintMs: number[] = [];
    let rowsSent = 0;
    let bytes = 0;
    for (let f = 0; f < frames; f++) {
      if (kind === 'dense') await write(screen, next());
      else await write(screen, f % 60 === 59 ? '\r\n$ ' : String.fromCharCode(97 + (f % 26)));
      const t0 = performance.now();
      const rows = screen.viewportRows();
      const lines: Array<[number, string]> = [];
      for (let y = 0; y < rows.length; y++) if (sent[y] !== rows[y]) lines.push([y, rows[y]]);
      sent = rows.slice();
      const c = screen.cursor();
      const msg = JSON.stringify({ frame: { panes: { 'w1:p1': { cols: 200, rows: 50, lines } }, cursor: { pane: 'w1:p1', ...c }, mouse: false } });
      const t1 = performance.now();
      const m = JSON.parse(msg) as { frame: { panes: Record<string, { lines: Array<[number, string]> }>; cursor: unknown } };
      painter.updateRows('w1:p1', m.frame.panes['w1:p1'].lines);
      painter.setCursor(m.frame.cursor);
      painter.paint();
      const t2 = performance.now();
      buildMs.push(t1 - t0);
      paintMs.push(t2 - t1);
      rowsSent += lines.length;
      bytes += msg.length;
    }
    screen.dispose();
    result[kind] = { buildMs, paintMs, rowsPerFrame: rowsSent / frames, bytesPerFrame: bytes / frames };
    log(`micro ${kind}: build median ${round(quantile(buildMs, 0.5), 3)} ms p90 ${round(quantile(buildMs, 0.9), 3)}; paint median ${round(quantile(paintMs, 0.5), 3)} ms p90 ${round(quantile(paintMs, 0.9), 3)}; ${round(rowsSent / frames, 1)} rows, ${round(bytes / frames / 1024, 1)} KB/frame`);
  }
  const S = 'frame cost (in-process)';
  const rows: Row[] = [];
  for (const kind of ['dense', 'sparse'] as const) {
    const r = result[kind];
    rows.push(
      { section: S, metric: `${kind} (${round(r.rowsPerFrame, 0)} rows, ${round(r.bytesPerFrame / 1024, 1)} KB): server build, median`, unit: 'ms', castellan: quantile(r.buildMs, 0.5), digits: 3 },
      { section: S, metric: `${kind}: server build, p90`, unit: 'ms', castellan: quantile(r.buildMs, 0.9), digits: 3 },
      { section: S, metric: `${kind}: client parse+paint, median`, unit: 'ms', castellan: quantile(r.paintMs, 0.5), digits: 3 },
      { section: S, metric: `${kind}: client parse+paint, p90`, unit: 'ms', castellan: quantile(r.paintMs, 0.9), digits: 3 },
    );
  }
  const raw = Object.fromEntries(Object.entries(result).map(([k, r]) => [k, {
    frames, rowsPerFrame: r.rowsPerFrame, bytesPerFrame: r.bytesPerFrame,
    build: { median: quantile(r.buildMs, 0.5), p90: quantile(r.buildMs, 0.9), p99: quantile(r.buildMs, 0.99) },
    paint: { median: quantile(r.paintMs, 0.5), p90: quantile(r.paintMs, 0.9), p99: quantile(r.paintMs, 0.99) },
  }]));
  return { rows, raw };
}
