// Splitting text for the socket: pieces of bounded size that never cut a surrogate pair.

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
