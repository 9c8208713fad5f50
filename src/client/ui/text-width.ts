// Display widths of chrome text (CJK and emoji take two cells), and cutting text to a width.
import stringWidth from 'string-width';
import { stripControls } from '../../core/text.js';

// One column per UTF-16 unit: printable ASCII, box drawing and the fill's dot. Borders are long runs of these, and
// string-width segments graphemes (Intl.Segmenter) on every call.
const NARROW = /^[\x20-\x7e\u00b7\u2500-\u257f]*$/;

/** Text whose width is its length (no wide, combining or control characters). */
export const isNarrow = (s: string): boolean => NARROW.test(s);

export const width = (s: string): number => (NARROW.test(s) ? s.length : stringWidth(s));

/** The longest start of text that fits n display columns (code point by code point), and the columns it takes. */
export function cutCols(s: string, n: number): [text: string, cols: number] {
  if (isNarrow(s)) {
    const t = s.slice(0, Math.max(0, n));
    return [t, t.length];
  }
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = width(ch);
    if (w + cw > n) break;
    out += ch;
    w += cw;
  }
  return [out, w];
}

/** Cuts text to at most n display columns, ending with … when cut. */
export function fit(s: string, n: number): string {
  if (n <= 0) return '';
  if (width(s) <= n) return s;
  return cutCols(s, n - 1)[0] + '…';
}

/** Pads with spaces to exactly n display columns (cutting first if longer). */
export function pad(s: string, n: number): string {
  const f = fit(s, n);
  return f + ' '.repeat(Math.max(0, n - width(f)));
}

/**
 * Text with every C0/C1 control character shown as a space (one column, as it is measured): in text drawn by hand a
 * control would move the terminal's cursor, and it has no width to pad by.
 */
export const printable = (s: string): string => stripControls(s, ' ');
