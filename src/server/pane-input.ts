// Translates client input into what the pane's program asked for: cursor-key mode, bracketed paste, mouse encoding.
import type { ClientInput } from '../api/context.js';
import type { ScreenModes } from './screen.js';

type MouseInput = Extract<ClientInput, { kind: 'mouse' }>;

/** Normal-mode cursor keys become SS3 forms when the program turned on application cursor keys (DECCKM). */
export function translateKeys(data: string, modes: Pick<ScreenModes, 'applicationCursorKeys'>): string {
  if (!modes.applicationCursorKeys || !data.includes('\x1b[')) return data;
  return data.replace(/\x1b\[([ABCDHF])/g, '\x1bO$1');
}

/** A paste, bracketed when the program enabled bracketed paste; an embedded end marker cannot end it early. */
export function encodePaste(text: string, modes: Pick<ScreenModes, 'bracketedPaste'>, part?: 'first' | 'more' | 'last'): string {
  if (!modes.bracketedPaste) return text;
  const body = text.replace(/\x1b\[20[01]~/g, '');
  const open = part === undefined || part === 'first' ? '\x1b[200~' : '';
  const close = part === undefined || part === 'last' ? '\x1b[201~' : '';
  return `${open}${body}${close}`;
}

/**
 * Encodes a mouse event (pane-relative, 0-based) for the program, or returns undefined when the program did not
 * ask for that kind of event.
 */
export function encodeMouse(e: MouseInput, modes: Pick<ScreenModes, 'mouseTracking' | 'mouseEncoding'>): string | undefined {
  const t = modes.mouseTracking;
  if (t === 'none') return undefined;
  const isWheel = e.action === 'wheel-up' || e.action === 'wheel-down';
  if (t === 'x10' && e.action !== 'press') return undefined;
  if (e.action === 'move') {
    const dragging = e.button <= 2;
    if (t === 'any' ? false : t !== 'drag' || !dragging) return undefined;
  }
  let b = isWheel ? (e.action === 'wheel-up' ? 64 : 65) : e.action === 'move' ? (e.button <= 2 ? e.button : 3) + 32 : e.button;
  if (t !== 'x10') b += (e.shift ? 4 : 0) + (e.meta ? 8 : 0) + (e.ctrl ? 16 : 0);
  const x = e.x + 1;
  const y = e.y + 1;
  switch (modes.mouseEncoding) {
    case 'sgr':
    case 'sgr-pixels':
      return `\x1b[<${b};${x};${y}${e.action === 'release' ? 'm' : 'M'}`;
    case 'urxvt':
      return `\x1b[${(e.action === 'release' ? 3 : b) + 32};${x};${y}M`;
    case 'utf8': {
      if (x > 2015 || y > 2015) return undefined;
      const rb = e.action === 'release' ? 3 + (b & ~3) : b;
      return `\x1b[M${String.fromCodePoint(32 + rb, 32 + x, 32 + y)}`;
    }
    default: {
      if (x > 223 || y > 223) return undefined;
      const rb = e.action === 'release' ? 3 + (b & ~3 & ~64) : b;
      return `\x1b[M${String.fromCharCode(32 + rb, 32 + x, 32 + y)}`;
    }
  }
}
