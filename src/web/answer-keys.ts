// How each agent's own permission dialog is answered from the keyboard: the keys the web view presses for approve / deny.
//
// Checked against the real agents in agent-lab (their offline mock model asks for a shell call; the keys below were
// written into the pane inside castellan and the tool ran, or did not and the agent went on): the versions are in
// docs/web.md, the check is test/web/answer-keys-lab.test.ts (opt-in, CASTELLAN_LAB=1), the screens the rows rely on are
// test/web/answer-keys.test.ts's fixtures. Every dialog draws "Yes / Allow once" selected first, so Enter approves.
// Escape refuses: most agents then wait for your next instruction (Claude Code: "What should Claude do instead?"),
// opencode ends the turn, pi's gate tells the model "Blocked by user"; Kilo instead opens "Tell Kilo what to do
// differently", a box the message of "deny with a message" is typed into, or Enter confirms with no reason.
export interface AnswerKeys {
  /** Key presses for approve, written `KEY_GAP_MS` apart (a bare Escape with another key right behind it reads as Alt+key). */
  approve: readonly string[];
  /** Key presses for a plain deny. */
  deny: readonly string[];
  /** Key presses before the message of a "deny with a message" is typed (default: `deny`). */
  denyBeforeMessage?: readonly string[];
  /** Before the message of a "deny with a message" is typed, after the keys (the agent's input box must be back). */
  messageDelayMs: number;
}

/** A dialog an agent draws differently: when `match` finds it on the screen, its keys replace the row's. */
export interface DialogVariant extends Partial<AnswerKeys> {
  match: RegExp;
  why: string;
}

export interface AnswerRow extends AnswerKeys {
  /** The first variant whose pattern matches the pane's screen (rows joined by newlines) wins. */
  variants?: readonly DialogVariant[];
}

export const ENTER = '\r';
export const DOWN = '\x1b[B';
export const ESC = '\x1b';
/** Between two key presses of one answer: enough for an agent's input parser to take a lone Escape as Escape. */
export const KEY_GAP_MS = 300;

const ENTER_ESC: AnswerKeys = { approve: [ENTER], deny: [ESC], messageDelayMs: 400 };

export const ANSWER_KEYS: Readonly<Record<string, AnswerRow>> = {
  claude: {
    ...ENTER_ESC,
    variants: [
      {
        // Auto mode without its server-side check asks with "❯ No" selected above "Yes": Enter would refuse.
        match: /❯ No\s*\n\s*Yes\s*(\n|$)/,
        why: 'auto mode fallback: No is selected, Yes is one row down',
        approve: [DOWN, ENTER],
      },
    ],
  },
  codex: ENTER_ESC,
  gemini: ENTER_ESC,
  qwen: ENTER_ESC,
  copilot: ENTER_ESC,
  opencode: ENTER_ESC,
  // Esc opens "Reject permission / Tell Kilo what to do differently": Enter sends the refusal without a reason, or the
  // message is typed there (castellan's prompt path pastes it and presses Enter).
  kilo: { approve: [ENTER], deny: [ESC, ENTER], denyBeforeMessage: [ESC], messageDelayMs: 600 },
  // pi asks nothing by default; a gate extension's "Allow?  → Yes  No" answers the same way.
  pi: ENTER_ESC,
};

/** The keys for this agent's dialog; `screen` (the pane's rows) picks a variant when the agent draws more than one. */
export function answerKeys(agent: string | undefined, screen?: readonly string[]): AnswerKeys {
  const row = (agent && Object.hasOwn(ANSWER_KEYS, agent) ? ANSWER_KEYS[agent] : undefined) ?? ENTER_ESC;
  const { variants, ...keys } = row as AnswerRow;
  const text = screen?.join('\n');
  const hit = text === undefined ? undefined : variants?.find((v) => v.match.test(text));
  if (!hit) return keys;
  const { match: _m, why: _w, ...over } = hit;
  return { ...keys, ...over };
}

/** The key presses of one answer, in order. */
export function answerSequence(keys: AnswerKeys, answer: 'approve' | 'deny', withMessage = false): readonly string[] {
  if (answer === 'approve') return keys.approve;
  return withMessage ? (keys.denyBeforeMessage ?? keys.deny) : keys.deny;
}

/** Writes the key presses `gapMs` apart: the first at once, so a one-key answer is as quick as before. */
export async function pressKeys(write: (data: string) => void | Promise<unknown>, seq: readonly string[], gapMs = KEY_GAP_MS): Promise<void> {
  for (let i = 0; i < seq.length; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
    await write(seq[i]!);
  }
}
