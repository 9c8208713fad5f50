// Replays a recorded pty stream (test/fixtures/streams, scripts/badge-record.ts) through castellan's real detection
// path on a fake clock: Screen (xterm) → DetectionLoop (throttle, detector, hook confirmation) → core reducer events.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AnyAction } from '../../src/core/actions.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import type { State } from '../../src/core/types.js';
import { evaluate } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { HARNESS_TABLES } from '../../src/integrations/tables.js';
import { isSkip, resolveEvent, findRow } from '../../src/integrations/resolve.js';
import type { AgentName } from '../../src/integrations/types.js';
import { DetectionLoop, type DetectionClock } from '../../src/server/detection-loop.js';
import { Screen } from '../../src/server/screen.js';
import type { BadgeEvent, Mark } from '../../scripts/badge-score.js';
import { builtin } from './support.js';

export const STREAMS = fileURLToPath(new URL('../fixtures/streams/', import.meta.url));

type Rec =
  | { t: number; o: string }
  | { t: number; input: true; data?: string }
  | { t: number; mark: { step: string; transition: string; want: Mark['want'] } }
  | { t: number; hook: string; payload: Record<string, unknown> };

export interface Stream { meta: { agent: string; cols: number; rows: number; hooks: boolean }; recs: Rec[] }

export function loadStream(name: string): Stream {
  const [head, ...rest] = gunzipSync(readFileSync(join(STREAMS, name))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  return { meta: head.meta, recs: rest };
}

/** Timers on a clock that moves only when told to. */
export class FakeClock implements DetectionClock {
  private t = 0;
  private seq = 0;
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  now(): number { return this.t; }
  setTimeout(fn: () => void, ms: number): unknown {
    const h = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(h);
    return h;
  }
  clearTimeout(h: unknown): void { this.timers = this.timers.filter((x) => x !== h); }
  /** Runs every timer due up to `t`, in time order, then stands at `t`. */
  advance(t: number): void {
    for (;;) {
      let next: (typeof this.timers)[number] | undefined;
      for (const x of this.timers) if (x.at <= t && (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq))) next = x;
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, t);
  }
}

export interface Replay {
  events: BadgeEvent[];
  agent: string;
  /** The recorded hook reports castellan would have applied (installed events), with their times. */
  hooks: Array<{ t: number; state: string }>;
  marks: Mark[];
  /** When the screen itself (engine, every frame, no timing) first showed each mark's state to stay. */
  drawn: Map<Mark, number | undefined>;
  /** What the rules (no timing) said of the screen at `t`. */
  screenAt(t: number): string;
  end: number;
}

const PANE = 'w1:p1';

/**
 * Feeds the stream chunk by chunk at its recorded times. With `hooks`, the recorded hook events become
 * `agent.report`s through castellan's own hook tables (installed events only), as `castellan hook` would send.
 */
