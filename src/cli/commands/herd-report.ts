// `castellan herd report`: report an agent's state for a pane (what hook bridges do, for scripts).
import { AGENT_SOURCES, AGENT_STATES } from '../../core/types.js';
import { intArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'herd report',
  usage: 'castellan herd report --pane ID --agent NAME --state STATE [--source hook|cli|api] [--message TEXT] [--seq N]',
  summary: 'Report the agent state of a pane; --source hook makes it outrank screen heuristics until reset.',
  options: { pane: { type: 'string' }, agent: { type: 'string' }, state: { type: 'string' }, source: { type: 'string' }, message: { type: 'string' }, seq: { type: 'string' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const agent = String(values.agent ?? '').trim();
    if (!agent) throw new UsageError('--agent is required');
    const state = String(values.state ?? '');
    if (!(AGENT_STATES as readonly string[]).includes(state)) throw new UsageError(`--state must be one of ${AGENT_STATES.join(', ')}`);
    const source = String(values.source ?? 'cli');
    if (!(AGENT_SOURCES as readonly string[]).includes(source)) throw new UsageError(`--source must be one of ${AGENT_SOURCES.join(', ')}`);
    const api = await ctx.connect();
    try {
      const r = await api.request<{ state: string; ignored?: string }>('pane.report_agent', {
        pane_id: pane,
        agent,
        state,
        source,
        ...(values.message !== undefined ? { message: String(values.message) } : {}),
        ...(values.seq !== undefined ? { seq: intArg(values.seq, 'seq', 0, Number.MAX_SAFE_INTEGER) } : {}),
      }, { timeoutMs: 5000 });
      if (values.json) ctx.out(JSON.stringify(r));
      else if (r.ignored) ctx.out(`${pane}: ignored (${r.ignored}); state is ${r.state}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
