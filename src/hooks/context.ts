// What one governed operation needs: config and trust as seen from its cwd, and where its events go (caller, server, audit log).
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { resolvePaths, type Paths } from '../platform/paths.js';
import type { GovEvent } from './aggregate.js';
import { appendAudit, bound } from './audit.js';
import { NO_UI_REASON, ServerLink, type AskAnswer, type AskQuestion, type EventSink } from './emit.js';
import type { PlannedHook } from './plan.js';
import { loadPolicy } from './policy-load.js';
import { checkCall } from './plan-verify.js';
import type { Governance } from './policy.js';
import { readTrust, type TrustData } from '../config/trust.js';

export interface GovernOptions {
  /** Environment of the caller (default process.env): HOME, CASTELLAN_SOCKET, CASTELLAN_SESSION... and what hooks may inherit. */
  env?: NodeJS.ProcessEnv;
  /** Default: resolved from `env`. */
  paths?: Paths;
  /** An already loaded config (default: loaded from the operation's cwd, so edits and trust apply at once). */
  loaded?: LoadedConfig;
  trust?: TrustData;
  /**
   * The server link for events and prompts. Default: one opened for this call (and closed after it);
   * `null`: stay offline (events only to the caller and the audit log; prompts are denied).
   */
  link?: ServerLink | null;
  /** Replaces the link for events (tests). */
  sink?: EventSink;
  /** Replaces the link for prompts (tests; an embedding UI). */
  ask?: (q: AskQuestion) => Promise<AskAnswer>;
  /** Sees every event as it happens (`--json` output). */
  onEvent?: (e: GovEvent) => void;
  /**
   * `ui` (default): a `prompt` permission asks the user through the castellan UI (ui.ask).
   * `defer`: the decision is returned as `ask`, for a bridge whose agent has its own permission prompt.
   */
  prompt?: 'ui' | 'defer';
  /** How long a prompt waits for the user before it counts as a denial (default 60 s). */
  promptTimeoutMs?: number;
  /** Audit log path; `false` disables it (tests). Default: paths.auditLog. */
  audit?: string | false;
  /** The process the decision is for, as the audit log's `pid` (default this one; the server deciding for a bridge gives the bridge's). */
  auditPid?: number;
  /** The plan verifier (a seam for tests; default checkCall). */
  verifier?: typeof checkCall;
}

export interface Gov {
  env: NodeJS.ProcessEnv;
  paths: Paths;
  loaded: LoadedConfig;
  /** The policy in force (untrusted repository files can only tighten it). */
  governance: Governance;
  hooks: PlannedHook[];
  /** Set when the policy could not be used as written (policy-load.ts): every gated call is denied with it. */
  broken?: string;
  events: GovEvent[];
  emit(e: GovEvent): void;
  ask(q: AskQuestion): Promise<AskAnswer>;
  verifier: typeof checkCall;
  opts: GovernOptions;
  /** Flushes server-bound events (bounded) and closes a link this call opened. */
  done(): Promise<void>;
}

export function prepare(cwd: string, opts: GovernOptions = {}): Gov {
  const env = opts.env ?? process.env;
  const paths = opts.paths ?? resolvePaths({ env });
  const loaded = opts.loaded ?? loadConfig({ cwd, home: paths.home, trust: opts.trust ?? readTrust(paths.trustFile).data });
  const ownLink = opts.link === undefined && !(opts.sink && opts.ask) ? new ServerLink(paths.socket) : undefined;
  const link = opts.link === undefined ? ownLink : opts.link;
  const sink = opts.sink ?? link ?? undefined;
  const auditFile = opts.audit === undefined ? paths.auditLog : opts.audit;
  const events: GovEvent[] = [];
  const policy = loadPolicy(loaded);
  return {
    env,
    paths,
    loaded,
    governance: policy.governance,
    hooks: policy.hooks,
    ...(policy.broken ? { broken: policy.broken } : {}),
    events,
    emit(e) {
      const ev = bound(e) as GovEvent;
      events.push(ev);
      try {
        opts.onEvent?.(ev);
      } catch {
        /* a caller's printer must not change a decision */
      }
      sink?.emit(ev);
      if (auditFile) appendAudit(auditFile, { ...ev, session: paths.session, cwd, ...(opts.auditPid ? { pid: opts.auditPid } : {}) });
    },
    ask: opts.ask ?? (link ? (q) => link.ask(q) : async () => ({ answer: 'deny' as const, reason: NO_UI_REASON })),
    verifier: opts.verifier ?? checkCall,
    opts,
    async done() {
      await sink?.flush();
      ownLink?.close();
    },
  };
}
