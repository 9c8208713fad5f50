// `castellan herd explain`: why a live pane's badge shows what it shows.
import { paneArg } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

interface Explained {
  pane_id: string;
  badge: { state: string; agent?: string; source?: string; since: number; message?: string };
  hook: { state: string; agent: string; at: number; integration?: boolean } | null;
  identification: { agent?: string; source: string; why?: string } | null;
  reading: { state: string; rule?: string; confidence: string; busy: boolean } | null;
  matches: Array<{ rule: string; state: string; priority: number; plain: boolean; busy: boolean }>;
  title: string;
  bottom: string[];
}

export default defineCommand({
  name: 'herd explain',
  usage: 'castellan herd explain --pane ID [--json]',
  summary: 'Show how a pane\'s agent state was decided: hook report, detection reading, matching rules, agent identity.',
  options: { pane: { type: 'string' }, json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const pane = paneArg(ctx, values.pane, { required: true })!;
    const api = await ctx.connect();
    try {
      const x = await api.request<Explained>('pane.explain', { pane_id: pane }, { timeoutMs: 5000 });
      if (values.json) {
        ctx.out(JSON.stringify(x, null, 2));
        return EXIT.ok;
      }
      const age = (t: number) => `${Math.round((Date.now() - t) / 100) / 10}s ago`;
      ctx.out(`${pane}: ${x.badge.agent ?? '(no agent)'} ${x.badge.state} (from ${x.badge.source ?? 'nothing yet'}, since ${age(x.badge.since)})`);
      if (x.badge.message) ctx.out(`  message:   ${JSON.stringify(x.badge.message)}`);
      ctx.out(`  agent:     ${x.identification?.agent ?? 'none'} (${x.identification?.source ?? '-'}${x.identification?.why ? ': ' + x.identification.why : ''})`);
      ctx.out(`  hook:      ${x.hook ? `${x.hook.agent} ${x.hook.state}, ${age(x.hook.at)} — ${x.hook.integration ? 'from castellan\'s integration: a screen that plainly shows otherwise corrects it' : 'holds against the screen until reset or the next report'}` : 'no hook report (screen heuristics decide)'}`);
      ctx.out(`  screen:    ${x.reading ? `${x.reading.state} by ${x.reading.rule ?? 'fallback'} (${x.reading.confidence}${x.reading.busy ? ', busy marker' : ''})` : 'no reading yet'}`);
      ctx.out(`  title:     ${JSON.stringify(x.title)}`);
      ctx.out(`  matching rules now:${x.matches.length ? '' : ' none'}`);
      for (const m of x.matches) ctx.out(`    ${String(m.priority).padStart(4)}  ${m.state.padEnd(8)} ${m.rule}${m.plain ? ' (plain)' : ''}${m.busy ? ' (busy)' : ''}`);
      ctx.out('  bottom of screen:');
      for (const l of x.bottom) ctx.out(`    │ ${l}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
