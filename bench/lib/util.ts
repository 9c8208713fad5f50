// Small helpers shared by the bench sections: sleeping, quantiles, rounding, shell quoting.

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const now = (): number => performance.now();

/** Nearest-rank quantile (q in 0..1) of unsorted numbers; the median of an even count averages the middle two. */
export function quantile(xs: readonly number[], q: number): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  if (q === 0.5 && s.length % 2 === 0) return (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export function round(x: number, digits = 2): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Single-quotes a word for sh. */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export const MiB = 1024 * 1024;

/** A deterministic PRNG (xorshift32) so generated data and key orders are the same on every run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

export function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

/** Runs `fn` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitUntil<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 10_000, everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
