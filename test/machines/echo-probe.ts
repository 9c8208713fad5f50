// Keystroke echo in attached clients, measured interleaved and open-loop: keys go to both clients on one fixed schedule
// whether or not earlier ones came back, so a stall in one client delays every key typed during it (a closed loop would
// count one slow key for the whole stall), and both clients see the same load at the same moments.
import { quantile } from '../../bench/lib/util.js';
import type { TermHarness } from '../support/term-harness.js';

let code = 0x4e00;
/** A fresh CJK ideograph each call: its echo cannot be mistaken for anything already on the screen. */
const nextChar = (): string => String.fromCodePoint(++code > 0x9f00 ? (code = 0x4e01) : code);

/** Typed keys of one client awaiting their echo; resolved from the client's output. */
class Echoes {
  readonly lat: number[] = [];
  private readonly pending = new Map<string, number>();
  private readonly sub: { dispose(): void };

  constructor(private readonly h: TermHarness) {
    this.sub = h.proc.onData((d) => {
      if (!this.pending.size) return;
      const t = performance.now();
      for (const [ch, t0] of this.pending) {
        if (!d.includes(ch)) continue;
        this.lat.push(t - t0);
        this.pending.delete(ch);
      }
    });
  }

  type(): void {
    const ch = nextChar();
    this.pending.set(ch, performance.now());
    this.h.write(ch);
  }

  get waiting(): number {
    return this.pending.size;
  }

  /** Keys never echoed count as `lostMs` each (they are the worst case, not left out). */
  done(lostMs: number): number[] {
    this.sub.dispose();
    for (let i = 0; i < this.pending.size; i++) this.lat.push(lostMs);
    const lost = this.pending.size;
    this.pending.clear();
    return Object.assign(this.lat, { lost });
  }
}

export interface EchoRun {
  base: number[] & { lost?: number };
  probe: number[] & { lost?: number };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `n` keys to each client, one every `everyMs` (the two clients half a period apart); every 30 keys an Enter (cat's
 * line ends). After the first fifth, `keysFirst` is typed into both clients and `during` (the fault) starts.
 */
export async function interleavedEcho(base: TermHarness, probe: TermHarness, n: number, during?: () => Promise<unknown>, keysFirst?: string, everyMs = 25): Promise<EchoRun> {
  const b = new Echoes(base);
  const p = new Echoes(probe);
  let fault: Promise<unknown> | undefined;
  let t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (i === Math.floor(n / 5)) {
      // The fault starts with no key in flight. It spawns processes from this thread, which then reads no echo until
      // each has exec'd (tens of ms at load 3): a key of one client still on its way would be charged for that, and
      // with the schedule's half period it was always the probe's (85-145 ms beside two busy loops, base 20-40).
      const settle = performance.now();
      while ((b.waiting || p.waiting) && performance.now() - settle < 1000) await tick(2);
      t0 += performance.now() - settle;
      // The same keys to both: what is measured is what the machines add, not what the keys cost.
      if (keysFirst) {
        base.write(keysFirst);
        probe.write(keysFirst);
      }
      fault = during?.();
    }
    if (i % 30 === 29) {
      base.write('\r');
      probe.write('\r');
    }
    // The schedule, not the echoes, decides when the next key goes.
    await tick(Math.max(0, t0 + i * everyMs - performance.now()));
    b.type();
    await tick(Math.max(0, t0 + i * everyMs + everyMs / 2 - performance.now()));
    p.type();
  }
  await fault;
  const end = performance.now() + 5000;
  while ((b.waiting || p.waiting) && performance.now() < end) await tick(20);
  return { base: b.done(5000), probe: p.done(5000) };
}

export const p99 = (xs: number[]): number => quantile(xs, 0.99);
