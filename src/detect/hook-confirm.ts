// When a screen reading may end a hook report: hooks and the screen confirm each other, by how sure the screen is.
//
// A hook report outranks the screen, but agents do not report everything: Claude sends no Stop after an
// interrupt or a rejected tool, Gemini nothing on a rejection, pi's permission gate no event at all, and
// Claude nothing between an approval and the end of the tool. What the screen says settles it:
// - fresh: the screen changed to its state *after* the hook spoke (an idle/done only from working/blocked). A definitive marker (a dialog's frame, a
//   spinner, a turn-end line) wins at once; an ambiguous one (an input box) after FRESH_CONFIRM_MS. A new
//   turn (spinner after a hook's done/idle) only from a definitive marker.
// - old: the screen already said so before the hook spoke (a hook that came late, a screen that never
//   moved): only after DEFAULT_HOOK_GRACE_MS of both agreeing to differ, as before; but a late "working"
//   over a definitive turn end with no input to the pane since is corrected at once, and so is a late
//   "working" over a dialog with no key pressed since it was drawn at once.
import type { DetectState } from './rules-schema.js';

export interface ScreenReading {
  state: DetectState;
  plain: boolean;
  definitive: boolean;
  /** The screen's state before this one. */
  prev?: DetectState;
  /** When the screen's state began (the first frame showing it). */
  since: number;
}

export interface HookReport { state: DetectState; at: number }

/** The old rule: a screen that disagreed with a hook from before it spoke waits this long. */
export const DEFAULT_HOOK_GRACE_MS = 5000;
/** An ambiguous plain screen that changed after the hook spoke: a few redraws' worth of certainty. */
export const FRESH_CONFIRM_MS = 300;
/** A dialog drawn before a hook's late "working" arrived (a hook process started earlier, slow to report). */
export const BLOCKED_GRACE_MS = 300;

/** Which hook states a screen state may correct, and whether only when fresh. */
const CORRECTS: Partial<Record<DetectState, Partial<Record<DetectState, 'any' | 'fresh'>>>> = {
  // an interrupt (no Stop), a dialog no hook announced, a turn that ended before its Stop arrived
  working: { blocked: 'any', idle: 'any', done: 'any' },
  // a rejection (Esc: no hook), an approval whose tool runs with no hook until it ends
  blocked: { idle: 'any', done: 'any', working: 'fresh' },
  // a new turn whose prompt hook has not reported yet (a hook process starts in 0.1-0.8 s): a spinner drawn
  // after the hook's last word is the turn; only a definitive (busy) one, and only fresh
  // and a dialog drawn after the hook's last word, which no hook announced (pi's gate fires none)
  done: { working: 'fresh', blocked: 'fresh' },
  idle: { working: 'fresh', blocked: 'fresh' },
};

/**
 * The time from which `reading` overrides `hook`, or undefined when it never does (weak, same state, or a
 * change the screen may not make). castellan's detection loop applies it with `overrideHook`.
 */
export function hookOverrideAt(reading: ScreenReading | undefined, hook: HookReport | undefined, graceMs = DEFAULT_HOOK_GRACE_MS, lastInputAt = Number.NEGATIVE_INFINITY, lateHooks = false): number | undefined {
  if (!reading || !hook || !reading.plain || reading.state === hook.state) return undefined;
  const how = CORRECTS[hook.state]?.[reading.state];
  if (!how) return undefined;
  // Fresh: the screen changed to this state after the hook spoke, and from a turn's state (an interrupt is a
  // spinner or a dialog giving way to the input box); a screen merely drawn late (a shell's first prompt, an
  // agent's start-up) is not news about the turn. A spinner or a dialog is news by itself.
  const fromTurn = reading.state === 'working' || reading.state === 'blocked' || reading.prev === 'working' || reading.prev === 'blocked';
  const fresh = reading.since > hook.at && fromTurn;
  // A dialog no hook announced (pi's gate fires none) needs the user now.
  if (fresh && reading.state === 'working' && (hook.state === 'done' || hook.state === 'idle') && !reading.definitive) return undefined;
  if (fresh) return reading.since + (reading.definitive || reading.state === 'blocked' ? 0 : Math.min(graceMs, FRESH_CONFIRM_MS));
  if (how === 'fresh') return undefined;
  // A hook "working" that arrived after a definitive turn end, with nothing typed into the pane since: a late
  // report of an earlier event (hook processes start in 0.1-0.8 s, Codex's PostToolUse lands after its
  // "Worked for"); a new turn needs a prompt, and a prompt is input.
  // At once: nothing can have started a turn since (pi's extension does not wait for its hooks, whose reports of
  // the last tool land after pi's editor is back; they are dropped, not shown for 300 ms).
  if (hook.state === 'working' && reading.definitive && (reading.state === 'done' || reading.state === 'idle') && lastInputAt < reading.since) {
    return Math.max(reading.since, hook.at);
  }
  // A dialog on screen since before a hook's "working", with no key pressed since it was drawn: the hook reports
  // an event from before the dialog (pi draws its gate 0.1 s after the prompt, its agent_start hook lands 0.2-1 s
  // later); only a key answers a dialog. After a key the hook may be the approval, ahead of the redraw: a grace;
  // unless the agent's hooks land late (pi: its tool_call hook arrived 160 ms after an Esc at its gate, while the
  // dialog still showed, and the badge went blocked → working → done): then the redraw answers it.
  if (reading.state === 'blocked' && hook.state === 'working' && reading.definitive && (lastInputAt < reading.since || lateHooks)) return Math.max(reading.since, hook.at);
  return Math.max(reading.since, hook.at) + (reading.state === 'blocked' ? Math.min(graceMs, BLOCKED_GRACE_MS) : graceMs);
}

/** Whether `reading` overrides `hook` at `now`. */
export function hookOverridden(reading: ScreenReading | undefined, hook: HookReport | undefined, now: number, graceMs = DEFAULT_HOOK_GRACE_MS, lastInputAt?: number, lateHooks = false): boolean {
  const at = hookOverrideAt(reading, hook, graceMs, lastInputAt, lateHooks);
  return at !== undefined && now >= at;
}
