// Agent-state actions: reports from hooks/CLI/API, heuristic readings, reset and wait marks.
import type { AnyAction } from './actions.js';
import type { AgentChange } from './agent-state.js';
import { applyDetection, applyReport, resetAgent } from './agent-state.js';
import { putPane } from './draft.js';
import type { Draft } from './reducer.js';
import { fail } from './reducer.js';
import { focusedPanes, targetPaneId } from './select.js';
import { cleanName, cleanText } from './text.js';
import type { PaneState } from './types.js';

const BUSY = new Set(['working', 'blocked']);

/**
 * Records a badge change, and asks for a notification when an unfocused pane needs the user. A finished turn
 * is also its own event: a focused pane's "done" turns "idle" at once, and a wait for "done" must still see it.
 */
function commit(d: Draft, p: PaneState, ch: AgentChange, focused: boolean, reportedDone = false): void {
  let info = ch.info;
  const ended = !ch.ignored && (reportedDone || (BUSY.has(ch.old) && (info.state === 'idle' || info.state === 'done')));
  // After the status change, so a wait that both satisfy ends on the status change, as it always has.
  const turnEnded = () => {
    if (ended) d.events.push({ type: 'pane_agent_turn_ended', pane: p.id, agent: info.agent, state: info.state, ...(info.message ? { message: info.message } : {}) });
  };
  if (!ch.changed) {
    if (info !== p.agent) putPane(d, { ...p, agent: info });
    return turnEnded();
  }
  const s = info.state;
  d.events.push({ type: 'pane_agent_status_changed', pane: p.id, agent: info.agent, old: ch.old, new: s, source: info.source, ...(info.message ? { message: info.message } : {}) });
  // Only agents alert: a plain shell finishing a command is shown in its badge but does not ring.
  if (ch.old !== s && (s === 'blocked' || s === 'done') && !focused && info.agent) {
    d.effects.push({ type: 'notify', pane: p.id, state: s, agent: info.agent, reason: 'unfocused' });
  }
  if (info.waitMark && ch.old !== s && (s === 'idle' || s === 'done')) {
    d.effects.push({ type: 'notify', pane: p.id, state: s, agent: info.agent, reason: 'wait-mark' });
    info = { ...info, waitMark: false };
  }
  putPane(d, { ...p, agent: info });
  turnEnded();
}

export function reduceAgentAction(d: Draft, a: AnyAction): void {
  switch (a.type) {
    case 'agent.report': {
      const p = d.state.panes[a.pane];
      if (!p) return fail(d, 'pane_not_found', `no pane ${a.pane}`);
      if (p.exited) return fail(d, 'not_allowed', `pane ${a.pane} has exited`);
      const focused = focusedPanes(d.state).has(p.id);
      const report = {
        agent: cleanName(a.agent, 64),
        state: a.state,
        source: a.source ?? 'api',
        message: a.message ? cleanText(a.message, 2000) : undefined,
        seq: a.seq,
        sessionId: a.sessionId,
        ...(a.args ? { args: a.args } : {}),
        ...(a.integration ? { integration: true } : {}),
        at: d.ctx.now,
      };
      const ch = applyReport(p.agent, report, focused);
      d.result = { state: ch.info.state, ...(ch.ignored ? { ignored: ch.ignored } : {}) };
      commit(d, p, ch, focused, a.state === 'done');
      return;
    }
    case 'agent.detected': {
      const p = d.state.panes[a.pane];
      if (!p || p.exited) return;
      const focused = focusedPanes(d.state).has(p.id);
      commit(d, p, applyDetection(p.agent, { agent: a.agent, state: a.state, rule: a.rule, at: d.ctx.now }, focused, { overrideHook: a.overrideHook }), focused);
      return;
    }
    case 'agent.reset': {
      const id = targetPaneId(d.state, d.ctx.client, a.pane);
      const p = id ? d.state.panes[id] : undefined;
      if (!p) return fail(d, 'pane_not_found', `no pane ${a.pane ?? ''}`.trim());
      const focused = focusedPanes(d.state).has(p.id);
      commit(d, p, resetAgent(p.agent, d.ctx.now), focused);
      d.result = { state: d.state.panes[p.id].agent.state };
      return;
    }
    case 'agent.wait_mark': {
      const id = targetPaneId(d.state, d.ctx.client, a.pane);
      const p = id ? d.state.panes[id] : undefined;
      if (!p) return fail(d, 'pane_not_found', `no pane ${a.pane ?? ''}`.trim());
      const on = a.on ?? !p.agent.waitMark;
      putPane(d, { ...p, agent: { ...p.agent, waitMark: on } });
      d.events.push({ type: 'notice', level: 'info', pane: p.id, message: on ? `will tell you when ${p.id} is idle or done` : `stopped waiting on ${p.id}` });
      d.result = { pane: p.id, waiting: on };
      return;
    }
    default:
      fail(d, 'invalid_params', `unknown agent action ${a.type}`);
  }
}
