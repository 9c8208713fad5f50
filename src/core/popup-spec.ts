// A popup's size and arguments (tmux display-popup -w -h -d -T): parsed once for the prompt, the CLI and the socket, and placed centred.
// zod-free, so the attached client loads no zod; the socket and the CLI check sizes with popup-size-schema.ts.
import type { Rect, Size } from './types.js';

/** Cells (border included) or a percentage of the client's terminal, as tmux takes them. */
export type PopupSize = number | string;
export const POPUP_CELLS = { min: 3, max: 10_000 } as const;
export const POPUP_PERCENT = /^(?:[1-9]\d?|100)%$/;
export const POPUP_SIZE_RULE = 'a size is cells (3 or more) or a percentage 1%-100%';

/** `v` as a popup size, or undefined: the rule popup-size-schema.ts gives zod. */
export function popupSize(v: unknown): PopupSize | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= POPUP_CELLS.min && v <= POPUP_CELLS.max ? v : undefined;
  return typeof v === 'string' && POPUP_PERCENT.test(v) ? v : undefined;
}

export const DEFAULT_POPUP_SIZE: { width: PopupSize; height: PopupSize } = { width: '80%', height: '75%' };

export interface PopupArgs {
  width?: PopupSize;
  height?: PopupSize;
  cwd?: string;
  title?: string;
  /** Absent: the user's shell. */
  command?: string[];
}

const size = (s: string): PopupSize | undefined => popupSize(/^\d+$/.test(s) ? Number(s) : s);

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
      if (s === undefined) return { ok: false, error: `${a} ${v}: ${POPUP_SIZE_RULE}` };
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
