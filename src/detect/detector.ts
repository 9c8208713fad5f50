// Per-pane detector: rule matches + recency + debounce over time (injected clock), with no timers of its own.
//
// The engine says what one snapshot looks like; this says what to report. Three things happen here:
// - recency: a `working` rule without `busy = true` (or the fallback for a changing screen) only counts
//   while the screen changed within `recentMs`; after that the pane has settled and reads `idle`
//   (weak). A busy marker (spinner, "esc to interrupt") reads `working` even on a still screen.
// - debounce: a new state is reported once it has held for `holdMs[state]` (blocked: at once), so a
//   spinner frame or a half-drawn redraw never flips the badge.
// - cost: update() runs the engine only on dirty frames; tick() re-uses the last match (no regex) and
//   nextTickAt() says when a tick could change anything (undefined for a settled pane: no timer at all).
import { evaluate, type CompiledRuleSet, type DetectSnapshot, type Match } from './engine.js';
import type { DetectState } from './rules-schema.js';

export interface DetectorTunables {
  /** A screen change within this window is "recent": activity that makes a non-busy rule `working`. */
  recentMs: number;
  /** How long a new state must hold before it is reported. */
  holdMs: Record<DetectState, number>;
}

export const DEFAULT_TUNABLES: Readonly<DetectorTunables> = Object.freeze({
  recentMs: 2000,
  holdMs: Object.freeze({ blocked: 0, working: 300, idle: 800, done: 800, unknown: 1500 }),
});

export interface Reading {
  agent: string;
  state: DetectState;
  /** Rule id; `fallback.changing` / `fallback.still` when no rule matched; `<id>~settled` after recency ran out. */
  rule?: string;
  /** Unmistakable (a plain rule's own state): may correct a stale hook `working` after a while. */
  plain: boolean;
  confidence: 'plain' | 'weak';
  /** Reported because of an explicit busy marker. */
  busy: boolean;
  /** When the current state was first seen (before debounce): how long it has held. */
  since: number;
  /** Time of this reading. */
  at: number;
  /** The reported state differs from the previous reading's (the first reading counts as a change). */
  changed: boolean;
}

export interface UpdateInfo {
  /** The screen (rows or title) differs from the previous update's. Omitted: compared here, by value. */
  changed?: boolean;
  /** The change came from the user, not the program (typing echo, a resize): not the agent's activity. */
  input?: boolean;
}

export interface Detector {
  /** A new snapshot of a dirty pane. Always returns the current reading (check `changed`). */
  update(snap: DetectSnapshot, now: number, info?: UpdateInfo): Reading;
  /** Time passed with no new snapshot: returns a reading only when the reported state changed. */
  tick(now: number): Reading | undefined;
  /** When tick() could change the reading; undefined when nothing is pending (no timer needed). */
  nextTickAt(): number | undefined;
  /** The last reported reading, if any. */
  current(): Reading | undefined;
  /** The rule set in use (swap with setRules when the user's rules reload). */
  readonly rules: CompiledRuleSet;
  setRules(rules: CompiledRuleSet): void;
}

export interface DetectorOptions extends Partial<Omit<DetectorTunables, 'holdMs'>> {
  holdMs?: Partial<Record<DetectState, number>>;
  /** The pane's agent name for readings (default: the rule set's, which is "generic" for unknown agents). */
  agent?: string;
}

interface Candidate {
  state: DetectState;
  rule?: string;
  plain: boolean;
  busy: boolean;
  /** The candidate depends on recency and may change when the recent window runs out. */
  timed: boolean;
}

/** What one match means at `now`, given when the screen last changed. */
export function classify(set: CompiledRuleSet, match: Match | undefined, active: boolean): Candidate {
  if (match) {
    if (match.state === 'working' && !match.busy) {
      return active
        ? { state: 'working', rule: match.rule, plain: false, busy: false, timed: true }
        : { state: 'idle', rule: `${match.rule}~settled`, plain: false, busy: false, timed: false };
    }
    return { state: match.state, rule: match.rule, plain: match.plain, busy: match.busy, timed: false };
  }
  return active
    ? { state: set.fallback.changing, rule: 'fallback.changing', plain: false, busy: false, timed: true }
    : { state: set.fallback.still, rule: 'fallback.still', plain: false, busy: false, timed: false };
}

