// Fake claude/codex/gemini/pi for restore tests: shell scripts on PATH that report a session id through the real hook bridge and print their argv.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../support/temp-env.js';

/** The hook event of each agent that reports a state (and so carries session_id to the server). */
const EVENTS: Record<string, string> = { claude: 'UserPromptSubmit', codex: 'UserPromptSubmit', gemini: 'BeforeAgent', pi: 'agent_start' };

export const FAKE_AGENTS = Object.keys(EVENTS);
export const fakeSessionId = (agent: string) => `${agent}-sess-0001`;

/** Writes the four fakes into `dir` (put it first on PATH). Each prints `FAKE <agent> argv: ...` then waits. */
export function writeFakeAgents(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const agent of FAKE_AGENTS) {
    const payload = JSON.stringify({ session_id: fakeSessionId(agent), prompt: 'hello', hook_event_name: EVENTS[agent] });
    const script = [
      '#!/bin/sh',
      `printf '%s' '${payload}' | '${process.execPath}' '${BIN}' hook ${agent} ${EVENTS[agent]} >/dev/null 2>&1`,
      `echo "FAKE ${agent} argv: $*"`,
      'while :; do sleep 1; done',
      '',
    ].join('\n');
    const file = join(dir, agent);
    writeFileSync(file, script);
    chmodSync(file, 0o755);
  }
}
