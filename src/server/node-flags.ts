// The Node flags a castellan server runs with (the daemon passes them; the bench starts its servers the same way).
//
// None by default, measured: --max-semi-space-size=1 caps V8's young generation (2 x 16 MB, grown while the server
// loads and then kept) and took an idle server with one pane from 90 to 81 MB RSS (43 to 34 MB private), but the
// server's CPU to parse a 20 MB flood went from a median 3.3 s to 4.2 s (=1: 3.4-4.9 s over 4 runs; default:
// 3.1-4.1 s over 5; load 9-18 on 2 cores), and pty parsing is the hot path. CASTELLAN_SERVER_NODE_FLAGS lets a
// quiet machine settle it: `CASTELLAN_SERVER_NODE_FLAGS=--max-semi-space-size=1 npm run bench`.
export const SERVER_NODE_FLAGS: readonly string[] = [];

/** Only V8 heap-size and compile-mode flags: nothing that loads code or changes what the server does. */
const ALLOWED = /^--(max-semi-space-size|min-semi-space-size|max-old-space-size|semi-space-growth-factor)=\d{1,5}$|^--(lite-mode|max-lazy|optimize-for-size)$/;

/** CASTELLAN_SERVER_NODE_FLAGS when set (space-separated; "" means Node's defaults), else the flags above. */
export function serverNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = env.CASTELLAN_SERVER_NODE_FLAGS;
  if (own === undefined) return [...SERVER_NODE_FLAGS];
  return own.split(/\s+/).filter((f) => ALLOWED.test(f));
}
