// Says so when a configured governance hook stage is one the agent now running in a pane never fires (no pretending it runs).
import type { Config } from '../config/schema.js';
import type { StampedEvent } from '../core/events.js';
import { unsupportedStages, type MatrixStage } from '../integrations/matrix.js';

export interface StageWarningHost {
  config(): Config;
  emit(e: { type: string; [k: string]: unknown }): void;
  listen(fn: (e: StampedEvent) => void): () => void;
}

/** The event a warning goes out as (a notice in the UI, a line for subscribers). */
export function unsupportedEvent(o: { stage: MatrixStage; harness: string; note?: string; pane?: string; agentId?: string; what: string }): { type: string; [k: string]: unknown } {
  return {
    type: 'hook_unsupported',
    stage: o.stage,
    harness: o.harness,
    ...(o.pane ? { pane: o.pane } : {}),
    ...(o.agentId ? { agent_id: o.agentId } : {}),
    message: `${o.what}: ${o.harness} never fires ${o.stage}${o.note ? ` (${o.note})` : ''}`,
  };
}

export class StageWarnings {
  private readonly told = new Set<string>();
  private readonly unlisten: () => void;

  constructor(private readonly h: StageWarningHost) {
    this.unlisten = h.listen((e) => this.onEvent(e));
  }

  private onEvent(e: StampedEvent): void {
    if (e.type !== 'pane_agent_status_changed') return;
    const ev = e as StampedEvent & { pane: string; agent?: string };
    if (!ev.agent) return;
    const key = `${ev.pane}|${ev.agent}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    const configured = [...new Set(this.h.config().hooks.hooks.map((x) => x.event))] as MatrixStage[];
    for (const u of unsupportedStages(ev.agent, configured)) {
      this.h.emit(unsupportedEvent({ stage: u.stage, harness: ev.agent, note: u.note, pane: ev.pane, what: `${u.stage} hooks are configured, but ${ev.agent} runs in ${ev.pane}` }));
    }
  }

  dispose(): void {
    this.unlisten();
  }
}
