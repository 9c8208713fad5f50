// `castellan agent list`: the agent definitions visible from here (project and user), whether each may start, and problems found.
import { formatDiagnostic } from '../../config/load.js';
import { stripControls } from '../../core/text.js';
import { agentSummary, loadAgents, type CommandSource } from '../../config/agents.js';
import { readTrust } from '../../config/trust.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

/** The program and, unless the file wrote it, where it came from (`claude ([agents] default)`). */
function runs(command: string, from: CommandSource): string {
  if (!command) return '-';
  const shown = stripControls(command, ' ').slice(0, 40);
  return from === 'command' ? shown : `${shown} (${FROM[from]})`;
}
const FROM: Record<CommandSource, string> = { command: 'command', agent: 'agent:', default: '[agents] default', path: 'first on PATH', none: '-' };

const STATUS = { trusted: 'ok', user: 'ok', untrusted: 'UNTRUSTED', changed: 'CHANGED' } as const;

export default defineCommand({
  name: 'agent list',
  usage: 'castellan agent list [--json]',
  summary: 'List agent definitions: .castellan/agents/*.md (project, needs `castellan trust`) and ~/.castellan/agents/*.md (user).',
  details: [
    'Each definition is a Markdown file whose YAML frontmatter names it (name, description, command, hooks) and whose body is',
    'the agent\'s instructions. Without a `command` it runs its `agent`, else `[agents] default`, else the first of claude,',
    'codex, gemini, pi on PATH (RUNS says which). Project definitions are listed even when not trusted, with the reason they cannot start.',
    'Problems (bad YAML, a missing command, an invalid hooks block) are printed with file and field; see docs/agents.md.',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const { data, problem } = readTrust(ctx.paths.trustFile);
    const { agents, diagnostics } = loadAgents({ cwd: ctx.cwd, home: ctx.paths.home, trust: data });
    if (values.json) {
      ctx.out(
        JSON.stringify(
          {
            agents: agents.map(agentSummary),
            diagnostics,
            ...(problem ? { trust_problem: problem } : {}),
          },
          null,
          2,
        ),
      );
      return EXIT.ok;
    }
    if (problem) ctx.err(`castellan agent list: ${problem}`);
    if (!agents.length) ctx.out('no agent definitions (put Markdown files in .castellan/agents/ or ~/.castellan/agents/)');
    else {
      const clean = (s: string) => stripControls(s, ' ');
      ctx.out(
        table([
          ['NAME', 'SOURCE', 'STATUS', 'RUNS', 'HOOKS', 'DESCRIPTION'],
          ...agents.map((a) => [
            a.name,
            a.source,
            a.command ? STATUS[a.trust] : 'NO PROGRAM',
            runs(a.command, a.commandFrom),
            a.hooksValid ? Object.entries(a.hooks).map(([k, v]) => `${k}:${v?.length ?? 0}`).join(',') || '-' : 'INVALID',
            clean(a.description).slice(0, 80),
          ]),
        ]),
      );
      for (const a of agents) if (a.reason) ctx.err(`${a.name}: ${a.reason}`);
    }
    for (const d of diagnostics) ctx.err(formatDiagnostic(d));
    return EXIT.ok;
  },
});
