// Splitting text for the socket: pieces of bounded size that never cut a surrogate pair.

/** Pastes and typed bursts are sent in parts of at most this many UTF-16 units (under the socket's line limit). */
export const PART = 256 * 1024;

/** Splits text into pieces of at most n UTF-16 units without cutting a surrogate pair in two. */
export function chunks(s: string, n: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    let end = Math.min(s.length, i + n);
    const c = s.charCodeAt(end - 1);
    if (end < s.length && c >= 0xd800 && c <= 0xdbff) end--;
    out.push(s.slice(i, end));
    i = end;
  }
  return out;
}

/** A paste as client.input messages: whole, or in parts the server brackets once around the whole. */
export function pasteParts(text: string): Array<{ kind: 'paste'; text: string; part?: 'first' | 'more' | 'last' }> {
  if (text.length <= PART) return [{ kind: 'paste', text }];
  const parts = chunks(text, PART);
  return parts.map((t, i) => ({ kind: 'paste', text: t, part: i === 0 ? 'first' : i === parts.length - 1 ? 'last' : 'more' }));
}
