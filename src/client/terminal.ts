// The outer terminal's modes: what the client turns on when it attaches and must always turn off again.
import { stripControls } from '../core/text.js';
export interface TermModes {
  mouse: boolean;
  /** Report all motion (the focused pane asked for any-event tracking). */
  allMotion: boolean;
}

// Autowrap stays off while attached: a line that is one cell too wide must never scroll the whole screen.
export const ENTER = '\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l\x1b[?7l\x1b[?2004h\x1b[?1004h';

export function mouseModes(m: TermModes): string {
  if (!m.mouse) return '\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1006l';
  return `\x1b[?1000h\x1b[?1002h${m.allMotion ? '\x1b[?1003h' : '\x1b[?1003l'}\x1b[?1006h`;
}

/** Everything ENTER and mouseModes turned on, off again, in an order that leaves a usable shell. */
export const LEAVE = '\x1b[?2026l\x1b[0m\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[0 q\x1b[?25h\x1b[?7h\x1b[?1049l';

export function setTitle(title: string): string {
  return `\x1b]2;${stripControls(title)}\x07`;
}

/** OSC 52 puts the text on the system clipboard, also over ssh. */
export const clipboard = (text: string): string => `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;

/** How an alert reaches the terminal for [ui] notify: a bell, an OSC 9 or OSC 777 desktop notification, or nothing. */
export function alertBytes(how: string, text: string): string {
  if (how === 'bell') return '\x07';
  if (how === 'osc9') return `\x1b]9;castellan: ${text}\x07`;
  if (how === 'osc777') return `\x1b]777;notify;castellan;${text}\x07`;
  return '';
}
