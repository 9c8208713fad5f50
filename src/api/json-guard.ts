// A linear pre-scan of a request line's bytes: rejects nesting bombs and value floods before JSON.parse sees them.
//
// JSON.parse of `[[[[...` two million deep, or of a million `{}`s, takes V8 a second (and recursion
// on the result overflows the stack), so the shape is measured first, at a few ms per 4 MiB.

/** Deepest nesting a request may have: the envelope's one level plus 64 in params. */
export const MAX_JSON_DEPTH = 65;
/** Most values (array elements and object members) one request may hold. */
export const MAX_JSON_VALUES = 200_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(b: Uint8Array, open: number): number {
  // Fast path: native search for the next quote; fine unless it is escaped.
  const q = b.indexOf(QUOTE, open + 1);
  if (q === -1) return -1;
  let k = q - 1;
  while (b[k] === BACKSLASH) k--;
  if (((q - 1 - k) & 1) === 0) return q;
  // Escaped quotes: walk byte by byte (a native search per quote would be slow on `\"\"\"...`).
  for (let i = q + 1; i < b.length; i++) {
    const c = b[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/** Why this JSON text is too deep or too big to parse, or undefined. Strings are skipped (multi-byte UTF-8 never contains `"` or `\`). */
export function jsonShapeProblem(b: Uint8Array, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): string | undefined {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) {
      const end = stringEnd(b, i);
      if (end === -1) return undefined; // unterminated: JSON.parse rejects it, cheaply
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `nested deeper than ${maxDepth - 1} levels`;
      if (++values > maxValues) return `more than ${maxValues} values`;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++values > maxValues) return `more than ${maxValues} values`;
  }
  return undefined;
}

/** The id of a request whose body cannot be parsed, when it leads the object (as every castellan client writes it). */
export function leadingId(b: Uint8Array): string | number | null {
  const head = Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, 512)).toString('utf8');
  const m = /^\s*\{\s*"id"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.){0,200}"|-?\d{1,20}(?:\.\d{1,20})?(?:[eE][+-]?\d{1,3})?)\s*[,}]/.exec(head);
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(m[1]);
    return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Whether an already parsed value holds an object or array more than `max` levels deep (the top is level 1).
 * Iterative, so a value too deep for recursion is measured too: for payloads and files that arrive parsed.
 */
export function valueDeeperThan(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (!x || typeof x !== 'object') continue;
    if (d > max) return true;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (c && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}
