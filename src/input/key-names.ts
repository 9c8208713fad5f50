// Canonical key names (tmux-style) and the bytes each one stands for, shared by the parser and the keymap.

/**
 * Naming conventions:
 * - printable characters are themselves (`a`, `A`, `%`, `é`); a space is `Space`;
 * - modifiers prefix the base name in tmux's order: `C-` then `M-` then `S-` (`C-M-S-Up`);
 * - a control character is `C-<lowercase letter>` (`C-a`), except the ones with names of their own:
 *   `Tab` (C-i), `Enter` (C-m, \r), `Escape` (C-[), `BSpace` (\x7f); \x00 is `C-Space`; `C-h` is \x08;
 * - shift on a letter is the capital letter (`A`, never `S-a`); shift on Tab is `BTab`;
 * - Alt/Meta (ESC-prefixed or from xterm modifier parameters) is `M-`;
 * - `Unknown` is any sequence we cannot name; it is still delivered byte for byte.
 */
export interface Mods {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

export const NO_MODS: Mods = { ctrl: false, meta: false, shift: false };

const FKEYS = Array.from({ length: 12 }, (_, i) => `F${i + 1}`);
const KEYPAD = ['KP0', 'KP1', 'KP2', 'KP3', 'KP4', 'KP5', 'KP6', 'KP7', 'KP8', 'KP9', 'KP/', 'KP*', 'KP-', 'KP+', 'KP.', 'KPEnter'];

/** Every multi-character base name a key can have (single characters are names of themselves). */
export const NAMED_KEYS: readonly string[] = [
  'Enter', 'Tab', 'BTab', 'Space', 'BSpace', 'Escape',
  'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Insert', 'Delete',
  ...FKEYS, ...KEYPAD,
];
const NAMED = new Set(NAMED_KEYS);

const isSingleChar = (s: string): boolean => s.length > 0 && [...s].length === 1;
const isLetter = (s: string): boolean => /^[A-Za-z]$/.test(s);

/** Ctrl on these characters gives a key with a name of its own (what a legacy terminal sends for it). */
const CTRL_FOLDS: Record<string, string> = { i: 'Tab', m: 'Enter', '[': 'Escape', '@': 'Space', '?': 'BSpace' };

/** Builds a canonical name from modifiers and a base (a named key or one character), folding aliases. */
export function composeKey(mods: Mods, base: string): string {
  let { ctrl, meta, shift } = mods;
  if (base === ' ') base = 'Space';
  if (ctrl && isSingleChar(base)) {
    const lower = isLetter(base) ? base.toLowerCase() : base;
    const fold = CTRL_FOLDS[lower];
    if (fold === 'Space') base = 'Space';          // C-@ and C-Space are both \x00
    else if (fold) { base = fold; ctrl = false; }
    else base = lower;
  }
  if (shift && !ctrl && isLetter(base)) { base = base.toUpperCase(); shift = false; }
  if (shift && base === 'Tab') { base = 'BTab'; shift = false; }
  if (base === 'BTab') shift = false;
  return `${ctrl ? 'C-' : ''}${meta ? 'M-' : ''}${shift ? 'S-' : ''}${base}`;
}

/** Splits `C-M-Up` into modifiers and base; accepts the modifiers in any order. */
export function splitMods(name: string): { mods: Mods; base: string } {
  const mods = { ...NO_MODS };
  let rest = name;
  for (let m = /^([CMS])-(.+)$/su.exec(rest); m; m = /^([CMS])-(.+)$/su.exec(rest)) {
    if (m[1] === 'C') mods.ctrl = true;
    else if (m[1] === 'M') mods.meta = true;
    else mods.shift = true;
    rest = m[2];
  }
  return { mods, base: rest };
}

/** True when `base` is something a key can be called (a named key or one printable character). */
export function isKeyBase(base: string): boolean {
  if (NAMED.has(base)) return true;
  if (!isSingleChar(base)) return false;
  const c = base.codePointAt(0)!;
  return c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0);
}

/** Names a key reported as a code point (`CSI cp;m u`, `CSI 27;m;cp ~`); `Unknown` for control code points. */
export function codepointName(cp: number, mods: Mods): string {
  const named: Record<number, string> = { 9: 'Tab', 13: 'Enter', 27: 'Escape', 127: 'BSpace', 32: 'Space' };
  if (named[cp]) return composeKey(mods, named[cp]);
  if (!Number.isInteger(cp) || cp < 0x21 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x7f && cp < 0xa0)) return 'Unknown';
  return composeKey(mods, String.fromCodePoint(cp));
}

/** xterm's modifier parameter: 1 + shift + 2*alt + 4*ctrl. */
export const modParam = (m: Mods): number => 1 + (m.shift ? 1 : 0) + (m.meta ? 2 : 0) + (m.ctrl ? 4 : 0);

/** The reverse of modParam; bit 8 (xterm's Meta, kitty's Super) and 32 (kitty's Meta) also count as M-. */
export function modsFromParam(p: number | undefined): Mods {
  if (p === undefined || !Number.isFinite(p) || p < 1) return { ...NO_MODS };
  const bits = p - 1;
  return { shift: (bits & 1) !== 0, meta: (bits & (2 | 8 | 32)) !== 0, ctrl: (bits & 4) !== 0 };
}

