// Scoring of badge events against ground-truth marks: latency per mark and flicker (scripts/badge-latency.ts, test/detect).
export type Truth = 'working' | 'blocked' | 'rest';
/** One ground-truth moment: the badge should show `want` soon after `t`. */
export interface Mark { t: number; step: string; transition: string; want: Truth }

/** ms null: never shown; `short`: not shown because the agent left the state within SHORT_MS (a dialog drawn
 *  0.1 s after the prompt, the mock's tool call being instant): no badge is owed a state shorter than a redraw. */
export interface Latency { transition: string; ms: number | null; short?: boolean }

const SHORT_MS = 250;

export interface BadgeEvent { ts: number; new: string; old: string; source?: string }

const REST = new Set(['idle', 'done']);
const shows = (state: string, want: Mark['want']) => (want === 'rest' ? REST.has(state) : state === want);

/** Latency per mark: the first event at or after the mark (or already showing it) that shows the wanted state. */
export function score(marks: Mark[], events: BadgeEvent[]): Latency[] {
  return marks.map((m, i) => {
    const before = [...events].reverse().find((e) => e.ts <= m.t);
    // The badge may be right before the truth moment (a hook that fires before the screen draws): 0.
    const nextMark = marks.slice(i + 1).find((n) => n.step !== m.step || n.want !== m.want);
    const limit = nextMark ? nextMark.t : Infinity;
    if (before && shows(before.new, m.want)) {
      // ...unless it changed away and back before the next mark: then the later arrival counts.
      const left = events.find((e) => e.ts > m.t && e.ts < limit && !shows(e.new, m.want));
      if (!left) return { transition: `${m.step}: ${m.transition}`, ms: 0 };
    }
    const hit = events.find((e) => e.ts > m.t && e.ts < limit && shows(e.new, m.want));
    if (!hit && limit - m.t < SHORT_MS) return { transition: `${m.step}: ${m.transition}`, ms: null, short: true };
    return { transition: `${m.step}: ${m.transition}`, ms: hit ? hit.ts - m.t : null };
  });
}

/** Badge changes that are not a step forward along each step's path (skipping ahead is fine: a fast step). */
/** `end`: when the scenario was over (later changes, such as quitting the agent, are not scored). */
export function flicker(marks: Mark[], events: BadgeEvent[], end = Infinity): string[] {
  const out: string[] = [];
  const steps = [...new Set(marks.map((m) => m.step))];
  steps.forEach((step, i) => {
    const ms = marks.filter((m) => m.step === step && !m.transition.startsWith('tool call'));
    const from = ms[0].t;
    const to = i + 1 < steps.length ? marks.find((m) => m.step === steps[i + 1])!.t : end;
    const path = ms.map((m) => m.want);
    let at = -1;
    let cur: string | undefined;
    for (const e of events.filter((x) => x.ts >= from && x.ts < to)) {
      const norm = REST.has(e.new) ? 'rest' : e.new;
      if (norm === cur) continue; // done ↔ idle: the same rest
      const next = path.findIndex((w, k) => k > at && w === norm);
      if (next < 0) out.push(`${step}: ${e.old}→${e.new} at +${e.ts - from} ms`);
      else at = next;
      cur = norm;
    }
  });
  return out;
}

