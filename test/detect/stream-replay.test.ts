// Recorded pty streams of real agents (agent lab, scripts/badge-record.ts) replayed through the real detection path
// on a fake clock: every badge transition lands within its target after the screen showed it, and nothing flickers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { flicker, type Mark } from '../../scripts/badge-score.js';
import { loadStream, replay, STREAMS, type Replay } from './stream-support.js';

/** Targets (issue 17), ms after the ground-truth moment. */
const SCREEN = { working: 250, rest: 300, blocked: 200, interrupt: 300 };
const HOOKS = { any: 150, unreported: 500 };
/** Agents whose hooks run without the agent waiting for them (pi's extension spawns and goes on). */
const ASYNC_HOOKS = new Set(['pi']);

const REST = new Set(['idle', 'done']);
const shows = (s: string, want: Mark['want']) => (want === 'rest' ? REST.has(s) : s === want);

/**
 * The first badge event showing the mark's state after `from` (or the badge already showing it: changed to it since
 * the mark, as an Enter's prompt does before the agent draws it, or holding it until the next mark), before the next mark.
 */
function arrival(r: Replay, m: Mark, from: number): number | undefined {
  const i = r.marks.indexOf(m);
  const until = r.marks.slice(i + 1).find((n) => n.want !== m.want)?.t ?? r.end;
  const before = r.events.filter((e) => e.ts <= from).pop();
  if (before && shows(before.new, m.want) && (before.ts >= m.t || !r.events.some((e) => e.ts > from && e.ts < until && !shows(e.new, m.want)))) return from;
  return r.events.find((e) => e.ts >= from && e.ts < until && shows(e.new, m.want))?.ts;
}

interface Row { mark: Mark; truth: number; target: number; got?: number; what: string }

/** Which moment each mark is held to, and its target. Undefined: not held (e.g. a state shorter than a redraw). */
function expectation(r: Replay, m: Mark, hooks: boolean): Row | undefined {
  const drawn = r.drawn.get(m);
  const next = r.marks[r.marks.indexOf(m) + 1];
  const lasts = (next?.t ?? r.end) - (drawn ?? m.t);
  if (m.transition.startsWith('tool call')) return undefined; // the dialog's drawing is the moment
  if (drawn === undefined || lasts < 400) return undefined; // the screen never showed it for long: nothing to hold
  // The moment the screen showed it (a key's effect cannot show before the key; a dialog noticed by the
  // recorder's poll was drawn a little before its mark). An agent slow to redraw is not the badge's lag.
  const truth = m.transition.startsWith('dialog') ? drawn : Math.max(m.t, drawn);
  const screen = m.transition.startsWith('interrupt') || m.transition.startsWith('reject') ? SCREEN.interrupt : SCREEN[m.want];
  if (hooks) {
    // Claude and Gemini report nothing on an Esc at a dialog, Claude nothing on an interrupt: the screen corrects.
    const unreported = m.transition.startsWith('interrupt') || m.transition.startsWith('reject');
    if (unreported) return { mark: m, truth, target: HOOKS.unreported, what: 'unreported' };
    // pi's extension runs its hooks without waiting for them: under load their reports land 0.2-1.5 s after the
    // event. A transition no hook reported within the hook target is the screen's to show, held to the screen's.
    // Agents that await their hooks (Claude, Codex, Gemini) are held to the hook target throughout.
    const inTime = !ASYNC_HOOKS.has(r.agent) || r.hooks.some((h) => shows(h.state, m.want) && h.t >= m.t - 1000 && h.t <= truth + HOOKS.any);
    return inTime ? { mark: m, truth, target: HOOKS.any, what: 'any' } : { mark: m, truth, target: screen, what: 'no hook in time: screen' };
  }
  return { mark: m, truth, target: screen, what: m.want };
}

const streams = existsSync(STREAMS) ? readdirSync(STREAMS).filter((f) => f.endsWith('.jsonl.gz')).sort() : [];

test('recorded streams are there and small', () => {
  assert.ok(streams.length >= 3, `streams: ${streams.join(', ')}`);
  const bytes = streams.reduce((n, f) => n + statSync(join(STREAMS, f)).size, 0);
  assert.ok(bytes < 2_000_000, `${bytes} bytes of recorded streams`);
});

for (const name of streams) {
  const hooks = name.includes('-hooks');
  test(`${name}: every badge transition within its target of the screen${hooks ? ' or hook' : ''}, no flicker`, async (t) => {
    const stream = loadStream(name);
    const r = await replay(stream, { hooks });
    const rows: Row[] = [];
    for (const m of r.marks) {
      const row = expectation(r, m, hooks);
      if (!row) continue;
      row.got = arrival(r, m, row.truth);
      rows.push(row);
    }
    for (const row of rows) {
      t.diagnostic(`${row.mark.step}: ${row.mark.transition}: ${row.got === undefined ? 'MISSED' : `${row.got - row.truth} ms`} (target ${row.target}${row.what.startsWith('no hook') ? `, ${row.what}` : ''}; mark +${row.truth - row.mark.t} ms)`);
    }
    // Zero flicker. One agent-made exception: with hooks, Codex runs its Interrupt hook after an Esc at a dialog
    // under a real "• Working (… · Running hook)" status line for ~0.4 s; a badge that says working then shows
    // what the agent shows (the flicker is scored from the badge events; the screen's own state is checked here).
    const all = flicker(r.marks, r.events, r.end);
    const agentMade = (f: string) => {
      const m = /^reject: \w+→(\w+) at \+(\d+) ms$/.exec(f);
      if (!m || !hooks) return false;
      const from = r.marks.find((x) => x.step === 'reject')!.t;
      return r.screenAt(from + Number(m[2])) === m[1];
    };
    for (const f of all.filter(agentMade)) t.diagnostic(`agent-made: ${f}`);
    assert.deepEqual(all.filter((f) => !agentMade(f)), [], 'no badge change the agent did not make');
    const late = rows.filter((x) => x.got === undefined || x.got - x.truth > x.target);
    assert.deepEqual(late.map((x) => `${x.mark.step}: ${x.mark.transition}: ${x.got === undefined ? 'missed' : x.got - x.truth}`), [], 'late or missed transitions');
    assert.ok(rows.length >= 8, `${rows.length} transitions held`);
  });
}
