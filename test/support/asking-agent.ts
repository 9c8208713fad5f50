// A shell "agent" for web tests: asks permission for a tool through Claude's hooks, waits for the answer, then finishes its turn.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type TempEnv } from './temp-env.js';

/** A shell "agent" that asks permission for a tool through Claude's hooks, waits for the answer, then finishes its turn. */
export function fakeAgent(env: TempEnv): string {
  const path = join(env.home, 'asking-agent.sh');
  const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} hook claude`;
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo '{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}' | ${hook} SessionStart`,
      'echo "agent ready"',
      'while IFS= read -r prompt; do',
      `  printf '{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"%s"}' "$prompt" | ${hook} UserPromptSubmit`,
      '  echo "working on: $prompt"',
      `  echo '{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make test"}}' | ${hook} PermissionRequest`,
      '  echo "Allow Bash(make test)?  1. Yes   2. No"',
      '  IFS= read -r answer',
      '  if [ -z "$answer" ]; then echo "approved; running make test"; else printf "refused: %s\\n" "$answer" | tr -d "\\033"; fi',
      `  echo '{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"tests pass"}' | ${hook} Stop`,
      '  echo "turn finished"',
      'done',
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  return path;
}

