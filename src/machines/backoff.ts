// The waits between reconnect attempts, for everything that reconnects to a machine (attach --machine, herd wait).

/** 0.5 s doubling to 8 s, then 8 s for as long as it takes (attempt counts from 0). */
export function backoff(attempt: number, firstMs = 500, maxMs = 8000): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 16));
}
