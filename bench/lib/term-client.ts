// A terminal client (castellan or tmux) run inside a node-pty we own: drains its output, counts frames, finds needles.
import pty from '@lydell/node-pty';
import type { IPty } from '@lydell/node-pty';
import { now, sleep } from './util.js';

const BSU = '\x1b[?2026h'; // begin synchronized update: castellan's painter opens every frame with it
const CARRY = 64;

interface Waiter {
  needle: string;
  resolve(at: number): void;
}

export class TermClient {
  readonly p: IPty;
  /** UTF-8 bytes the client wrote to its terminal. */
  bytes = 0;
  /** Synchronized-update frames seen (castellan paints; tmux 3.3a does not emit them for xterm-256color). */
  syncFrames = 0;
  /** now() when the client was spawned, and when its first synchronized frame began (NaN until then). */
  readonly startedAt = now();
  firstFrameAt = NaN;
  lastDataAt = 0;
  exitCode: number | undefined;
  readonly exited: Promise<number>;
  private carry = '';
  private waiters: Waiter[] = [];
  private head = '';

  constructor(file: string, args: string[], o: { cols: number; rows: number; env: NodeJS.ProcessEnv; cwd: string }) {
    this.p = pty.spawn(file, args, { name: 'xterm-256color', cols: o.cols, rows: o.rows, cwd: o.cwd, env: o.env as Record<string, string>, encoding: 'utf8' });
    this.p.onData((d) => this.onData(d));
    this.exited = new Promise((r) =>
      this.p.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        r(exitCode);
      }),
    );
  }

  get pid(): number {
    return this.p.pid;
  }

  private onData(d: string): void {
    const at = now();
    this.lastDataAt = at;
    this.bytes += Buffer.byteLength(d);
    if (this.head.length < 4096) this.head += d.slice(0, 4096 - this.head.length);
    const s = this.carry + d;
    // Only matches that end inside the new data count (a match wholly in the carry was seen before).
    for (let i = s.indexOf(BSU, Math.max(0, this.carry.length - BSU.length + 1)); i !== -1; i = s.indexOf(BSU, i + 1)) this.syncFrames++;
    if (this.syncFrames > 0 && Number.isNaN(this.firstFrameAt)) this.firstFrameAt = at;
    if (this.waiters.length) {
      const keep: Waiter[] = [];
      for (const w of this.waiters) {
        if (s.indexOf(w.needle, Math.max(0, this.carry.length - w.needle.length + 1)) !== -1) w.resolve(at);
        else keep.push(w);
      }
      this.waiters = keep;
    }
    this.carry = s.length > CARRY ? s.slice(-CARRY) : s;
  }

  /** Resolves with the time `needle` shows up in output written after this call, or NaN after timeoutMs. */
  waitFor(needle: string, timeoutMs: number): Promise<number> {
    if (needle.length > CARRY) throw new Error('needle too long');
    return new Promise((resolve) => {
      const w: Waiter = {
        needle,
        resolve: (at) => {
          clearTimeout(t);
          resolve(at);
        },
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(NaN);
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  /** Waits until the client wrote something and then stayed silent for quietMs (or maxMs passed). */
  async settle(quietMs = 300, maxMs = 5000): Promise<void> {
    const start = now();
    while (now() - start < maxMs) {
      if (this.bytes > 0 && now() - this.lastDataAt >= quietMs) return;
      await sleep(25);
    }
  }

  /** The first few KB of output (for error messages). */
  get firstOutput(): string {
    return this.head;
  }

  write(s: string): void {
    this.p.write(s);
  }

  kill(sig: NodeJS.Signals = 'SIGTERM'): void {
    try {
      this.p.kill(sig);
    } catch {
      /* gone */
    }
  }

  async close(): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.kill('SIGTERM');
    const done = await Promise.race([this.exited.then(() => true), sleep(2000).then(() => false)]);
    if (!done) this.kill('SIGKILL');
  }
}
