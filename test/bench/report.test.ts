// The bench's report: targets are checked as stated, and the README's speed table is the one latest.json gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { headlineTable, met, README_BEGIN, README_END, readmeTable, replaceReadmeTable, table, targetText, type Row } from '../../bench/lib/report.js';

const row = (r: Partial<Row>): Row => ({ section: 's', metric: 'm', unit: 'ms', castellan: 1, ...r });

test('a Goal is checked against castellan and the castellan/tmux ratio; a string target keeps its pass', () => {
  assert.equal(met(row({ castellan: 2, tmux: 1, target: { ratioMax: 2 } })), true);
  assert.equal(met(row({ castellan: 2.1, tmux: 1, target: { ratioMax: 2 } })), false);
  assert.equal(met(row({ castellan: 2.1, target: { ratioMax: 2 } })), undefined, 'no tmux figure: cannot say');
  assert.equal(met(row({ castellan: 40, target: { max: 50 } })), true);
  assert.equal(met(row({ castellan: NaN, target: { max: 50 } })), false, 'a figure that failed to measure does not meet it');
  assert.equal(met(row({ castellan: 1.2, tmux: 1, target: { ratioMin: 1.3 } })), false);
  assert.equal(met(row({ castellan: 9, target: '< 10 ms', pass: true })), true);
  assert.equal(met(row({})), undefined);
  assert.equal(targetText(row({ unit: 'MB', target: { max: 40 } })), '<= 40 MB');
  assert.equal(targetText(row({ target: { ratioMax: 1.5, text: 'at most 1.5x tmux' } })), 'at most 1.5x tmux');
});

test('the full table has target and met columns; the headline table holds only headline rows', () => {
  const rows = [row({ metric: 'echo', castellan: 3, tmux: 1, target: { ratioMax: 2 }, headline: 'echo median' }), row({ metric: 'other', castellan: 5 })];
  const full = table(rows);
  assert.match(full.split('\n')[0], /target\s+met$/);
  assert.match(full, /echo .*3\.00x\s+<= 2x tmux\s+NO/);
  const heads = headlineTable(rows);
  assert.match(heads, /echo median/);
  assert.doesNotMatch(heads, /other/);
});

test('the README speed table is what `npm run bench -- --readme` makes of bench/results/latest.json', (t) => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const latest = JSON.parse(readFileSync(fileURLToPath(new URL('../../bench/results/latest.json', import.meta.url)), 'utf8'));
  if (!(latest.rows as Row[]).some((r) => r.headline)) {
    // A results file from before headline rows: the README keeps its hand-written table until a full run replaces both.
    t.skip('latest.json has no headline rows yet: run the full bench, then npm run bench -- --readme');
    return;
  }
  const a = readme.indexOf(README_BEGIN);
  const b = readme.indexOf(README_END);
  assert.ok(a >= 0 && b > a, 'the README has the speed table markers');
  assert.equal(replaceReadmeTable(readme, readmeTable(latest.rows, latest.meta)), readme, 'regenerate it: npm run bench -- --readme');
});
