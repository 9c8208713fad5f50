// The Node flags a castellan server runs with (the daemon passes them; the bench starts its servers the same way).
//
// None by default at first, measured twice. --max-semi-space-size=N caps V8's young generation (it grows to 2 x 16 MB while
// the server loads and is then kept). Bundled server, idle 200x50 pane, medians of 3 (load 8-14 on 2 cores):
// default 78 MB RSS, =2 74 MB, =1 71.5 MB. Its price is more scavenges on the hot path: server CPU to take 20 MB
// into a pane (no client) default 3.9 s, =2 4.0 s (+4 %), =1 4.2 s (+8 %) (medians of 3-4 interleaved runs), and
// the throughput section's server MB per CPU-second fell 6-10 % with =1 (one run each, load 10); an earlier
// unbundled measure had 3.3 -> 4.2 s for =1. A throughput ratio to tmux cannot be judged under such load, so the
// default stays Node's; CASTELLAN_SERVER_NODE_FLAGS lets a quiet machine settle it:
// `CASTELLAN_SERVER_NODE_FLAGS=--max-semi-space-size=2 npm run bench`.
// The memory section with each (bundled, medians of 3 runs, load 10-16; tmux 8.8 MB for the first pane):
//   default: first pane 15.9 MB (1.81x tmux), panes 2-4 8.6, 4 full panes 119.3 MB, idle 72.6 MB
//   =4:      first pane  9.2 MB (1.05x),      panes 2-4 4.3, 4 full panes  98.6 MB, idle 72.7 MB
//   =2:      first pane  8.5 MB (0.97x),      panes 2-4 5.9, 4 full panes  98.9 MB, idle 69.1 MB
// so =4 meets the per-pane target as =2 does (an idle server keeps its 2 x 4 MB either way); its throughput
// cost is what decides between them. (The client caps its own young generation: src/client/young-generation.ts.)
// With the default, a quiet server gives the grown young generation back ~6 s after output stops instead of ~50 s
// (src/server/young-gen-shrink.ts): floods keep the big one, the memory at rest is about what =4 gave (load 9:
// per pane at rest 9.1 MB for the 1st, 5.9 for panes 2-4, tmux 8.8 / 8.5; idle server 73 -> 66.5 MB).
// Since then (issue 14's row "panes 2-4 at 1 s"): V8 gives a grown young generation back only after it has seen 5 s
// of low allocation, so 1 s after any flood the server still holds it, and in that row it was the excess: 3 panes
// filled at once, 1.4 s after, new space held 16.8 MB resident against 1 MB at rest (of RSS 111.6 vs 86.3 MB; the
// rest old-space garbage ~4, ArrayBuffers ~5, large objects ~4; bench/fill-tail.ts with a heap probe, load ~1).
// A GC cannot shrink it sooner on V8 11 (gc({flavor:'last-resort'}) is not there). So the server caps it at =4
// (8 MB): memory section, panes 2-4 at 1 s, 12.4 MB (1.47x tmux) -> 10.0 (1.18x) (load ~1); server CPU to take the
// 50 MB file into a pane, medians of 4-6 interleaved runs, default 3495 / 3750 ms, =4 4000 / 3995 ms (+7-14 %,
// load 1.4-2.9), which the throughput ratio with a client attached (1.6x tmux on a quiet machine) can afford.
// Tried instead, and left out (issue 14, session 8): no cap, new space held at its start size (growth factor 1, set at
// run time: given as a start flag, V8 11.3 raises it to 2 when it makes the heap) and let grow only in a flood of 8 MB
// and more. Interleaved A/B against the cap, load 2-8: idle server 64-67 vs 70-72 MB at 1 s, but the first pane at
// rest 13.9-16.8 MB (1.6-1.9x tmux, over the 1.5x target; the cap's shrink gives back 6 MB that the hold keeps, and
// more scavenges promote the fill's garbage) vs 7.7-9.7; throughput with a client 1.21 vs 1.20x tmux (8 runs) and
// 1.33 vs 1.47x (4 runs, 2 x 2 MB hold); echo flood p90 4.1-6.8 vs 2.5-4.4 ms. No gain that the load did not decide.
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/**
 * Only V8 heap-size and compile-mode flags: nothing that loads code or changes what the server does. Not
 * --semi-space-growth-factor: V8 11.3 sets it to 2 while it makes the heap, so as a start flag it did nothing.
 */
const ALLOWED = /^--(max-semi-space-size|min-semi-space-size|max-old-space-size)=\d{1,5}$|^--(lite-mode|max-lazy|optimize-for-size)$/;

/** CASTELLAN_SERVER_NODE_FLAGS when set (space-separated; "" means Node's defaults), else the flags above. */
export function serverNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const own = env.CASTELLAN_SERVER_NODE_FLAGS;
  if (own === undefined) return [...SERVER_NODE_FLAGS];
  return own.split(/\s+/).filter((f) => ALLOWED.test(f));
}
