// The V8 settings the attached client gives itself before loading the app: a young generation kept at its start size (1 MB
// semi-spaces), and no optimizing compiler (skipOptimizingCompiler below).
//
// V8 doubles the new space each time more bytes survived scavenges than it holds. Loading modules keeps nearly
// everything it allocates (the app at start; Ink, React and yoga when a tiny pane first shows, ui/ink-door.ts), so it
// grows to ~12 MB and stays committed until the memory reducer runs after ~40 s of idleness (a flood grows it to
// 16 MB and more). The client is started by the user's shell as `node bin/castellan.js`, so it cannot be given
// --max-semi-space-size as the daemon gives the server its flags, and that flag is read once when the heap is made.
// The growth factor is read each time V8 grows the space, so setting it to 1 from inside stops the growth: same pid,
// no re-exec, no extra process. Measured (bundled, 200x50, one idle pane, when the client still loaded Ink at start):
// client RSS 78 -> 69.5 MB, the same as --max-semi-space-size=1. The client's own CPU is a small share of a flood
// (~0.6 s for 40 MB against the server's ~6 s), so more scavenges there barely move throughput.
import { setFlagsFromString } from 'node:v8';
import { isKnownV8, newSpaceBytes } from '../platform/v8-heap.js';

/** CASTELLAN_CLIENT_YOUNG_GEN=default leaves V8's growth alone (to measure the difference). */
export function capYoungGeneration(env: NodeJS.ProcessEnv = process.env, v8Version: string = process.versions.v8): boolean {
  if (env.CASTELLAN_CLIENT_YOUNG_GEN === 'default' || !isKnownV8(v8Version)) return false;
  // Never 0: V8 would shrink the space to nothing (it crashes).
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}

/**
 * Runs the client without V8's optimizing compiler (TurboFan): Ignition and Sparkplug only. At attach TurboFan only
 * optimizes start-up code (loading modules, the first render; for a pane under 2x2, Ink and React) that never runs
 * hot again, on background threads whose malloc arenas keep what those compiles used. The client's hot work is small
 * by design (the server renders; the client places ~30 frames a second), so it runs as fast without it. Measured
 * (bundled, 202x53, one idle pane, load 10-14, the flag set here, before the app loads; Ink then loaded at start):
 * attached client RSS 68.5-72.9 MB -> 61.6-65.2 MB (4-6 runs each); 3 s after a 20 MB flood 69.4-71.1 ->
 * 67.0-68.1 MB; client CPU during that flood median 411 ms (289-712) with TurboFan, 437 ms (415-484) without.
 * CASTELLAN_CLIENT_OPTIMIZER=turbofan keeps it.
 */
export function skipOptimizingCompiler(env: NodeJS.ProcessEnv = process.env, v8Version: string = process.versions.v8): boolean {
  if (env.CASTELLAN_CLIENT_OPTIMIZER === 'turbofan' || !isKnownV8(v8Version)) return false;
  setFlagsFromString('--no-turbofan');
  // The same for yoga's wasm (Ink's layout): Liftoff only, no tier-up to TurboFan on a background thread, whose
  // compile and malloc arena the client then keeps. yoga lays out only overlays and panes under 2x2 (the everyday
  // chrome is drawn by hand), and is not even loaded until one shows. Measured on V8 11 (when yoga loaded at start:
  // Node 20; bundled, 202x53, one idle pane, 5 interleaved runs each, load 1.3-2.4): attached client RSS median
  // 58.7 -> 58.1 MB, and none of the runs 3.7 MB higher (a tier-up's arena) that 1 in 5 had without it. Set on V8 11
  // only, where it was measured (a flag V8 lacks would print to the user's terminal).
  if (/^11\./.test(v8Version)) setFlagsFromString('--liftoff-only');
  return true;
}

/** Committed bytes of the young generation (tests read it). */
export const youngGenerationBytes = newSpaceBytes;
