// A pane as the page names it: `w1:p2` (the session serving the page), `work/w1:p2` (another session on this machine),
// `box:work/w1:p2` (a session on a machine from the profiles). Pure: the grammar only; whether the session or machine
// exists is the herd's question (src/web/wide.ts), asked before anything is sent anywhere.

export interface PaneRef {
  /** A machine from the profiles; undefined: this machine. */
  machine?: string;
  /** A session; undefined: the one serving the page. */
  session?: string;
  /** The pane's id in its own session. */
  pane: string;
}

/** Longer ids are refused before any parsing (64 + 1 + 64 + 1 + 21). */
export const MAX_REF = 160;

// Machine and session names as src/machines/profile.ts and src/platform/paths.ts allow them, but never starting with
// '.' or '-': no '.', '..', no '/', so no name can step out of the socket directory.
const NAME = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}';
const REF_RE = new RegExp(`^(?:(?:(${NAME}):)?(${NAME})/)?(w\\d{1,9}:p\\d{1,9})$`);

export function parsePaneRef(s: unknown): PaneRef | undefined {
  if (typeof s !== 'string' || s.length > MAX_REF) return undefined;
  const m = REF_RE.exec(s);
  if (!m) return undefined;
  // `local` is this machine: it is written without a machine part, so there is one spelling per pane.
  if (m[1] === 'local') return undefined;
  return { ...(m[1] ? { machine: m[1] } : {}), ...(m[2] ? { session: m[2] } : {}), pane: m[3] };
}

export function formatPaneRef(r: PaneRef): string {
  if (!r.session) return r.pane;
  return `${r.machine ? `${r.machine}:` : ''}${r.session}/${r.pane}`;
}

/** The key of the session a ref names (`work`, `box:work`), undefined for the serving session. */
export function peerKey(r: { machine?: string; session?: string }): string | undefined {
  if (!r.session) return undefined;
  return r.machine ? `${r.machine}:${r.session}` : r.session;
}
