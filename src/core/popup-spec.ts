// A popup's size and arguments (tmux display-popup -w -h -d -T): parsed once for the prompt, the CLI and the socket, and placed centred.
import { z } from 'zod';
import type { Rect, Size } from './types.js';

/** Cells (border included) or a percentage of the client's terminal, as tmux takes them. */
export const popupSizeSchema = z.union([z.number().int().min(3).max(10_000), z.string().regex(/^(?:[1-9]\d?|100)%$/, 'a size is cells (3 or more) or a percentage 1%-100%')]);
export type PopupSize = z.infer<typeof popupSizeSchema>;

export const DEFAULT_POPUP_SIZE: { width: PopupSize; height: PopupSize } = { width: '80%', height: '75%' };

export interface PopupArgs {
  width?: PopupSize;
  height?: PopupSize;
  cwd?: string;
  title?: string;
  /** Absent: the user's shell. */
  command?: string[];
}

const size = (s: string): PopupSize | undefined => {
  const r = popupSizeSchema.safeParse(/^\d+$/.test(s) ? Number(s) : s);
  return r.success ? r.data : undefined;
};

/** `-w W -h H -d DIR -T TITLE [--] CMD...` (the prompt's `popup` / `display-popup`); -E is accepted and implied. */
export function parsePopupArgs(args: string[]): { ok: true; value: PopupArgs } | { ok: false; error: string } {
  const out: PopupArgs = {};
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-E' || a === '-EE') continue;
    const flag = ({ '-w': 'width', '--width': 'width', '-h': 'height', '--height': 'height', '-d': 'cwd', '--cwd': 'cwd', '-T': 'title', '--title': 'title' } as const)[a];
    if (!flag) break;
    const v = args[++i];
    if (v === undefined) return { ok: false, error: `${a} needs a value` };
    if (flag === 'width' || flag === 'height') {
      const s = size(v);
      if (s === undefined) return { ok: false, error: `${a} ${v}: a size is cells (3 or more) or a percentage 1%-100%` };
      out[flag] = s;
    } else out[flag] = v.slice(0, flag === 'title' ? 200 : 4096);
  }
  if (i < args.length) out.command = args.slice(i);
  return { ok: true, value: out };
}

function cells(s: PopupSize, total: number): number {
  return typeof s === 'number' ? s : Math.round((total * Number(s.slice(0, -1))) / 100);
}

/**
 * The popup's outer rect (border included) centred on a terminal of `term`, and its inner (pty) size. A size
 * larger than the terminal is cut to fit; a terminal too small for a 1x1 inside gets undefined.
 */
export function popupRect(term: Size, width: PopupSize, height: PopupSize): { outer: Rect; inner: Size } | undefined {
  if (term.cols < 3 || term.rows < 3) return undefined;
  const w = Math.max(3, Math.min(term.cols, cells(width, term.cols)));
  const h = Math.max(3, Math.min(term.rows, cells(height, term.rows)));
  const outer = { x: Math.floor((term.cols - w) / 2), y: Math.floor((term.rows - h) / 2), w, h };
  return { outer, inner: { cols: w - 2, rows: h - 2 } };
}