/** Same rows and title (by value): a redraw that paints the same frame is no activity. */
export function sameScreen(a: DetectSnapshot, b: DetectSnapshot): boolean {
  if (a === b) return true;
  if (a.title !== b.title || a.lines.length !== b.lines.length) return false;
  for (let i = 0; i < a.lines.length; i++) if (a.lines[i] !== b.lines[i]) return false;
  return true;
}

/**
 * Whether a screen reading should end a hook report that never finished (a `working` with no Stop after
 * an interrupt or a rejection): the reading is plain, says blocked/idle/done, and both it and the hook
 * report are older than `graceMs`. castellan's core then applies it with `overrideHook`.
 */
export function staleHookOverride(reading: Reading | undefined, hook: { state: DetectState; at: number } | undefined, now: number, graceMs = DEFAULT_HOOK_GRACE_MS): boolean {
  if (!reading || !hook || !reading.plain || reading.state === hook.state) return false;
  // A hook "working" no Stop ever ended (interrupt), or a "blocked" the user answered with Esc (no hook fires
  // on a rejection): a plain screen that has said otherwise for a while wins.
  const targets: Partial<Record<DetectState, DetectState[]>> = { working: ['blocked', 'idle', 'done'], blocked: ['idle', 'done'] };
  if (!targets[hook.state]?.includes(reading.state)) return false;
  // A dialog on screen (blocked) is unmistakable and needs the user now: it takes over a hook "working" after a
  // short grace (pi's permission gate fires no hook at all); idle/done wait the full grace.
  const grace = hook.state === 'working' && reading.state === 'blocked' ? Math.min(graceMs, BLOCKED_GRACE_MS) : graceMs;
  return now - reading.since >= grace && now - hook.at >= grace;
}

export const DEFAULT_HOOK_GRACE_MS = 5000;
export const BLOCKED_GRACE_MS = 1000;

export function createDetector(initial: CompiledRuleSet, opts: DetectorOptions = {}): Detector {
  const tun: DetectorTunables = {
    recentMs: opts.recentMs ?? DEFAULT_TUNABLES.recentMs,
    holdMs: { ...DEFAULT_TUNABLES.holdMs, ...opts.holdMs },
  };
  let set = initial;
  let lastMatch: Match | undefined;
  let seen = false; // at least one snapshot
  let lastActivity = Number.NEGATIVE_INFINITY;
  let reported: Reading | undefined;
  let pending: { cand: Candidate; since: number } | undefined;
  let timed = false;
  let prevSnap: DetectSnapshot | undefined;

  const active = (now: number) => now - lastActivity < tun.recentMs;

  function toReading(c: Candidate, since: number, now: number, changed: boolean): Reading {
    return {
      agent: opts.agent ?? set.agent, state: c.state, rule: c.rule, plain: c.plain, confidence: c.plain ? 'plain' : 'weak',
      busy: c.busy, since, at: now, changed,
    };
  }

  /** Feeds the candidate into the debounce; returns the reading and whether the state changed. */
  function step(now: number): Reading {
    const cand = classify(set, lastMatch, active(now));
    timed = cand.timed;
    if (reported && cand.state === reported.state) {
      pending = undefined;
      reported = toReading(cand, reported.since, now, false); // details (rule, plain) may refresh
      return reported;
    }
    if (!pending || pending.cand.state !== cand.state) pending = { cand, since: now };
    else pending.cand = cand;
    if (now - pending.since >= tun.holdMs[cand.state]) {
      reported = toReading(cand, pending.since, now, true);
      pending = undefined;
      return reported;
    }
    return reported ? { ...reported, at: now, changed: false } : toReading({ ...cand, state: 'unknown', rule: undefined, plain: false, busy: false }, now, now, false);
  }

  return {
    get rules() { return set; },
    setRules(next) { set = next; },
    update(snap, now, info = {}) {
      const changed = info.changed ?? (!prevSnap || !sameScreen(prevSnap, snap));
      prevSnap = snap;
      if (changed && !info.input) lastActivity = now;
      seen = true;
      lastMatch = evaluate(set, snap);
      return step(now);
    },
    tick(now) {
      if (!seen) return undefined;
      const before = reported?.state;
      const r = step(now);
      return r.changed && r.state !== before ? r : undefined;
    },
    nextTickAt() {
      if (!seen) return undefined;
      const times: number[] = [];
      if (pending) times.push(pending.since + tun.holdMs[pending.cand.state]);
      if (timed) times.push(lastActivity + tun.recentMs);
      return times.length ? Math.min(...times) : undefined;
    },
    current() { return reported; },
  };
}
