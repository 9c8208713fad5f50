// Pairing and browser sessions: one-time tokens exchanged for a session cookie; only hashes are kept; pairing is rate-limited.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export const COOKIE = 'castellan_web';
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;
/** A pairing URL is good this long, and once. */
export const PAIR_TTL_MS = 10 * 60_000;
/** Failed exchanges allowed per window before every exchange is refused until the window passes. */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
const MAX_PENDING = 16;
const MAX_SESSIONS = 64;
/** A browser session lasts this long (the cookie's Max-Age says the same to the browser). */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
export const SESSION_MAX_AGE_S = SESSION_TTL_MS / 1000;
/** A sessions file bigger than this is not read (64 sessions take about 10 KB). */
export const MAX_SESSIONS_FILE = 64 * 1024;
const HASH_RE = /^[0-9a-f]{64}$/;
const ID_RE = /^b[0-9a-f]{8}$/;

const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');

export interface BrowserSession {
  /** Shown in the audit log and to the page; not a secret. */
  id: string;
  readOnly: boolean;
  createdAt: number;
  /** When it ends (ms since epoch). */
  expires: number;
}

/** Where sessions are kept across restarts (hashes only), and where a problem with that file is said. */
export interface SessionStore {
  file: string;
  log(msg: string): void;
}

export type ExchangeResult = { ok: true; cookie: string; session: BrowserSession } | { ok: false; why: 'rate_limited' | 'invalid' };

export class Pairing {
  private readonly pending = new Map<string, { expires: number; readOnly: boolean }>();
  private readonly sessions = new Map<string, BrowserSession>();
  private failures: number[] = [];
  private readonly revokeListeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now, private readonly store?: SessionStore) {
    if (store) for (const [h, s] of loadSessions(store, now())) this.sessions.set(h, s);
  }

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
    const session: BrowserSession = { id: `b${randomBytes(4).toString('hex')}`, readOnly: entry.readOnly, createdAt: t, expires: t + SESSION_TTL_MS };
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    this.sessions.set(hash(cookie), session);
    this.save();
    return { ok: true, cookie, session };
  }

  /** The browser session a cookie value belongs to. */
  check(cookie: string | undefined): BrowserSession | undefined {
    if (typeof cookie !== 'string' || !SECRET_RE.test(cookie)) return undefined;
    const h = hash(cookie);
    const s = this.sessions.get(h);
    if (s && s.expires <= this.now()) {
      this.sessions.delete(h);
      this.save();
      return undefined;
    }
    return s;
  }

  /** Ends every browser session and forgets every pairing URL not used yet; returns how many sessions ended. */
  revoke(): number {
    const n = this.sessions.size;
    this.sessions.clear();
    this.pending.clear();
    if (this.store) forgetSessions(this.store);
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

  /** Writes the sessions' hashes (never a cookie) to the store: 0600, whole or not at all. */
  private save(): void {
    if (!this.store) return;
    const sessions = [...this.sessions].map(([h, s]) => ({ hash: h, id: s.id, read_only: s.readOnly, created: s.createdAt, expires: s.expires }));
    const tmp = `${this.store.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify({ version: 1, sessions }) + '\n', { mode: 0o600, flag: 'wx' });
      renameSync(tmp, this.store.file);
    } catch (e) {
      rmSync(tmp, { force: true });
      this.store.log(`could not keep browser sessions in ${this.store.file} (they last until the server stops): ${(e as Error).message}`);
    }
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

/** Removes the sessions file (`castellan web --revoke`, also when the page is not being served). */
export function forgetSessions(store: SessionStore): void {
  try {
    rmSync(store.file, { force: true });
  } catch (e) {
    store.log(`could not remove ${store.file}: ${(e as Error).message}`);
  }
}

/**
 * The sessions kept in the store, unexpired. Anything wrong with the file (not a regular file of this user, readable by
 * others, too big, binary, not the format) signs nobody in and says why in the server log: it never fails open.
 */
export function loadSessions(store: SessionStore, now: number): Array<[string, BrowserSession]> {
  let fd: number;
  try {
    fd = openSync(store.file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') store.log(`browser sessions not restored (nobody is signed in): cannot open ${store.file}: ${(e as Error).message}`);
    return [];
  }
  const refuse = (why: string): [] => {
    store.log(`browser sessions not restored (nobody is signed in; pair again with castellan web --pair): ${store.file} ${why}`);
    return [];
  };
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refuse('is not a regular file');
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return refuse('belongs to another user');
    if (st.mode & 0o077) return refuse(`is open to other users (mode ${(st.mode & 0o777).toString(8)}; it must be 600)`);
    if (st.size > MAX_SESSIONS_FILE) return refuse(`is too big (${st.size} bytes)`);
    const buf = Buffer.alloc(MAX_SESSIONS_FILE + 1);
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_SESSIONS_FILE) return refuse('is too big');
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, n)));
    } catch {
      return refuse('is not readable JSON');
    }
    const d = doc as { version?: unknown; sessions?: unknown };
    if (!d || typeof d !== 'object' || d.version !== 1 || !Array.isArray(d.sessions) || d.sessions.length > MAX_SESSIONS) return refuse('is not a sessions file');
    const out: Array<[string, BrowserSession]> = [];
    for (const x of d.sessions as Array<Record<string, unknown>>) {
      const ok = x && typeof x === 'object' && Object.keys(x).length === 5 && typeof x.hash === 'string' && HASH_RE.test(x.hash) && typeof x.id === 'string' && ID_RE.test(x.id) && typeof x.read_only === 'boolean' && Number.isSafeInteger(x.created) && Number.isSafeInteger(x.expires);
      if (!ok) return refuse('holds an entry that is not a browser session');
      // An expiry further off than a session ever lasts was not written by castellan.
      if ((x.expires as number) - (x.created as number) > SESSION_TTL_MS) return refuse('holds a session that never expires');
      if ((x.expires as number) <= now) continue;
      out.push([x.hash as string, { id: x.id as string, readOnly: x.read_only as boolean, createdAt: x.created as number, expires: x.expires as number }]);
    }
    return out;
  } catch (e) {
    return refuse(`could not be read: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
