// Host and Origin checks for every web request and WebSocket upgrade: DNS rebinding and cross-site requests fail closed.

/** Names that always mean this machine: a rebinding attack carries its own domain name in Host, never one of these. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const HOST_RE = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

export interface GuardConfig {
  /** The address the server listens on (a name the page may be reached by, unless it is a wildcard). */
  bind: string;
  /** Extra names the page is reached by (`[web] hosts`: a Tailscale name, a LAN name). */
  hosts: readonly string[];
}

/** The Host header's name part, lowercased, or undefined when it is missing or malformed. */
export function hostName(host: string | undefined): string | undefined {
  if (typeof host !== 'string' || host.length === 0 || host.length > 300) return undefined;
  const m = HOST_RE.exec(host.toLowerCase());
  return m ? m[1] : undefined;
}

/**
 * Whether a request's Host names this server. Loopback names pass on any port (`ssh -L 9000:localhost:7681` keeps
 * Host `localhost:9000`); any other name must be the bind address or one the user listed.
 */
export function hostAllowed(host: string | undefined, cfg: GuardConfig): boolean {
  const name = hostName(host);
  if (!name) return false;
  if (LOOPBACK_NAMES.has(name)) return true;
  const bind = cfg.bind.toLowerCase();
  if (name === bind && bind !== '0.0.0.0' && bind !== '::' && bind !== '[::]') return true;
  return cfg.hosts.some((h) => h.toLowerCase() === name);
}

/**
 * Whether a request's Origin is the page's own (same host and port as the Host it was sent to). `required`: a
 * request that acts (POST, WebSocket upgrade) must carry one; a plain page GET may come without.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, required: boolean): boolean {
  if (origin === undefined) return !required;
  if (typeof host !== 'string' || origin.length > 400) return false;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (u.username || u.password || (u.pathname !== '/' && u.pathname !== '')) return false;
  return u.host === host.toLowerCase();
}

/** Headers every answer carries: nothing inline, nothing from elsewhere, never framed, no referrer leaking a token. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};
