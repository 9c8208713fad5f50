// Gives the server's V8 young generation back once output has stopped, keeping it big while output floods.
//
// A flood of pane output grows V8's new space to 2 x 16 MB (it doubles while scavenges keep more than it holds), and
// that is what keeps parsing fast. (The daemon now caps it at 2 x 4 MB, src/server/node-flags.ts; this still gives
// back the ~6 MB above the 2 MB start, and all of it under CASTELLAN_SERVER_NODE_FLAGS="".) V8 keeps it committed
// after the flood: it shrinks new space only in a GC that sees a low allocation rate over V8's last 5 s
// (Heap::ReduceNewSpaceSize), and its memory reducer judged the rate from samples that still held the flood for ~50 s here (measured: RSS 94 MB until ~55 s after a fill, then 72 MB).
// A GC sooner does not shrink it: with 1-3 s of quiet, a full GC, then up to 30 scavenges, left it at 32 MB (the
// flood's samples stay in V8's window). So once the server has used little CPU for a second, no GC has run for 5.5 s
// (after a flood: 5.5 s after it ended; V8 must see 5 s of low allocation) and new space is still grown, this runs
// one full GC, and its epilogue shrinks new space to 2 MB. Never while output floods (the server is busy then), at
// most three tries per quiet spell, and none while new space is small.
// Nor while someone types: typing costs the server ~2 ms of CPU a key, so a human's 5-10 keys a second count as
// quiet by CPU, and the full GC (~70 ms with a grown heap, traced in bench/echo-trace while typing) stalled a key's
// echo for as long. A key since QUIET_MS ago ends the quiet spell as output does.
// The gc function comes from a fresh vm context with --expose-gc set for that moment only: no global `gc`.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { lastUserInputAt } from './input-clock.js';
import { isKnownV8, newSpaceBytes } from '../platform/v8-heap.js';

export { newSpaceBytes };

// Measured on V8 11.3 (Node 20). On 12-13 (Node 22-24, isKnownV8) unmeasured: at worst its GCs shrink nothing (three a
// quiet spell); another V8 keeps its own schedule.
const TICK_MS = 500;
/** Server CPU per tick under which it counts as quiet: an idle server with a client uses ~0-2 ms a tick. */
const QUIET_CPU_MS = 25;
/** Output stopped this long ago, and no GC ran for longer than V8's 5 s allocation window. */
const QUIET_MS = 1000;
const SINCE_GC_MS = 5500;
/** Attempts per quiet spell (one that a GC of V8's own came too close to fails, and is retried 5.5 s later). */
const MAX_TRIES = 3;
/** New space committed above this is "grown" (V8 starts it at 1 MB semi-spaces: 2 MB). */
const GROWN_BYTES = 4 * 1024 * 1024;

type GcFn = () => void;

export interface ShrinkStats {
  /** Attempts made (full GCs run by this module) and how many left new space shrunk. */
  attempts: number;
  shrinks: number;
  /** CPU this module's GCs took, in ms. */
  cpuMs: number;
}

export interface YoungGenShrink {
  readonly stats: ShrinkStats;
  stop(): void;
}

function obtainGc(): GcFn | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as GcFn) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Starts watching (an unref'd timer: it never keeps the process alive). CASTELLAN_SERVER_YOUNG_GEN=default leaves
 * V8's schedule alone (to measure the difference). Returns undefined when off.
 */
export function startYoungGenShrink(env: NodeJS.ProcessEnv = process.env, v8Version: string = process.versions.v8): YoungGenShrink | undefined {
  if (env.CASTELLAN_SERVER_YOUNG_GEN === 'default' || !isKnownV8(v8Version)) return undefined;
  const gc = obtainGc();
  if (!gc) return undefined;
  const stats: ShrinkStats = { attempts: 0, shrinks: 0, cpuMs: 0 };
  let lastCpu = process.cpuUsage();
  let quietSince = Date.now();
  /** When a GC last ran, V8's or ours, as far as a tick can tell (the used heap went down since the last tick). */
  let lastGc = Date.now();
  let lastUsed = getHeapStatistics().used_heap_size;
  /** Attempts in this quiet spell; output starting again resets it. */
  let tries = 0;
  const attempt = () => {
    const c0 = process.cpuUsage();
    stats.attempts++;
    gc();
    if (newSpaceBytes() <= GROWN_BYTES) stats.shrinks++;
    const c = process.cpuUsage(c0);
    stats.cpuMs += (c.user + c.system) / 1000;
    // Our own GC is not output: it must not end the quiet spell.
    lastCpu = process.cpuUsage();
  };
  const timer = setInterval(() => {
    const now = Date.now();
    const used = getHeapStatistics().used_heap_size;
    if (used < lastUsed) lastGc = now;
    lastUsed = used;
    const d = process.cpuUsage(lastCpu);
    lastCpu = process.cpuUsage();
    if ((d.user + d.system) / 1000 > QUIET_CPU_MS || now - lastUserInputAt() < QUIET_MS) {
      quietSince = now;
      tries = 0;
      return;
    }
    if (tries >= MAX_TRIES || now - quietSince < QUIET_MS || now - lastGc < SINCE_GC_MS || newSpaceBytes() <= GROWN_BYTES) return;
    tries++;
    attempt();
    lastGc = Date.now();
    lastUsed = getHeapStatistics().used_heap_size;
  }, TICK_MS);
  timer.unref();
  return { stats, stop: () => clearInterval(timer) };
}
