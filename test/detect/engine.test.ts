// The pure engine: regions, all/any/none, priorities, regex compilation, resized and narrow screens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleSet, evaluate, explain, regionText } from '../../src/detect/engine.js';
import { ruleSchema, type RuleInput } from '../../src/detect/rules-schema.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { screenFromText } from '../../src/cli/commands/detect.js';
import { builtin, fixture, snap } from './support.js';

const set = (rules: RuleInput[], bottomLines?: number) =>
  compileRuleSet({ agent: 't', rules: rules.map((r) => ({ rule: ruleSchema.parse(r), source: 'test' })), bottomLines });

test('bottom skips blank rows, so the same content reads the same at any height', () => {
  const s = snap(['top', '', 'a', '', '', 'b', 'c', '', ''], { rows: 9 });
  assert.equal(regionText(s, 'bottom', 2), 'b\nc');
  assert.equal(regionText(s, 'bottom', 3), 'a\nb\nc');
  assert.equal(regionText(s, 'screen'), 'top\na\nb\nc');
  const tall = snap(['top', ...Array(40).fill(''), 'a', 'b', 'c'], { rows: 44 });
  assert.equal(regionText(tall, 'bottom', 3), 'a\nb\nc');
});

test('title and cursor_row regions', () => {
  const s = snap(['one', 'user@host:~$'], { title: '⠹ job', cursor: { x: 12, y: 1 } });
  assert.equal(regionText(s, 'title'), '⠹ job');
  assert.equal(regionText(s, 'cursor_row'), 'user@host:~$');
  assert.equal(regionText(snap(['x'], { cursor: { x: 0, y: 7 } }), 'cursor_row'), '', 'cursor outside the rows');
});

test('all, any and none; the highest priority that holds wins; ties keep file order', () => {
  const rules = set([
    { id: 'low', state: 'idle', priority: 1, all: ['^\\$ $'] },
    { id: 'needs-both', state: 'blocked', priority: 50, all: ['Proceed\\?', '^❯ 1\\.'] },
    { id: 'any-of', state: 'working', priority: 40, any: ['spinning', 'busy'], none: ['paused'] },
    { id: 'tie-a', state: 'done', priority: 10, all: ['fin'] },
    { id: 'tie-b', state: 'idle', priority: 10, all: ['fin'] },
  ]);
  assert.equal(evaluate(rules.set, snap(['Proceed?', '❯ 1. Yes']))?.rule, 'needs-both');
  assert.equal(evaluate(rules.set, snap(['Proceed?', '  1. Yes'])), undefined);
  assert.equal(evaluate(rules.set, snap(['busy now']))?.rule, 'any-of');
  assert.equal(evaluate(rules.set, snap(['busy now', 'paused'])), undefined);
  assert.equal(evaluate(rules.set, snap(['fin']))?.rule, 'tie-a');
  assert.deepEqual(explain(rules.set, snap(['fin', 'spinning'])).map((m) => m.rule), ['any-of', 'tie-a', 'tie-b']);
});

test('a rule reports its flags; a rule with no pattern always holds; disabled rules are skipped', () => {
  const rules = set([
    { id: 'off', state: 'blocked', priority: 9, enabled: false },
    { id: 'spin', state: 'working', priority: 5, busy: true, plain: true, all: ['⠋'] },
    { id: 'catch-all', state: 'unknown', priority: -5 },
  ]);
  assert.deepEqual(evaluate(rules.set, snap(['⠋ Working'])), { state: 'working', rule: 'spin', busy: true, plain: true, priority: 5, source: 'test' });
  assert.equal(evaluate(rules.set, snap(['nothing']))?.rule, 'catch-all');
});

test('regexes: "mu" flags, a pattern only valid without "u" still works, a broken one is reported', () => {
  const rules = set([
    { id: 'unicode', state: 'idle', all: ['^[◐◑] \\S'] },
    { id: 'legacy-escape', state: 'done', all: ['a\\-b'] },
    { id: 'broken', state: 'blocked', all: ['(unclosed'] },
  ]);
  assert.deepEqual(rules.problems.map((p) => p.rule), ['broken']);
  assert.equal(evaluate(rules.set, snap(['◑ Claude Code']))?.rule, 'unicode');
  assert.equal(evaluate(rules.set, snap(['a-b']))?.rule, 'legacy-escape');
});

test('bottom_lines per rule and per file', () => {
  const rules = set([{ id: 'near', state: 'idle', all: ['marker'] }], 2);
  assert.equal(evaluate(rules.set, snap(['marker', 'x', 'y'])), undefined);
  assert.equal(evaluate(rules.set, snap(['marker', 'x']))?.rule, 'near');
  const wide = set([{ id: 'far', state: 'idle', bottom_lines: 3, all: ['marker'] }], 2);
  assert.equal(evaluate(wide.set, snap(['marker', 'x', 'y']))?.rule, 'far');
});

test('the same real screen reads the same at 160x45 and 80x24, and squeezed into fewer rows', async () => {
  const claude = ruleSetFor(builtin(), 'claude');
  const wide = await screenFromText(fixture('claude/lab-160x45/blocked.txt'));
  const narrow = await screenFromText(fixture('claude/80x24/blocked.txt'));
  assert.equal(wide.cols >= 160 && narrow.rows, 24);
  assert.equal(evaluate(claude, wide)?.rule, 'permission-prompt');
  assert.equal(evaluate(claude, narrow)?.rule, 'permission-prompt');
  // a pane made shorter: the TUI redraws its bottom-anchored box and the lines right above it
  const rows = fixture('claude/lab-160x45/idle-done.txt').split('\n').filter((l) => l.trim() !== '');
  const short = snap(rows.slice(-12), { cols: 160, rows: 12 });
  assert.equal(evaluate(claude, short)?.state, 'done');
  assert.equal(evaluate(claude, snap(rows.slice(-12), { rows: 40 }))?.state, 'done', 'and taller, with blank rows under it');
});

test('a narrow pane that re-wraps a capture: the rules still find their markers', async () => {
  const codex = ruleSetFor(builtin(), 'codex');
  const text = fixture('codex/lab-160x45/blocked.txt');
  // re-wrap every row at 60 columns, as a 60-column terminal would have drawn long rows
  const rows = text.split('\n').flatMap((l) => (l.length <= 60 ? [l] : [l.slice(0, 60), l.slice(60)]));
  assert.equal(evaluate(codex, snap(rows.slice(-45), { cols: 60 }))?.state, 'blocked');
});

test('colours do not change a reading: ANSI goes through the emulator into plain rows', async () => {
  const ansi = await screenFromText(fixture('codex/lab-160x45/working.ansi.txt'));
  const plain = await screenFromText(fixture('codex/lab-160x45/working.txt'));
  assert.deepEqual(ansi.lines.map((l) => l.trimEnd()), plain.lines.map((l) => l.trimEnd()));
  const red = await screenFromText('\x1b[31m⠋ \x1b[1mWorking...\x1b[0m\n\x1b[2m────────\x1b[0m');
  assert.deepEqual(red.lines, ['⠋ Working...', '────────']);
});
