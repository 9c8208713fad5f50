// Per-pane detector: rule matches + recency + debounce over time (injected clock), with no timers of its own.
//
// The engine says what one snapshot looks like; this says what to report. Four things happen here:
// - recency: a `working` rule without `busy = true` (or the fallback for a changing screen) only counts
//   while the screen changed within `recentMs`; after that the pane has settled and reads `idle`
//   (weak). A busy marker (spinner, "esc to interrupt") reads `working` even on a still screen.
// - debounce, by how sure a marker is: a definitive one (a dialog's frame, a busy marker, a rule with
//   `hold_ms = 0` such as a turn-end summary line) is reported at once; an ambiguous one (an input box
//   with no spinner, which a half-drawn redraw or a pause between two spinner frames also shows) must hold.
// - rhythm: that hold follows the agent's own redraw cadence. While a turn runs, its spinner repaints every
//   ~50-150 ms; a still screen for a few of those beats means the turn ended, where a fixed timer would have
//   to assume the slowest agent on the busiest machine. The hold is clamped to [minSettleMs, holdMs[state]].
// - cost: update() runs the engine only on dirty frames; tick() re-uses the last match (no regex) and
//   nextTickAt() says when a tick could change anything (undefined for a settled pane: no timer at all).
import { evaluate, inputText, type CompiledRuleSet, type DetectSnapshot, type Match } from './engine.js';
import type { DetectState } from './rules-schema.js';
import { preferMatch } from './generic-signals.js';
import { DEFAULT_HOOK_GRACE_MS, hookOverridden, type HookReport } from './hook-confirm.js';
import { SUBMIT_WINDOW_MS, submission, type Submission } from './submit.js';

export interface DetectorTunables {
  /** A screen change within this window is "recent": activity that makes a non-busy rule `working`. */
  recentMs: number;
  /** How long a new state must hold before it is reported; for idle/done the upper bound of the rhythm hold. */
  holdMs: Record<DetectState, number>;
  /** Hold of a busy marker (spinner, "esc to interrupt"): it exists only while a turn runs, but an agent may
   *  repaint it for one frame on its way out (Codex redraws its status line for ~30 ms after an Esc at a dialog). */
  busyHoldMs: number;
  /** idle/done hold = clamp(rhythmFactor x the agent's redraw cadence, minSettleMs, holdMs[state]). */
  rhythmFactor: number;
  minSettleMs: number;
  /** idle/done hold while no cadence has been seen yet (a pane's first turn). */
  defaultSettleMs: number;
}

export const DEFAULT_TUNABLES: Readonly<DetectorTunables> = Object.freeze({
  recentMs: 2000,
  holdMs: Object.freeze({ blocked: 0, working: 300, idle: 800, done: 800, unknown: 1500 }),
  busyHoldMs: 80,
  rhythmFactor: 2,
  minSettleMs: 150,
  defaultSettleMs: 400,
});

/** Gaps between repaints longer than this are pauses, not the agent's rhythm. */
const MAX_BEAT_MS = 1000;
/** How many recent repaint gaps make up the rhythm. */
const BEATS = 8;

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
  /** A definitive marker (a dialog, a plain busy marker, a rule with `hold_ms = 0`): may correct a hook report at once. */
  definitive: boolean;
  /** The state reported before this one (a turn's end is idle after working: an interrupt, not a fresh prompt). */
  prev?: DetectState;
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
  /** Input typed into the pane (`snap`: the screen as it was typed into). An Enter that submits a prompt reads
   *  `working` at once (src/detect/submit.ts); returns that reading, or undefined when the input means nothing here. */
  input(data: string, snap: DetectSnapshot, now: number): Reading | undefined;
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
  /** The generic reader (generic-signals.ts): a match from what the program told the terminal, weighed against the rules'. */
  signals?: (snap: DetectSnapshot) => Match | undefined;
}

