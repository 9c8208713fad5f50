// `castellan herd list`: every pane's agent and badge state, for people and scripts; here, on a machine, or on all.
import type { PaneInfo } from '../../api/pane-info.js';
import { cleanRemote, connectWhere, isRemote, LOCAL_NAME, machinesRoom, terminalJson } from '../../machines/cli-door.js';
import { ago, table } from '../cli-util.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';
import { policyWarning } from '../policy-warning.js';

type Row = { machine: string; panes: PaneInfo[] } | { machine: string; error: string; code: string };

/** A pane from the stale cache: its file may hold anything, so every field is looked at with care. */
const safeJson = (p: PaneInfo) => ({ pane_id: p.pane_id, title: p.title, agent: p.agent?.name ?? null, state: p.agent?.state ?? null, message: p.agent?.message ?? null });

const asJson = (p: PaneInfo) => ({ pane_id: p.pane_id, title: p.title, agent: p.agent.name ?? null, state: p.agent.state, source: p.agent.source ?? null, message: p.agent.message ?? null, since: p.agent.since, hook_locked: p.agent.hook_locked, exited: p.exited ?? null, worktree: p.worktree ?? null, branch: p.branch ?? null, cwd_gone: p.cwd_gone ?? null });

export default defineCommand({
  name: 'herd list',
  usage: 'castellan herd list [--machine NAME | --all-machines] [--json]',
  summary: 'List panes with their agent, state, where the state came from, for how long, and the agent\'s message about it.',
  details: '--machine NAME lists another machine\'s panes over ssh (castellan machine add); --all-machines lists this one and every enabled machine at once, a MACHINE column first; a machine that cannot be reached gets a row saying why and the exit code is 1.',
  options: { json: { type: 'boolean' }, machine: { type: 'string' }, 'all-machines': { type: 'boolean' } },
  run: async (ctx, { values }) => {
    if (values.machine !== undefined && values['all-machines']) throw new UsageError('--machine and --all-machines exclude each other');
    const broken = await policyWarning(ctx);
    if (broken) ctx.err(broken);
    const named = values.machine !== undefined || !!values['all-machines'];
    // Only a listing that names machines loads the machines room (profiles, ssh): a plain herd list stays light.
    const room = named ? await machinesRoom() : undefined;
    const list = async (api: Awaited<ReturnType<typeof ctx.connect>>) => (await api.request<{ panes: PaneInfo[] }>('pane.list', {}, { timeoutMs: 5000 })).panes;
    let results: Row[];
    if (values['all-machines']) {
      results = (await room!.acrossMachines(ctx, list)).map((r) => (r.ok ? { machine: r.machine, panes: r.value } : { machine: r.machine, error: r.error, code: r.code }));
    } else {
      const api = await connectWhere(ctx, values.machine);
      try {
        results = [{ machine: typeof values.machine === 'string' ? values.machine : LOCAL_NAME, panes: await list(api) }];
      } finally {
        api.close();
      }
    }
    // A machine that answered is remembered; one that did not shows what it last said, marked stale.
    for (const r of results) if ('panes' in r && isRemote(r.machine)) room?.rememberPanes(ctx.paths, r.machine, r.panes);
    const stale = (m: string) => (isRemote(m) ? room?.lastKnown(ctx.paths, m) : undefined);
    // Another host's titles and messages are data: no control sequence of theirs reaches this terminal.
    const clean = (machine: string, s: unknown) => (isRemote(machine) ? cleanRemote(s) : String(s ?? ''));
    if (values.json) {
      const out = results.flatMap((r): object[] =>
        'panes' in r
          ? r.panes.map((p) => (named ? { machine: r.machine, ...asJson(p) } : asJson(p)))
          : [{ machine: r.machine, error: r.error, code: r.code }, ...(stale(r.machine)?.panes ?? []).map((p) => ({ machine: r.machine, stale: true, seen_at: stale(r.machine)!.at, ...safeJson(p as PaneInfo) }))],
      );
      ctx.out(terminalJson(out));
    } else {
      const now = Date.now();
      const rows = [[...(named ? ['MACHINE'] : []), 'PANE', 'AGENT', 'STATE', 'SOURCE', 'FOR', 'TITLE', 'MESSAGE']];
      const gone: string[] = [];
      for (const r of results) {
        const m = named ? [r.machine] : [];
        if (!('panes' in r)) {
          rows.push([...m, '-', '-', r.code === 'not_running' ? 'no server' : 'unreachable', '-', '-', '', r.error]);
          const last = stale(r.machine);
          for (const p of (last?.panes ?? []) as PaneInfo[]) {
            const c = (s: unknown) => cleanRemote(s, 200);
            rows.push([...m, c(p.pane_id), c(p.agent?.name ?? '-'), `stale:${c(p.agent?.state)}`, c(p.agent?.source ?? '-'), `${ago(now - last!.at)} ago`, c(p.title), c(p.agent?.message ?? '')]);
          }
          continue;
        }
        for (const p of r.panes) {
          const c = (s: unknown) => clean(r.machine, s);
          // `!`: restored elsewhere, its directory was gone; the line under the table says which.
          if (p.cwd_gone) gone.push(`! ${named ? `${r.machine} ` : ''}${c(p.pane_id)}: its directory ${c(p.cwd_gone)} was gone when it was restored; it runs in ${c(p.cwd)}`);
          rows.push([...m, p.cwd_gone ? `${c(p.pane_id)} !` : c(p.pane_id), c(p.agent.name ?? '-'), p.exited ? `exited(${c(p.exited.code ?? 'sig')})` : c(p.agent.state), c(p.agent.source ?? '-'), ago(now - Number(p.agent.since)), c(p.title), c(p.agent.message ?? '')]);
        }
      }
      ctx.out(table(rows));
      for (const g of gone) ctx.out(g);
    }
    return results.some((r) => !('panes' in r)) ? EXIT.error : EXIT.ok;
  },
});
