// Issue 29's measurement: the known agents, their own rules and hooks switched off, read by the generic reader alone
// (generic rules + generic-signals.ts). Prints, per agent, the share of labelled states it gets right and how late,
// and holds the floor measured here (not an aspiration: raise it when the reader improves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flicker, score, type Mark } from '../../scripts/badge-score.js';
import { GENERIC_AGENT, ruleSetFor } from '../../src/detect/rules.js';
import { evaluate } from '../../src/detect/engine.js';
import { GenericReader, preferMatch } from '../../src/detect/generic-signals.js';
import { screenFromText, stillState } from '../../src/cli/commands/detect.js';
import { loadStream, replay } from './stream-support.js';
import { builtin, fixture, labels } from './support.js';

const AGENTS = ['claude', 'codex', 'gemini', 'pi'];
const WANTS: Mark['want'][] = ['working', 'blocked', 'rest'];
/** Measured on the recordings (2026-12, this reader): right per agent, and for the four together. Floors, not goals. */
const FLOOR: Record<string, number> = { claude: 15 / 16, codex: 1, gemini: 15 / 16, pi: 1, all: 58 / 60 };
const STILL_FLOOR = 0.69; // pi: 16/23, the lowest

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : '-');
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] : NaN);

test('recorded streams, generic reader alone: share of labelled states right and delay, per agent', async () => {
  const rows: string[] = ['agent    | right        | working (ms median)  | needs you            | idle/done            | delay median / max (ms) | flicker'];
  let right = 0;
  let total = 0;
  for (const agent of AGENTS) {
    const stream = loadStream(`${agent}.jsonl.gz`); // screen-only recording: no hook events to switch off
    const r = await replay({ ...stream, meta: { ...stream.meta, agent: GENERIC_AGENT } });
    // Every reading came from the generic reader, marked so.
    for (const e of r.events) assert.ok(!e.source || e.source === 'heuristic', `${agent}: ${e.source}`);
    const lat = score(r.marks, r.events);
    const by = (want: Mark['want']) => lat.filter((l, i) => r.marks[i].want === want && !l.short);
    const ok = (ls: typeof lat) => ls.filter((l) => l.ms !== null).length;
    const scored = lat.filter((l) => !l.short);
    const delays = scored.filter((l) => l.ms !== null).map((l) => l.ms!);
    right += ok(scored);
    total += scored.length;
    rows.push(`${agent.padEnd(8)} | ${`${ok(scored)}/${scored.length} ${pct(ok(scored), scored.length)}`.padEnd(12)} | ${WANTS.map((w) => `${ok(by(w))}/${by(w).length} (${median(by(w).filter((l) => l.ms !== null).map((l) => l.ms!))})`.padEnd(20)).join(' | ')} | ${median(delays)} / ${Math.max(...delays)}`.padEnd(23) + ` | ${flicker(r.marks, r.events, r.end).length}`);
    assert.ok(ok(scored) / scored.length >= FLOOR[agent], `${agent}: ${ok(scored)}/${scored.length} under the floor ${FLOOR[agent]}`);
  }
  rows.push(`all      | ${right}/${total} ${pct(right, total)}`);
  console.log(rows.join('\n'));
  assert.ok(right / total >= FLOOR.all);
});

test('labelled still screens (8 agents, lab captures with titles), generic reader alone: share right', async () => {
  const set = ruleSetFor(builtin(), GENERIC_AGENT);
  const per = new Map<string, { right: number; total: number; title: number }>();
  for (const l of labels()) {
    if (!['idle', 'done', 'working', 'blocked'].includes(l.expect)) continue;
    const snap = await screenFromText(fixture(l.file), { title: l.title });
    const signal = new GenericReader().read(snap);
    const m = preferMatch(evaluate(set, snap), signal);
    const got = stillState(m, set.fallback); // a still screen: output that no longer changes reads idle
    const want = l.expect === 'done' ? 'idle' : l.expect;
    const c = per.get(l.agent) ?? { right: 0, total: 0, title: 0 };
    c.total++;
    if (got === want) { c.right++; if (m?.rule.startsWith('generic.')) c.title++; }
    per.set(l.agent, c);
  }
  const rows = ['agent    | right        | by a generic.* signal'];
  for (const [agent, c] of per) rows.push(`${agent.padEnd(8)} | ${`${c.right}/${c.total} ${pct(c.right, c.total)}`.padEnd(12)} | ${c.title}`);
  console.log(rows.join('\n'));
  for (const [agent, c] of per) assert.ok(c.right / c.total >= STILL_FLOOR, `${agent}: ${c.right}/${c.total}`);
});
