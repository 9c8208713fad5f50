// Small text helpers for untrusted input: names and titles must never carry control characters.

/** Removes C0/C1 control characters and collapses whitespace; used for pane/window names and titles. */
export function cleanName(s: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** Removes control characters except newline and tab (for multi-line messages). */
export function cleanText(s: string, max = 4000): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').slice(0, max);
}
