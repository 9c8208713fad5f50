// Polling with a deadline (never a bare sleep): waits until a condition holds and fails with what it last saw.

export interface WaitForOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Poll interval (default 25 ms). */
  intervalMs?: number;
  /** What was being waited for, for the failure message. */
  message?: string;
  /** Describes the current state for the failure message (e.g. the screen text); called once, on timeout. */
  observe?: () => unknown | Promise<unknown>;
}

export class WaitTimeoutError extends Error {
  constructor(
    message: string,
    readonly lastValue: unknown,
    readonly lastError: unknown,
  ) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

/** Thrown by a condition that knows it can never hold (say, the program under test has exited): waitFor fails at once. */
export class GiveUp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GiveUp';
  }
}

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.map((l, i) => `${String(i).padStart(3)}|${l}`).join('\n');
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Calls `cond` until it returns a truthy value (resolved with it) or the deadline passes. A `cond`
 * that throws (an `assert` inside it, say) counts as "not yet", except GiveUp, which fails at once; on
 * failure the last error, the last value and `observe()` are all in the thrown message, so a failing
 * test says what it saw.
 */
export async function waitFor<T>(cond: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const intervalMs = opts.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastValue: unknown;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
      lastValue = v;
      lastError = undefined;
    } catch (e) {
      lastError = e;
      if (e instanceof GiveUp) break;
    }
    if (Date.now() >= deadline) break;
    await tick(Math.min(intervalMs, Math.max(1, deadline - Date.now())));
  }
  const gaveUp = lastError instanceof GiveUp;
  const parts = [`waitFor ${gaveUp ? 'gave up' : `timed out after ${timeoutMs} ms`}${opts.message ? `: ${opts.message}` : ''}`];
  if (lastError) parts.push(`last error: ${(lastError as Error)?.message ?? String(lastError)}`);
  else parts.push(`last value: ${show(lastValue)}`);
  if (opts.observe) {
    try {
      parts.push(`observed:\n${show(await opts.observe())}`);
    } catch (e) {
      parts.push(`observe() failed: ${(e as Error).message}`);
    }
  }
  throw new WaitTimeoutError(parts.join('\n'), lastValue, lastError);
}
