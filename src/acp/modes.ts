// Which agent modes and command-line flags make an ACP agent run tools without asking (so castellan never sees the call in time).
import { ACP_TOOLS } from './tool-call.js';

/** A mode that asks for nothing skips every tool castellan names. */
export { ACP_TOOLS };
const EDITS = ['edit', 'delete', 'move'];

/** Copilot CLI names its modes by URI (`https://agentclientprotocol.com/protocol/session-modes#agent`): the fragment is the mode. */
const norm = (s: string) => {
  const hash = s.lastIndexOf('#');
  return (hash >= 0 && /^[a-z][a-z0-9+.-]*:/i.test(s) ? s.slice(hash + 1) : s).toLowerCase().replace(/[^a-z0-9]/g, '');
};

/**
 * The modes agents ship, as data. ACP has no field saying "this mode skips the permission step", so the ids and names are
 * matched: Gemini (default, autoEdit, yolo, plan), Claude Code (default, acceptEdits, plan, bypassPermissions, dontAsk),
 * Codex (read-only, auto, full-access), Qwen (plan, default, auto-edit, auto, yolo), Copilot CLI (…#agent, …#plan,
 * …#autopilot), opencode (build, plan), Kilo (code, ask, debug, plan, orchestrator). First match wins. opencode's `build`
 * and Kilo's `code` / `debug` "execute tools based on configured permissions": they ask for what the agent's own
 * permission config says to ask, and a call they run unasked is still caught (castellan cancels the turn). Kilo's
 * `orchestrator` delegates to other agents: not known, so it counts as asking for nothing (fail closed).
 */
const TABLE: Array<{ match: RegExp; skips: readonly string[] }> = [
  { match: /yolo|bypass|fullaccess|dontask|dangerous|skip|noconfirm|autoapprove|unrestricted|never/, skips: ACP_TOOLS },
  { match: /autoedit|acceptedit/, skips: EDITS },
  { match: /^(default|ask|plan|readonly|manual|normal|prompt|untrusted|onrequest|agent|build|code|debug)$/, skips: [] },
  // Codex's "auto" runs commands in the workspace unasked.
  { match: /^auto/, skips: ACP_TOOLS },
];

export interface ModeVerdict {
  /** The tools this mode runs without asking (empty: it asks as castellan needs). */
  skips: readonly string[];
  /** castellan does not know the mode: treated as asking for nothing (what gates a tool fails closed). */
  unknown: boolean;
}

/** Classifies a mode by its id and, when known, its name and description (the strictest reading wins). */
export function classifyMode(id: string, name?: string, description?: string): ModeVerdict {
  let best: readonly string[] | undefined;
  for (const s of [id, name]) {
    if (!s) continue;
    const hit = TABLE.find((t) => t.match.test(norm(s)));
    if (hit && (!best || hit.skips.length > best.length)) best = hit.skips;
  }
  // "Auto-approves all tools" in a description is as plain as it gets (Gemini's YOLO says so).
  if (description && /auto-?approv|without (asking|approval|confirmation)|never ask/i.test(description)) {
    const edits = /edit/i.test(description) && !/all/i.test(description);
    const d = edits ? EDITS : ACP_TOOLS;
    if (!best || d.length > best.length) best = d;
  }
  return best ? { skips: best, unknown: false } : { skips: ACP_TOOLS, unknown: true };
}

export interface FlagHit {
  flag: string;
  skips: readonly string[];
}

const VALUE_FLAGS = /^--(approval-mode|permission-mode)$/;

/**
 * Flags on the agent's command line that start it asking for nothing: Gemini/Qwen `--yolo`, `-y`,
 * `--approval-mode=yolo|auto_edit`; Claude `--dangerously-skip-permissions`, `--permission-mode X`; Codex
 * `--full-auto`, `--dangerously-bypass-approvals-and-sandbox`, `-c approval_policy=never`; Copilot CLI `--allow-all-tools`,
 * `--allow-all`, `--autopilot`.
 */
export function unaskedFlags(command: readonly string[]): FlagHit[] {
  const prog = (command[0] ?? '').split('/').pop() ?? '';
  const hits: FlagHit[] = [];
  const args = command.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (/^--(yolo|dangerously-[a-z-]+|full-auto)(=.*)?$/.test(a) && !/=(false|0)$/i.test(a)) hits.push({ flag: a, skips: ACP_TOOLS });
    // Copilot CLI: --allow-all-tools / --allow-all ("without confirmation"), --autopilot (runs with allow-all).
    else if (/^--(allow-all-tools|allow-all|autopilot)$/.test(a) && /^copilot/.test(prog)) hits.push({ flag: a, skips: ACP_TOOLS });
    else if (a === '-y' && /^(gemini|qwen)/.test(prog)) hits.push({ flag: a, skips: ACP_TOOLS });
    else if (/approval[_-]?policy\s*=\s*"?never/i.test(a)) hits.push({ flag: a, skips: ACP_TOOLS });
    else {
      const eq = /^(--[a-z-]+)=(.*)$/.exec(a);
      const [name, value] = eq ? [eq[1], eq[2]] : [a, args[i + 1]];
      if (VALUE_FLAGS.test(name) && value !== undefined) {
        const v = classifyMode(value);
        if (v.skips.length) hits.push({ flag: eq ? a : `${a} ${value}`, skips: v.skips });
      }
    }
  }
  return hits;
}
