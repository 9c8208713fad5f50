// Small text helpers for untrusted input: names and titles must never carry control characters.

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Does the text hold a C0/C1 control character? */
export const hasControls = (s: string): boolean => HAS_CONTROL.test(s);

/** Replaces every C0/C1 control character (removes them by default): text safe to print to a terminal. */
export function stripControls(s: string, replacement = ''): string {
  return s.replace(CONTROLS, replacement);
}

/** Removes C0/C1 control characters and collapses whitespace; used for pane/window names and titles. */
export function cleanName(s: string, max = 200): string {
  return stripControls(s, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Removes control characters except tab and newline (text that may span lines). */
export function stripControlsKeepLines(s: string): string {
  return s.replace(CONTROLS_BUT_LINES, '');
}

/** Removes control characters except newline and tab (for multi-line messages). */
export function cleanText(s: string, max = 4000): string {
  return stripControlsKeepLines(s).slice(0, max);
}
