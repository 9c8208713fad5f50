// Turns a shell/exec tool's arguments ({command} or {argv}) into the argv that is both checked and run.
import { z } from 'zod';

export const toolArgsSchema = z.object({
  command: z.string().min(1).max(100_000).optional(),
  argv: z.array(z.string().max(100_000)).min(1).max(4096).optional(),
  workflow_plan: z.unknown().optional(),
  tool_workflow: z.unknown().optional(),
  workflow_step: z.string().max(64).optional(),
  agent_id: z.string().max(128).optional(),
  timeout_ms: z.number().int().min(1).max(3_600_000).optional(),
});
export type ToolArgs = z.infer<typeof toolArgsSchema>;

/** Words made only of these characters mean the same to a shell and to a plain split: no quoting, expansion or operators. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./\- \t]+$/;

/**
 * `argv` runs as given. A `command` made of plain words runs as those words, with no shell; anything else
 * runs as `/bin/sh -c COMMAND` and is checked as exactly that argv, so what the policy and the plan see is
 * always what runs (a plan cannot approve `git status` and get `git status; rm -rf ~`).
 */
export function toolArgv(args: Pick<ToolArgs, 'command' | 'argv'>): { argv: string[] } | { error: string } {
  if (args.argv && args.command !== undefined) return { error: 'give either "command" or "argv", not both' };
  if (args.argv) return { argv: [...args.argv] };
  if (args.command === undefined) return { error: 'give "command" (a string) or "argv" (a list of strings)' };
  const c = args.command.trim();
  if (PLAIN.test(c)) {
    const words = c.split(/[ \t]+/).filter(Boolean);
    if (words.length) return { argv: words };
  }
  return { argv: ['/bin/sh', '-c', args.command] };
}