interface Candidate {
  state: DetectState;
  rule?: string;
  plain: boolean;
  busy: boolean;
  /** The candidate depends on recency and may change when the recent window runs out. */
  timed: boolean;
  /** The matched rule's own hold (`hold_ms`), if any. */
  holdMs?: number;
  /** The matched rule says its state is sure once held (`definitive`). */
  definitive?: boolean;
}

/** What one match means at `now`, given when the screen last changed. */
export function classify(set: CompiledRuleSet, match: Match | undefined, active: boolean): Candidate {
  if (match) {
    if (match.state === 'working' && !match.busy) {
      return active
        ? { state: 'working', rule: match.rule, plain: false, busy: false, timed: true }
        : { state: 'idle', rule: `${match.rule}~settled`, plain: false, busy: false, timed: false };
    }
    return { state: match.state, rule: match.rule, plain: match.plain, busy: match.busy, timed: false, holdMs: match.holdMs, definitive: match.definitive };
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
 * Whether a screen reading should end a hook report that never finished (a `working` with no Stop after an
 * interrupt, a `blocked` answered with Esc): src/detect/hook-confirm.ts decides; kept here for callers of the
 * detector's API. castellan's core then applies it with `overrideHook`.
 */
export function staleHookOverride(reading: Reading | undefined, hook: HookReport | undefined, now: number, graceMs = DEFAULT_HOOK_GRACE_MS): boolean {
  return hookOverridden(reading, hook, now, graceMs);
}

export { DEFAULT_HOOK_GRACE_MS, BLOCKED_GRACE_MS, FRESH_CONFIRM_MS } from './hook-confirm.js';

export function createDetector(initial: CompiledRuleSet, opts: DetectorOptions = {}): Detector {
  const tun: DetectorTunables = {
    ...DEFAULT_TUNABLES,
    ...Object.fromEntries(Object.entries(opts).filter(([k, v]) => k !== 'agent' && k !== 'holdMs' && k !== 'signals' && v !== undefined)),
    holdMs: { ...DEFAULT_TUNABLES.holdMs, ...opts.holdMs },
  };
  let set = initial;
  let lastMatch: Match | undefined;
  let seen = false; // at least one snapshot
  let lastActivity = Number.NEGATIVE_INFINITY;
  let reported: Reading | undefined;
  let pending: { cand: Candidate; since: number; hold: number; definitive: boolean } | undefined;
  let timed = false;
  let prevSnap: DetectSnapshot | undefined;
  const beats: number[] = []; // recent gaps between repaints while a turn ran
  let restInput: string | undefined; // the input box's text when the pane came to rest (a placeholder, a prompt left there)
  let submitted: { at: number; kind: Submission } | undefined; // an Enter sent a prompt or approved: working until the agent shows it

  const active = (now: number) => now - lastActivity < tun.recentMs;

  /** The agent's redraw cadence: a high quantile of recent repaint gaps (one stall does not stretch it). */
  function cadence(): number | undefined {
    if (beats.length < 3) return undefined;
    const s = [...beats].sort((a, b) => a - b);
    return s[Math.floor(0.75 * (s.length - 1))];
  }

  /** How long a candidate must hold; 0 = definitive. */
  function holdFor(c: Candidate): number {
    if (c.holdMs !== undefined) return c.holdMs;
    if (c.state === 'working' && c.busy) return tun.busyHoldMs;
    if (c.state === 'idle' || c.state === 'done') {
      const beat = cadence();
      const hold = beat === undefined ? tun.defaultSettleMs : tun.rhythmFactor * beat;
      return Math.round(Math.min(tun.holdMs[c.state], Math.max(tun.minSettleMs, hold)));
    }
    return tun.holdMs[c.state];
  }

  /** Markers that exist only in their state: a rule's `hold_ms = 0` or `definitive`, a plain dialog, a plain busy marker. */
  const isDefinitive = (c: Candidate) => c.holdMs === 0 || c.definitive === true || (c.plain && (c.busy || c.state === 'blocked'));

  function toReading(c: Candidate, since: number, now: number, changed: boolean, definitive: boolean): Reading {
    const prev = changed ? reported?.state : reported?.prev;
    return {
      agent: opts.agent ?? set.agent, state: c.state, rule: c.rule, plain: c.plain, confidence: c.plain ? 'plain' : 'weak',
      busy: c.busy, definitive, ...(prev ? { prev } : {}), since, at: now, changed,
    };
  }

  /**
   * While a submitted prompt waits for the agent to show its turn, the screen still shows the idle input box (or the
   * last turn's end, or a half-drawn frame): the turn has started all the same. The first working or blocked frame
   * is the agent catching up, and the window ends.
   */
  function whileSubmitted(c: Candidate, now: number): Candidate {
    if (!submitted) return c;
    // After an approval the dialog stays drawn until the agent erases it: still the same dialog, not a new one. Once
    // it is gone the screen speaks again: a tool that ran too fast for a working frame must still come to rest (pi).
    const erased = submitted.kind === 'approve' && c.state !== 'blocked';
    if (now - submitted.at >= SUBMIT_WINDOW_MS || c.state === 'working' || erased || (c.state === 'blocked' && submitted.kind === 'prompt')) {
      submitted = undefined;
      return c;
    }
    return { state: 'working', rule: submitted.kind === 'prompt' ? 'submitted' : 'enter-approved', plain: true, busy: false, timed: false, holdMs: 0 };
  }

  /** Feeds the candidate into the debounce; returns the reading and whether the state changed. */
  function step(now: number): Reading {
    const cand = whileSubmitted(classify(set, lastMatch, active(now)), now);
    timed = cand.timed;
    if (reported && cand.state === reported.state) {
      pending = undefined;
      // details (rule, plain) may refresh; a definitive marker seen later makes the reading definitive
      reported = toReading(cand, reported.since, now, false, reported.definitive || isDefinitive(cand));
      return reported;
    }
    if (!pending || pending.cand.state !== cand.state) pending = { cand, since: now, hold: holdFor(cand), definitive: isDefinitive(cand) };
    else {
      pending.cand = cand;
      // the same state, now from a surer marker (an input box, then the turn-end line above it): the shorter hold
      pending.hold = Math.min(pending.hold, holdFor(cand));
      pending.definitive ||= isDefinitive(cand);
    }
    if (now - pending.since >= pending.hold) {
      reported = toReading(cand, pending.since, now, true, pending.definitive);
      pending = undefined;
      if (reported.state === 'idle' || reported.state === 'done') restInput = prevSnap && inputText(set, prevSnap);
      return reported;
    }
    return reported ? { ...reported, at: now, changed: false } : toReading({ ...cand, state: 'unknown', rule: undefined, plain: false, busy: false }, now, now, false, false);
  }

  return {
    get rules() { return set; },
    setRules(next) { set = next; },
    update(snap, now, info = {}) {
      const changed = info.changed ?? (!prevSnap || !sameScreen(prevSnap, snap));
      prevSnap = snap;
      if (changed && !info.input) {
        const gap = now - lastActivity;
        if (reported?.state === 'working' && gap <= MAX_BEAT_MS) {
          beats.push(gap);
          if (beats.length > BEATS) beats.shift();
        }
        lastActivity = now;
      }
      seen = true;
      lastMatch = opts.signals ? preferMatch(evaluate(set, snap), opts.signals(snap)) : evaluate(set, snap);
      const r = step(now);
      // the box drawn a frame after the rest began: what it holds then is still the agent's, not typed
      if (restInput === undefined && (r.state === 'idle' || r.state === 'done') && !info.input) restInput = inputText(set, snap);
      return r;
    },
    input(data, snap, now) {
      const kind = seen ? submission(set, snap, data, reported, restInput, now) : undefined;
      if (!kind) return undefined;
      submitted = { at: now, kind };
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
      if (pending) times.push(pending.since + pending.hold);
      if (timed) times.push(lastActivity + tun.recentMs);
      if (submitted) times.push(submitted.at + SUBMIT_WINDOW_MS);
      return times.length ? Math.min(...times) : undefined;
    },
    current() { return reported; },
  };
}
