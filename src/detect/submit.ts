// Whether an Enter typed into an idle agent pane submits a prompt: the turn's ground-truth start, seen by the server itself.
//
// Agents draw their spinner 50-1100 ms after the Enter that starts a turn (Claude's first prompt of a session is the
// slowest), and with hooks the prompt hook's bridge process takes ~80 ms more. The Enter itself is known at once.
// It starts a turn only when the input box holds text the user typed, which the agent sends to the model:
// - the pane is idle or done (a dialog takes Enter as an answer, a running turn queues it);
// - the key is a bare Enter ("\r"), not text with a newline in a paste or a burst of typing;
// - the input box shows text, and not the text it held when the turn ended (a placeholder such as Codex's "Ask
//   Codex to do anything", a prompt left there): only typing changes it;
// - no `skip` pattern of the agent's `[submit]` matches: a slash command, a shell escape, a completion being picked.
// The detector then reads `working` while the agent catches up (SUBMIT_WINDOW_MS at most, ended by the first
// working or blocked frame); src/detect/detector.ts holds that window.
//
// An Enter at a permission dialog whose selected option approves (`[submit] approve`: Claude's "❯ 1. Yes", Gemini's
// "● 1. Allow once") starts the tool the same way: the agent erases its dialog 100-300 ms later, and with hooks no
// hook reports an approval before the tool's own. Only once the dialog has been up for DIALOG_SETTLED_MS: Claude
// ignores an Enter sent the instant its dialog opens (badge-lab waits 1.5 s), and a person reads a dialog first.
// While the dialog is still drawn after it, the turn is already working; the first working frame ends the window.
import { approvalSelected, inputText, type CompiledRuleSet, type DetectSnapshot } from './engine.js';
import type { DetectState } from './rules-schema.js';

/** How long an agent may take to show a turn it was sent (Claude's first prompt under load: 1.1 s). */
export const SUBMIT_WINDOW_MS = 3000;

/** Whether typed bytes could start a turn at all: a bare Enter. The server asks before it reads the screen for one. */
export const isSubmitKey = (data: string): boolean => data === '\r';

/** A dialog up for less than this may not take an Enter yet (Claude): an approval is read only after it. */
export const DIALOG_SETTLED_MS = 1000;

export type Submission = 'prompt' | 'approve';

/** What an Enter (`data`) typed now starts: a prompt, a tool's approval, or nothing the screen does not show itself. */
export function submission(set: CompiledRuleSet, snap: DetectSnapshot, data: string, state: { state: DetectState; since: number } | undefined, restInput: string | undefined, now: number): Submission | undefined {
  if (!isSubmitKey(data) || !state) return undefined;
  if (state.state === 'blocked') return now - state.since >= DIALOG_SETTLED_MS && approvalSelected(set, snap) ? 'approve' : undefined;
  return submittedPrompt(set, snap, data, state.state, restInput) === undefined ? undefined : 'prompt';
}

/** The typed text of the input box that an Enter (`data`) would send now, or undefined when it would not start a turn. */
export function submittedPrompt(set: CompiledRuleSet, snap: DetectSnapshot, data: string, state: DetectState | undefined, restInput: string | undefined): string | undefined {
  if (!isSubmitKey(data) || !set.submit || (state !== 'idle' && state !== 'done')) return undefined;
  const text = inputText(set, snap);
  if (!text || text === restInput) return undefined;
  if (set.submit.skip.some((re) => re.test(text))) return undefined;
  return text;
}
