// What the client's and the server's young-generation settings ask of V8 at run time (client/young-generation.ts, server/young-gen-shrink.ts).
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * V8 majors of Node 20-24: the ones whose run-time flags castellan sets (--semi-space-growth-factor, --turbofan,
 * --expose-gc) are known there. V8 prints "unrecognized flag" to stderr for a flag it lacks, which would land on the
 * user's terminal or the server's log, so an unknown V8 keeps its defaults.
 */
export const isKnownV8 = (version: string): boolean => /^1[123]\./.test(version);

/** Committed bytes of the young generation (V8's new space). */
export function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
}
