// pane.explain's answer: what the badge shows, the hook report and the heuristic reading behind it, and the screen bottom.
import { ApiError } from '../api/protocol.js';
import type { State } from '../core/types.js';
import type { DetectionLoop } from './detection-loop.js';

export function explainPane(st: State, detection: Pick<DetectionLoop, 'explain'>, pane: string): Record<string, unknown> {
  const p = st.panes[pane];
  if (!p) throw new ApiError('pane_not_found', `no pane ${pane}`);
  const x = detection.explain(pane);
  return {
    pane_id: pane,
    badge: { state: p.agent.state, agent: p.agent.agent, source: p.agent.source, since: p.agent.since, message: p.agent.message },
    hook: p.agent.hook ? { state: p.agent.hook.state, agent: p.agent.hook.agent, at: p.agent.hook.at, message: p.agent.hook.message, integration: p.agent.hook.integration === true } : null,
    heuristic: p.agent.heuristic ?? null,
    identification: x?.identification ?? null,
    reading: x?.reading ?? null,
    matches: (x?.matches ?? []).map((m) => ({ rule: m.rule, state: m.state, priority: m.priority, plain: m.plain, busy: m.busy })),
    title: x?.snapshot.title ?? '',
    bottom: (x?.snapshot.lines ?? []).filter((l) => l.trim()).slice(-8),
  };
}