/** Cursor-style keys: `CSI <final>`, or `CSI 1;<mods> <final>` with modifiers. */
export const CSI_LETTER_KEYS: Record<string, string> = { A: 'Up', B: 'Down', C: 'Right', D: 'Left', H: 'Home', F: 'End' };
/** F1-F4 are SS3 P-S unmodified, `CSI 1;<mods> P-S` modified. */
export const SS3_FKEYS: Record<string, string> = { P: 'F1', Q: 'F2', R: 'F3', S: 'F4' };
/** `CSI <n> ~` keys; 1/4 are the vt220 Home/End, 7/8 rxvt's, 11-14 old xterm/rxvt F1-F4. */
export const TILDE_KEYS: Record<number, string> = {
  1: 'Home', 2: 'Insert', 3: 'Delete', 4: 'End', 5: 'PageUp', 6: 'PageDown', 7: 'Home', 8: 'End',
  11: 'F1', 12: 'F2', 13: 'F3', 14: 'F4', 15: 'F5', 17: 'F6', 18: 'F7', 19: 'F8', 20: 'F9', 21: 'F10', 23: 'F11', 24: 'F12',
};
/** Application-keypad SS3 finals. */
export const SS3_KEYPAD: Record<string, string> = {
  M: 'KPEnter', j: 'KP*', k: 'KP+', m: 'KP-', n: 'KP.', o: 'KP/',
  p: 'KP0', q: 'KP1', r: 'KP2', s: 'KP3', t: 'KP4', u: 'KP5', v: 'KP6', w: 'KP7', x: 'KP8', y: 'KP9',
};

const TILDE_CODE: Record<string, number> = {
  Insert: 2, Delete: 3, PageUp: 5, PageDown: 6, F5: 15, F6: 17, F7: 18, F8: 19, F9: 20, F10: 21, F11: 23, F12: 24,
};
const LETTER_CODE: Record<string, string> = { Up: 'A', Down: 'B', Right: 'C', Left: 'D', Home: 'H', End: 'F', F1: 'P', F2: 'Q', F3: 'R', F4: 'S' };
const PLAIN_BYTES: Record<string, string> = { Enter: '\r', Tab: '\t', BTab: '\x1b[Z', Space: ' ', BSpace: '\x7f', Escape: '\x1b', KPEnter: '\r' };
/** Code points for the kitty/fixterms `CSI <cp>;<mods> u` form, used when legacy bytes cannot carry a modifier. */
const CSI_U_CODE: Record<string, number> = { Enter: 13, Tab: 9, Escape: 27, BSpace: 127, Space: 32 };
const CTRL_PUNCT: Record<string, string> = { '\\': '\x1c', ']': '\x1d', '^': '\x1e', _: '\x1f' };

/**
 * Bytes a terminal in normal (not application) mode sends for a canonical key name, e.g. to send the
 * prefix to a pane or for `pane.send_keys`. Modifiers may come in any order. Names the keymap would
 * accept as aliases (`ctrl+c`, `enter`) should go through `normalizeKey` first. Combinations legacy
 * bytes cannot express (`S-Enter`, `C-1`) use the `CSI <cp>;<mods> u` form that modern TUIs read.
 */
export function keyToBytes(key: string): string | undefined {
  const { mods, base } = splitMods(key);
  if (!isKeyBase(base)) return undefined;
  const m = modParam(mods);
  const letter = LETTER_CODE[base];
  if (letter) {
    if (m > 1) return `\x1b[1;${m}${letter}`;
    return /^F[1-4]$/.test(base) ? `\x1bO${letter}` : `\x1b[${letter}`;
  }
  const tilde = TILDE_CODE[base];
  if (tilde !== undefined) return m > 1 ? `\x1b[${tilde};${m}~` : `\x1b[${tilde}~`;
  if (base.startsWith('KP') && base.length > 2) {
    const plain = base === 'KPEnter' ? '\r' : base.slice(2);
    return m > 1 ? undefined : plain;
  }
  const legacy = legacyBytes(mods, base);
  if (legacy !== undefined) return mods.meta ? `\x1b${legacy}` : legacy;
  const cp = CSI_U_CODE[base] ?? (isSingleChar(base) ? base.codePointAt(0)! : undefined);
  return cp === undefined ? undefined : `\x1b[${cp};${m}u`;
}

/** Bytes without the meta ESC, or undefined when ctrl/shift cannot be expressed in legacy bytes. */
function legacyBytes(mods: Mods, base: string): string | undefined {
  const { ctrl, shift } = mods;
  if (base === 'BTab') return ctrl ? undefined : PLAIN_BYTES.BTab;
  if (!ctrl && !shift) return PLAIN_BYTES[base] ?? base;
  if (shift && !ctrl && isLetter(base)) return base.toUpperCase();
  if (shift) return undefined;
  if (base === 'Space') return '\x00';
  if (base === 'BSpace') return '\x08';
  if (isLetter(base)) return String.fromCharCode(base.toLowerCase().charCodeAt(0) & 0x1f);
  if (base === '@') return '\x00';
  if (base === '?') return '\x7f';
  if (base === '[') return '\x1b';
  return CTRL_PUNCT[base];
}
