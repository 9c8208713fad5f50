// How each agent's own permission dialog is answered from the keyboard: the keys the web view presses for approve / deny.
//
// Every agent castellan knows draws its dialog with "Yes / allow once" selected first (see the `[submit] approve`
// patterns in src/detect/rules/*.toml), so Enter approves; Escape dismisses the dialog as a refusal (Claude Code then
// waits for the user to say what to do instead, which is where "deny with a message" types its text).
export interface AnswerKeys {
  approve: string;
  deny: string;
  /** Before the message of a "deny with a message" is typed, after the deny key (the agent's input box must be back). */
  messageDelayMs: number;
}

const DEFAULT: AnswerKeys = { approve: '\r', deny: '\x1b', messageDelayMs: 400 };

export const ANSWER_KEYS: Readonly<Record<string, AnswerKeys>> = {
  claude: DEFAULT,
  gemini: DEFAULT,
  qwen: DEFAULT,
  codex: DEFAULT,
  copilot: DEFAULT,
  opencode: DEFAULT,
  kilo: DEFAULT,
  pi: DEFAULT,
};

export function answerKeys(agent: string | undefined): AnswerKeys {
  return (agent && Object.hasOwn(ANSWER_KEYS, agent) ? ANSWER_KEYS[agent] : undefined) ?? DEFAULT;
}