export async function replay(stream: Stream, opts: { hooks?: boolean } = {}): Promise<Replay> {
  const { meta, recs } = stream;
  const clock = new FakeClock();
  const screen = new Screen({ cols: meta.cols, rows: meta.rows, scrollback: 1000 });
  let state: State = emptyState('replay', { cols: meta.cols, rows: meta.rows });
  const events: BadgeEvent[] = [];
  const hooks: Replay['hooks'] = [];
  const dispatch = (a: AnyAction) => {
    const r = reduce(state, a, { now: clock.now(), defaultCommand: ['/bin/sh'], defaultCwd: '/' });
    state = r.state;
    for (const e of r.events) if (e.type === 'pane_agent_status_changed' && e.pane === PANE) events.push({ ts: clock.now(), old: e.old, new: e.new, source: e.source });
  };
  dispatch({ type: 'server.init', cols: meta.cols, rows: meta.rows, command: ['/bin/sh'], cwd: '/' } as AnyAction);
  const loop = new DetectionLoop({
    state: () => state, runtime: () => ({ screen, exited: false, pty: null }), dispatch, log: () => undefined,
    userRulesDir: '/nonexistent/castellan-replay', clock, agentOf: () => meta.agent,
  });
  const set = ruleSetFor(builtin(), meta.agent);
  const frames: Array<{ t: number; state: string }> = [];
  const marks: Mark[] = [];
  const table = HARNESS_TABLES[meta.agent as AgentName];
  const keys = keysOf(recs);
  try {
    for (const r of recs) {
      clock.advance(r.t);
      if ('o' in r) {
        await new Promise<void>((res) => screen.write(r.o, res));
        loop.paneDirty(PANE);
        // A working rule that is no busy marker (Codex's composer under an open turn) is not yet the turn showing.
        const m = evaluate(set, screen.snapshot());
        frames.push({ t: r.t, state: m ? (m.state === 'working' && !m.busy ? 'working?' : m.state) : 'none' });
      } else if ('input' in r) {
        loop.noteInput(PANE, keys.get(r));
      } else if ('mark' in r) {
        marks.push({ t: r.t, ...r.mark });
      } else if (opts.hooks && table) {
        const row = findRow(table, r.hook);
        const res = row?.install ? resolveEvent(table, r.hook, r.payload) : undefined;
        if (!res || isSkip(res)) continue;
        const cur = state.panes[PANE]?.agent.state;
        if (res.unless?.includes(cur)) continue;
        hooks.push({ t: r.t, state: res.state });
        if (loop.screenOutranks(PANE, res.state)) continue; // as pane.report_agent does
        dispatch({ type: 'agent.report', pane: PANE, agent: meta.agent, state: res.state, source: 'hook', integration: true } as AnyAction);
        loop.hookReported(PANE); // as pane.report_agent does
      }
    }
    clock.advance(recs[recs.length - 1].t + 5000);
    // The recorder waits 2.5 s after the scenario's last step, then quits the agent: that is not scored.
    const end = marks[marks.length - 1].t + 2500;
    const screenAt = (t: number) => frames.filter((f) => f.t <= t).pop()?.state ?? 'none';
    return { agent: meta.agent, events, hooks, marks, drawn: drawnTimes(marks.concat({ t: end, step: 'end', transition: 'end', want: 'rest' }), frames), screenAt, end };
  } finally {
    loop.dispose();
    screen.dispose();
  }
}

/**
 * What each input record typed. Newer recordings say (`data`); older ones recorded only the time, but the driver's
 * keys are its marks' times (badge-lab's runScenario marks the time `key()` returned): an Enter for a prompt or an
 * approval, an Escape for an interrupt or a rejection. Any other input there was typed text (or Claude's C-u).
 */
function keysOf(recs: Rec[]): Map<Rec, string> {
  const KEY: Record<string, string> = { prompt: '\r', approve: '\r', interrupt: '\x1b', reject: '\x1b' };
  const at = new Map<number, string>();
  for (const r of recs) if ('mark' in r) { const k = KEY[r.mark.transition.split('→')[0]]; if (k) at.set(r.t, k); }
  const out = new Map<Rec, string>();
  for (const r of recs) if ('input' in r) out.set(r, r.data ?? at.get(r.t) ?? 'text');
  return out;
}

const REST = new Set(['idle', 'done']);
const fits = (s: string, want: Mark['want']) => (want === 'rest' ? REST.has(s) : s === want);

/**
 * For each mark: when the screen itself (every frame, rules only, no timing) began to show the mark's state for
 * good: the start of the last run of fitting frames between the previous and the next mark, if that run lasts
 * to the next mark. A dialog noticed by the recorder's 15 ms poll was drawn a little before its mark: the run's start.
 */
function drawnTimes(marks: Mark[], frames: Array<{ t: number; state: string }>): Map<Mark, number | undefined> {
  const out = new Map<Mark, number | undefined>();
  marks.forEach((m, i) => {
    const from = marks[i - 1]?.t ?? 0;
    const until = marks[i + 1]?.t ?? Infinity;
    let at: number | undefined;
    for (const f of frames) {
      if (f.t < from || f.t >= until) continue;
      if (fits(f.state, m.want)) at ??= f.t;
      else at = undefined;
    }
    out.set(m, at);
  });
  return out;
}
