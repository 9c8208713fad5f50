// Keeps the attached client's V8 young generation at the size it has when the client starts loading (1 MB semi-spaces).
//
// V8 doubles the new space each time more bytes survived scavenges than it holds. Loading Ink, React and yoga keeps
// nearly everything it allocates, so it grows to ~12 MB during startup and stays committed until the memory reducer
// runs after ~40 s of idleness (a flood grows it to 16 MB and more). The client is started by the user's shell as
// `node bin/castellan.js`, so it cannot be given --max-semi-space-size as the daemon gives the server its flags, and
// that flag is read once when the heap is made. The growth factor is read each time V8 grows the space, so setting
// it to 1 from inside stops the growth: same pid, no re-exec, no extra process. Measured (bundled, 200x50, one idle
// pane): client RSS 78 -> 69.5 MB, the same as --max-semi-space-size=1. The client's own CPU is a small share of a
// flood (~0.6 s for 40 MB against the server's ~6 s), so more scavenges there barely move throughput.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * V8 majors known to read --semi-space-growth-factor at run time (Node 20-24). V8 prints "unrecognized flag" to stderr
 * for a flag it lacks, which would land on the user's terminal, so an unknown V8 keeps its defaults.
 */
const KNOWN_V8 = /^1[123]\./;

/** CASTELLAN_CLIENT_YOUNG_GEN=default leaves V8's growth alone (to measure the difference). */
export function capYoungGeneration(env: NodeJS.ProcessEnv = process.env, v8Version: string = process.versions.v8): boolean {
  if (env.CASTELLAN_CLIENT_YOUNG_GEN === 'default' || !KNOWN_V8.test(v8Version)) return false;
  // Never 0: V8 would shrink the space to nothing (it crashes).
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}

/** Committed bytes of the young generation (tests read it). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
}
