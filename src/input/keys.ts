// Streaming parser: terminal input bytes (chunked any way) → key, paste, mouse and focus events.
import {
  CSI_LETTER_KEYS, NO_MODS, SS3_FKEYS, SS3_KEYPAD, TILDE_KEYS, codepointName, composeKey, modsFromParam, splitMods,
  type Mods,
} from './key-names.js';

export { keyToBytes, composeKey, splitMods, NAMED_KEYS, type Mods } from './key-names.js';

export type MouseEvent = {
  type: 'mouse';
  action: 'press' | 'release' | 'move' | 'wheel-up' | 'wheel-down';
  button: 0 | 1 | 2 | 3;
  /** 0-based cell coordinates. */
  x: number;
  y: number;
  shift: boolean;
  meta: boolean;
  ctrl: boolean;
  raw: string;
};

export type InputEvent =
  | { type: 'key'; key: string; raw: string }
  | { type: 'paste'; text: string; raw: string }
  | MouseEvent
  | { type: 'focus'; focused: boolean; raw: string };

const ESC = '\x1b';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** A CSI or string sequence longer than this without its terminator is treated as typed text. */
const MAX_CSI = 256;
const MAX_STRING = 1 << 20;
/** OSC, DCS and APC: terminal replies ended by BEL or ST. (SOS `X` and PM `^` are left to M-X / M-^.) */
const STRING_INTROS = new Set([']', 'P', '_']);

type Step =
  | { kind: 'event'; event: InputEvent; end: number }
  | { kind: 'more' }
  | { kind: 'paste'; end: number };

const MORE: Step = { kind: 'more' };
const keyStep = (s: string, i: number, end: number, key: string): Step =>
  ({ kind: 'event', event: { type: 'key', key, raw: s.slice(i, end) }, end });

/**
 * Incremental parser. Holds back a trailing incomplete sequence (or a lone ESC, which could start
 * one) until more bytes arrive or the caller decides the input has gone quiet and calls flush().
 * The `raw` of every event is the exact text it came from, so concatenating them gives the input back.
 */
export class KeyParser {
  private buf = '';
  private paste: string[] | null = null;

  feed(data: string): InputEvent[] {
    this.buf += data;
    return this.drain(false);
  }

  /**
   * Resolves held-back bytes after ~10-20 ms of silence: a lone ESC becomes `Escape`, `ESC [` with
   * nothing after it `M-[`, and so on. An open bracketed paste is kept (pastes over a slow link
   * stall); pass `abandonPaste` (say after a second of silence) to deliver it without its end bracket.
   */
  flush(opts: { abandonPaste?: boolean } = {}): InputEvent[] {
    const out = this.drain(true);
    if (this.paste && opts.abandonPaste) {
      const text = this.paste.join('') + this.buf;
      out.push({ type: 'paste', text, raw: PASTE_START + text });
      this.paste = null;
      this.buf = '';
    }
    return out;
  }

  get pending(): boolean {
    return this.buf.length > 0 || this.paste !== null;
  }

  private drain(final: boolean): InputEvent[] {
    const out: InputEvent[] = [];
    const s = this.buf;
    let i = 0;
    while (i < s.length) {
      if (this.paste) {
        const end = s.indexOf(PASTE_END, i);
        if (end < 0) {
          // Keep a tail that might be the start of the end bracket; the rest is paste text.
          const cut = Math.max(i, s.length - partialTail(s, i, PASTE_END));
          if (cut > i) this.paste.push(s.slice(i, cut));
          i = cut;
          break;
        }
        this.paste.push(s.slice(i, end));
        const text = this.paste.join('');
        out.push({ type: 'paste', text, raw: PASTE_START + text + PASTE_END });
        this.paste = null;
        i = end + PASTE_END.length;
        continue;
      }
      const r = step(s, i, final);
      if (r.kind === 'more') break;
      if (r.kind === 'paste') this.paste = [];
      else out.push(r.event);
      i = r.end;
    }
    this.buf = s.slice(i);
    return out;
  }
}

