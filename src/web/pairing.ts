// Pairing and browser sessions: one-time tokens exchanged for a session cookie; only hashes are kept; pairing is rate-limited.
import { createHash, randomBytes } from 'node:crypto';

export const COOKIE = 'castellan_web';
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;
/** A pairing URL is good this long, and once. */
export const PAIR_TTL_MS = 10 * 60_000;
/** Failed exchanges allowed per window before every exchange is refused until the window passes. */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
const MAX_PENDING = 16;
const MAX_SESSIONS = 64;

const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');

export interface BrowserSession {
  /** Shown in the audit log and to the page; not a secret. */
  id: string;
  readOnly: boolean;
  createdAt: number;
}

export type ExchangeResult = { ok: true; cookie: string; session: BrowserSession } | { ok: false; why: 'rate_limited' | 'invalid' };

export class Pairing {
  private readonly pending = new Map<string, { expires: number; readOnly: boolean }>();
  private readonly sessions = new Map<string, BrowserSession>();
  private failures: number[] = [];
  private readonly revokeListeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time pairing token (the caller puts it in the URL's fragment, which browsers never send anywhere). */
  issue(readOnly: boolean): { token: string; expires: number } {
    const token = secret();
    const expires = this.now() + PAIR_TTL_MS;
    this.prune();
    while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(hash(token), { expires, readOnly });
    return { token, expires };
  }

  /** Trades a pairing token for a session cookie value, once. */
  exchange(token: unknown): ExchangeResult {
    const t = this.now();
    this.failures = this.failures.filter((f) => t - f < FAILURE_WINDOW_MS);
    if (this.failures.length >= MAX_FAILURES) return { ok: false, why: 'rate_limited' };
    const entry = typeof token === 'string' && SECRET_RE.test(token) ? this.pending.get(hash(token)) : undefined;
    if (!entry || entry.expires < t) {
      this.failures.push(t);
      return { ok: false, why: 'invalid' };
    }
    this.pending.delete(hash(token as string));
    const cookie = secret();
    const session: BrowserSession = { id: `b${randomBytes(4).toString('hex')}`, readOnly: entry.readOnly, createdAt: t };
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    this.sessions.set(hash(cookie), session);
    return { ok: true, cookie, session };
  }

  /** The browser session a cookie value belongs to. */
  check(cookie: string | undefined): BrowserSession | undefined {
    if (typeof cookie !== 'string' || !SECRET_RE.test(cookie)) return undefined;
    return this.sessions.get(hash(cookie));
  }

  /** Ends every browser session and forgets every pairing URL not used yet; returns how many sessions ended. */
  revoke(): number {
    const n = this.sessions.size;
    this.sessions.clear();
    this.pending.clear();
    for (const fn of this.revokeListeners) fn();
    return n;
  }

  onRevoke(fn: () => void): () => void {
    this.revokeListeners.add(fn);
    return () => this.revokeListeners.delete(fn);
  }

  get counts(): { sessions: number; pending: number } {
    this.prune();
    return { sessions: this.sessions.size, pending: this.pending.size };
  }

  private prune(): void {
    const t = this.now();
    for (const [k, v] of this.pending) if (v.expires < t) this.pending.delete(k);
  }
}

/** The value of one cookie in a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (typeof header !== 'string' || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
