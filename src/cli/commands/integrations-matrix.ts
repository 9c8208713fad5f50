// `castellan integrations matrix`: which castellan stages each harness fires (badge states, governance and per-agent hooks), from the bridges' tables.
import { matrixJson, matrixMarkdown, matrixText } from '../../integrations/matrix.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'integrations matrix',
  usage: 'castellan integrations matrix [--json | --markdown]',
  summary: 'Show the harness parity matrix: which castellan stages Claude Code, Codex, Gemini, pi, the shell plugin and the MCP server fire.',
  details: [
    'Derived from the bridges\' own event tables (src/integrations/{claude,codex,gemini,pi}.ts, installed events only) and the',
    'stage tables of the shell plugin and the MCP server. A "—" means the harness never fires that stage: a hook configured',
    'for it does not run there (castellan config check and the UI say so).',
    'Stages: state = badge reports; SessionStart/SessionEnd/PreToolUse/PostToolUse = governance hooks ([[hooks.hooks]]);',
    'UserPromptSubmit/SubagentStart/SubagentStop/PostSampling = an agent definition\'s own hooks (docs/agents.md).',
  ].join('\n'),
  options: { json: { type: 'boolean' }, markdown: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    if (values.json && values.markdown) throw new UsageError('--json and --markdown exclude each other');
    if (values.json) ctx.out(JSON.stringify(matrixJson(), null, 2));
    else if (values.markdown) ctx.out(matrixMarkdown());
    else ctx.out(matrixText());
    return EXIT.ok;
  },
});
