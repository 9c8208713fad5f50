// Recognises input that is plain typed text: characters that are their own key names and can start no sequence.

/** Longer chunks are not typing (a paste into a terminal without bracketed paste): they take the parser. */
const MAX_TYPED = 64;

/**
 * The keys of `data` when every one is a printable character standing for itself (what KeyParser would name it, one
 * event each: 0x21-0x7e, U+00A0 and up, surrogate pairs whole), or undefined for anything else (controls, ESC,
 * space, C1, a lone surrogate, an empty or long chunk).
 */
export function typedKeys(data: string): string[] | undefined {
  if (data.length === 0 || data.length > MAX_TYPED) return undefined;
  const keys: string[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = data.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return undefined;
      keys.push(data.slice(i, i + 2));
      i++;
    } else if ((c > 0x20 && c < 0x7f) || (c >= 0xa0 && !(c >= 0xdc00 && c <= 0xdfff))) keys.push(data[i]);
    else return undefined;
  }
  return keys;
}
