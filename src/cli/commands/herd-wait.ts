// `castellan herd wait`: block until panes' agents reach a state; exit 0, 124 on timeout, 4 if a pane goes away.
import { RpcError } from '../../api/client.js';
import { AGENT_STATES, type AgentState } from '../../core/types.js';
import { cleanRemote, isRemote, machinesRoom, terminalJson } from '../../machines/cli-door.js';
import { intArg, listArg, paneArg } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'herd wait',
  usage: 'castellan herd wait (--pane ID [--pane ID...] | --children [--pane PARENT]) --status idle[,done] [--any|--all] [--timeout-ms N] [--machine NAME] [--json]',
  summary: 'Wait until the agent in a pane is in one of the given states (at once if it already is).',
  details: [
    '--status idle: the agent is not working (done counts: it is idle with a turn you have not looked at).',
    '--status done: the agent finished its turn: a pane in state done now, or a turn ending during the wait, whether or',
    'not anyone looks at the pane (a focused pane shows idle at once). A turn that ended, was seen and went idle before the',
    'wait began is not counted: start the wait in the background before sending the prompt, or use --status idle.',
    'Exit codes: 0 matched, 124 timed out, 4 a pane was closed or its program exited, 3 no server, 2 bad usage.',
    'With several --pane: --any (default) returns when one matches, --all when all match at the same time.',
    '--json prints the event that ended the wait. The default timeout is 60000 ms; --timeout-ms 0 waits up to a week.',
    '--children waits on every sub-harness pane of PARENT (--pane, default: this pane), --all unless --any; exit 4 if one',
    'of them exits or is closed (read it with castellan pane read), 1 if PARENT has none.',
  ].join('\n'),
  options: {
    children: { type: 'boolean' },
    pane: { type: 'string', multiple: true },
    status: { type: 'string', multiple: true },
    any: { type: 'boolean' },
    all: { type: 'boolean' },
    'timeout-ms': { type: 'string' },
    json: { type: 'boolean' },
    machine: { type: 'string' },
  },
  run: async (ctx, { values }) => {
    let panes = listArg(values.pane).map((p) => paneArg(ctx, p, { required: true })!);
    if (values.children) {
      if (panes.length > 1) throw new UsageError('--children takes one --pane PARENT (default: this pane)');
      if (!panes.length && !ctx.env.CASTELLAN_PANE_ID) throw new UsageError('--children needs --pane PARENT outside a castellan pane');
    } else if (!panes.length) throw new UsageError('give at least one --pane (or --children)');
    const states = listArg(values.status);
    if (!states.length) throw new UsageError('give --status (e.g. idle,done)');
    for (const s of states) if (!(AGENT_STATES as readonly string[]).includes(s)) throw new UsageError(`unknown status "${s}"; use ${AGENT_STATES.join(', ')}`);
    if (values.any && values.all) throw new UsageError('--any and --all exclude each other');
    const t = intArg(values['timeout-ms'], 'timeout-ms', 0, 7 * 24 * 3600 * 1000) ?? 60_000;
    const timeoutMs = t === 0 ? 7 * 24 * 3600 * 1000 : t;
    // Another machine: its connection with the hello, so a dropped link can be connected again to the same server.
    const room = isRemote(values.machine) ? await machinesRoom() : undefined;
    const first = room ? await room.openNamed(ctx, String(values.machine)) : undefined;
    const api = first ? first.client : await ctx.connect();
    let parent: string | undefined;
    if (values.children) {
      parent = panes[0] ?? paneArg(ctx, '.', { required: true })!;
      try {
        const tree = await api.request<{ children: Array<{ pane_id: string }> }>('episode.get', { pane_id: parent }, { timeoutMs: 10_000 });
        panes = tree.children.map((c) => c.pane_id);
      } catch (e) {
        api.close();
        throw e;
      }
      if (!panes.length) {
        api.close();
        ctx.err(`castellan herd wait: ${parent} has no sub-harness panes to wait on`);
        return EXIT.error;
      }
    }
    // The client enforces the timeout too, so a wedged server cannot make a script hang past its deadline.
    let timer: NodeJS.Timeout | undefined;
    const local = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RpcError('timeout', `no match within ${timeoutMs} ms`)), timeoutMs + 250);
    });
    const until = Date.now() + timeoutMs;
    const ask = (c: typeof api, ms: number) =>
      c.request<{ event: Record<string, unknown>; matched: string[]; states: Record<string, AgentState> }>('events.wait', {
        panes,
        states,
        mode: values.all || (values.children && !values.any) ? 'all' : 'any',
        timeout_ms: ms,
      });
    try {
      // A remote wait outlives a dropped ssh link: connected again with bounded backoff, it asks again with the time left.
      const asking = room && first ? room.requestThroughDrops(ctx, String(values.machine), first, ask, { until, say: (l) => ctx.err(`castellan herd wait: ${cleanRemote(l)}`) }) : ask(api, timeoutMs);
      const r = await Promise.race([asking, local]);
      if (values.json) ctx.out(terminalJson(r.event));
      else ctx.out((isRemote(values.machine) ? cleanRemote : String)(`${r.matched.join(', ')}: ${r.matched.map((p) => r.states[p]).join(', ')}`));
      return EXIT.ok;
    } catch (e) {
      if (e instanceof RpcError && e.code === 'timeout') {
        const states = (e.data as { states?: Record<string, string> } | undefined)?.states;
        ctx.err((isRemote(values.machine) ? cleanRemote : String)(`castellan herd wait: timed out after ${timeoutMs} ms${states ? ` (${Object.entries(states).map(([p, s]) => `${p} ${s}`).join(', ')})` : ''}`));
        if (values.json) ctx.out(JSON.stringify({ type: 'timeout', timeout_ms: timeoutMs, states }));
        return EXIT.timeout;
      }
      if (e instanceof RpcError && (e.code === 'pane_gone' || e.code === 'pane_not_found')) {
        ctx.err(`castellan herd wait: ${e.message}`);
        if (values.json) ctx.out(JSON.stringify((e.data as { event?: unknown } | undefined)?.event ?? { type: 'pane_gone', message: e.message }));
        return EXIT.paneGone;
      }
      if (e instanceof RpcError && e.code === 'shutting_down') {
        ctx.err('castellan herd wait: the server went away while waiting');
        return EXIT.notRunning;
      }
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      api.close();
    }
  },
});