/** Length of the longest suffix of s[from..] that is a proper prefix of `marker`. */
function partialTail(s: string, from: number, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length - from); n > 0; n--) {
    if (s.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

/** Parses one event at s[i]; `final` means no more bytes are coming, so resolve ambiguity now. */
function step(s: string, i: number, final: boolean): Step {
  if (s[i] !== ESC) return plainKey(s, i, final);
  if (i + 1 >= s.length) return final ? keyStep(s, i, i + 1, 'Escape') : MORE;
  const n = s[i + 1];
  let r: Step | null = null;
  if (n === '[') r = csi(s, i, final);
  else if (n === 'O') r = ss3(s, i, final);
  else if (STRING_INTROS.has(n)) r = escString(s, i, final);
  else if (n === ESC) return escEsc(s, i, final);
  // null: not a well-formed sequence, so the ESC was Alt held with the next key.
  return r ?? metaKey(s, i, final);
}

/** One character (or control byte) that is not the start of an escape sequence. */
function plainKey(s: string, i: number, final: boolean): Step {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    if (i + 1 >= s.length) return final ? keyStep(s, i, i + 1, 'Unknown') : MORE;
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return keyStep(s, i, i + 2, s.slice(i, i + 2));
    return keyStep(s, i, i + 1, 'Unknown');
  }
  return keyStep(s, i, i + 1, charName(c, s[i]));
}

function charName(c: number, ch: string): string {
  if (c === 0x0d) return 'Enter';
  if (c === 0x09) return 'Tab';
  if (c === 0x7f) return 'BSpace';
  if (c === 0x1b) return 'Escape';
  if (c === 0x00) return 'C-Space';
  if (c < 0x1b) return `C-${String.fromCharCode(c + 0x60)}`;
  if (c < 0x20) return `C-${'\\]^_'[c - 0x1c]}`;
  if (c === 0x20) return 'Space';
  if (c >= 0x80 && c < 0xa0) return 'Unknown';
  if (c >= 0xdc00 && c <= 0xdfff) return 'Unknown';
  return ch;
}

/** ESC followed by a key: Alt (`M-`) on that key, e.g. \x1bx = M-x, \x1b\x02 = C-M-b. */
function metaKey(s: string, i: number, final: boolean): Step {
  const inner = plainKey(s, i + 1, final);
  if (inner.kind !== 'event' || inner.event.type !== 'key') return inner;
  const name = inner.event.key;
  if (name === 'Unknown') return keyStep(s, i, i + 1, 'Escape');
  const { mods, base } = splitMods(name);
  return keyStep(s, i, inner.end, composeKey({ ...mods, meta: true }, base));
}

/** ESC ESC: Alt+Escape, or rxvt-style Alt on a whole sequence (\x1b\x1b[A = M-Up). */
function escEsc(s: string, i: number, final: boolean): Step {
  if (i + 2 >= s.length) return final ? keyStep(s, i, i + 2, 'M-Escape') : MORE;
  const third = s[i + 2];
  if (third !== '[' && third !== 'O') return keyStep(s, i, i + 2, 'M-Escape');
  const inner = step(s, i + 1, final);
  if (inner.kind === 'more') return MORE;
  if (inner.kind === 'event' && inner.event.type === 'key' && inner.event.key !== 'Unknown') {
    const { mods, base } = splitMods(inner.event.key);
    if (!mods.meta) return keyStep(s, i, inner.end, composeKey({ ...mods, meta: true }, base));
  }
  return keyStep(s, i, i + 1, 'Escape');
}

/** Scans `ESC [ params intermediates final`; null when malformed, or when incomplete at a flush. */
function csi(s: string, i: number, final: boolean): Step | null {
  const start = i + 2;
  if (s[start] === 'M') return x10Mouse(s, i, final);
  let j = start;
  while (j < s.length && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x3f) j++;
  const params = s.slice(start, j);
  // rxvt marks shifted editing keys with `$` (\x1b[2$ = S-Insert); a lone number makes it unambiguous.
  if (s[j] === '$' && /^\d+$/.test(params)) return tildeKey(s, i, j + 1, params, '$');
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
  if (j >= s.length) return final || j - i > MAX_CSI ? null : MORE;
  const f = s[j];
  const code = s.charCodeAt(j);
  if (code < 0x40 || code > 0x7e) return null;
  const end = j + 1;
  const inter = s.slice(start + params.length, j);
  if (params === '200' && f === '~' && !inter) return { kind: 'paste', end };
  if (inter) return keyStep(s, i, end, 'Unknown');
  if (f === '[' && !params) return linuxFKey(s, i, final);
  return csiEvent(s, i, end, params, f);
}

function csiEvent(s: string, i: number, end: number, params: string, f: string): Step {
  const raw = s.slice(i, end);
  if (params.startsWith('<') && (f === 'M' || f === 'm')) {
    const [b, x, y] = nums(params.slice(1));
    return mouseStep(s, i, end, b, x, y, f === 'm') ?? keyStep(s, i, end, 'Unknown');
  }
  if (/^[<=>?]/.test(params)) return keyStep(s, i, end, 'Unknown');
  const p = nums(params);
  if (!params && (f === 'I' || f === 'O')) return { kind: 'event', event: { type: 'focus', focused: f === 'I', raw }, end };
  if (f === 'M' && p.length === 3) return mouseStep(s, i, end, p[0] - 32, p[1], p[2], false) ?? keyStep(s, i, end, 'Unknown'); // urxvt 1015
  if (f === 'Z') return keyStep(s, i, end, composeKey(modsFromParam(p[1]), 'BTab'));
  const letterKey = CSI_LETTER_KEYS[f];
  if (letterKey && p.length <= 2) return keyStep(s, i, end, composeKey(modsFromParam(p[1]), letterKey));
  // `CSI 1;<m> P-S` are modified F1-F4; a first parameter other than 1 is a cursor report (CPR), not a key.
  if (SS3_FKEYS[f] && (p.length === 0 || (p[0] === 1 && p.length <= 2))) return keyStep(s, i, end, composeKey(modsFromParam(p[1]), SS3_FKEYS[f]));
  if ('abcd'.includes(f) && !params) return keyStep(s, i, end, composeKey({ ...NO_MODS, shift: true }, CSI_LETTER_KEYS[f.toUpperCase()])); // rxvt S-arrows
  if (f === 'u' && p.length >= 1 && p.length <= 2) return keyStep(s, i, end, codepointName(p[0], modsFromParam(p[1])));
  if (f === '~' && p[0] === 27 && p.length === 3) return keyStep(s, i, end, codepointName(p[2], modsFromParam(p[1]))); // modifyOtherKeys
  if ('~^@'.includes(f)) return tildeKey(s, i, end, params, f);
  return keyStep(s, i, end, 'Unknown');
}

/** `CSI n ~` editing/function keys, with xterm modifiers or rxvt's `^` (ctrl) `$` (shift) `@` (both). */
function tildeKey(s: string, i: number, end: number, params: string, f: string): Step {
  const p = nums(params);
  const base = TILDE_KEYS[p[0]];
  if (!base || p.length > 2 || (f !== '~' && p.length > 1)) return keyStep(s, i, end, 'Unknown');
  const mods: Mods = f === '~' ? modsFromParam(p[1]) : { ctrl: f !== '$', meta: false, shift: f !== '^' };
  return keyStep(s, i, end, composeKey(mods, base));
}

/** The Linux console's F1-F5: `ESC [ [ A`..`E`. */
function linuxFKey(s: string, i: number, final: boolean): Step | null {
  const k = i + 3;
  if (k >= s.length) return final ? null : MORE;
  const idx = 'ABCDE'.indexOf(s[k]);
  return idx < 0 ? null : keyStep(s, i, k + 1, `F${idx + 1}`);
}

/** `ESC O <final>`: application-mode cursor keys, F1-F4, the keypad and rxvt's C-arrows. */
function ss3(s: string, i: number, final: boolean): Step | null {
  let j = i + 2;
  while (j < s.length && s[j] >= '0' && s[j] <= '9') j++;
  if (j >= s.length) return final ? null : MORE;
  const code = s.charCodeAt(j);
  if (code < 0x40 || code > 0x7e) return null;
  const f = s[j];
  const mods = modsFromParam(j > i + 2 ? Number(s.slice(i + 2, j)) : undefined);
  const base = CSI_LETTER_KEYS[f] ?? SS3_FKEYS[f] ?? SS3_KEYPAD[f];
  if (base) return keyStep(s, i, j + 1, composeKey(mods, base));
  if ('abcd'.includes(f)) return keyStep(s, i, j + 1, composeKey({ ...mods, ctrl: true }, CSI_LETTER_KEYS[f.toUpperCase()]));
  return keyStep(s, i, j + 1, 'Unknown');
}

/** OSC/DCS/APC replies, ended by BEL or ST; anything that does not look like one was typed. */
function escString(s: string, i: number, final: boolean): Step | null {
  for (let j = i + 2; j < s.length; j++) {
    if (j - i > MAX_STRING) return null;
    const c = s.charCodeAt(j);
    if (c === 0x07 || c === 0x9c) return keyStep(s, i, j + 1, 'Unknown');
    if (c === 0x1b) {
      if (j + 1 >= s.length) return final ? null : MORE;
      return s[j + 1] === '\\' ? keyStep(s, i, j + 2, 'Unknown') : null;
    }
    if (c < 0x20) return null;
  }
  return final ? null : MORE;
}

/**
 * `ESC [ M` + three bytes (value + 32 each). Read as code points, this also covers a latin1-decoded
 * stream and mode 1005 (UTF-8 coordinates); in a UTF-8-decoded stream, bytes >= 0x80 are lost.
 */
function x10Mouse(s: string, i: number, final: boolean): Step | null {
  const vals: number[] = [];
  let j = i + 3;
  while (vals.length < 3) {
    if (j >= s.length) return final ? null : MORE;
    const cp = s.codePointAt(j)!;
    // A lone high surrogate at the end of a chunk may be half of a 1005 coordinate.
    if (cp >= 0xd800 && cp <= 0xdbff && j + 1 >= s.length && !final) return MORE;
    vals.push(cp);
    j += cp > 0xffff ? 2 : 1;
  }
  // U+FFFD: a coordinate byte >= 0x80 was lost to UTF-8 decoding, so the position is unknowable.
  if (vals.includes(0xfffd)) return keyStep(s, i, j, 'Unknown');
  const b = vals[0] - 32;
  const release = (b & 3) === 3 && (b & (32 | 64)) === 0;
  return mouseStep(s, i, j, b, vals[1] - 32, vals[2] - 32, release) ?? keyStep(s, i, j, 'Unknown');
}

/** Button byte bits: 0-1 button, 4 shift, 8 meta, 16 ctrl, 32 motion, 64 wheel, 128 extra buttons. */
function mouseStep(s: string, i: number, end: number, b: number, x: number, y: number, release: boolean): Step | null {
  if (![b, x, y].every(Number.isFinite) || b < 0 || b & 128) return null;
  const low = (b & 3) as 0 | 1 | 2 | 3;
  let action: MouseEvent['action'];
  if (b & 64) {
    if (low > 1) return null;  // horizontal wheel: no event shape for it, passed through as Unknown
    action = low === 0 ? 'wheel-up' : 'wheel-down';
  } else if (b & 32) action = 'move';
  else action = release ? 'release' : 'press';
  const event: MouseEvent = {
    type: 'mouse', action, button: low, x: Math.max(0, x - 1), y: Math.max(0, y - 1),
    shift: (b & 4) !== 0, meta: (b & 8) !== 0, ctrl: (b & 16) !== 0, raw: s.slice(i, end),
  };
  return { kind: 'event', event, end };
}

/** `1;5` → [1, 5]; sub-parameters (`1:2`) keep their first part; empty → NaN. */
function nums(params: string): number[] {
  if (!params) return [];
  return params.split(';').map((p) => (p === '' ? NaN : Number(p.split(':')[0])));
}
