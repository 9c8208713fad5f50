// The raw tier (src/history/pending.ts): a flood only copies lines; they are encoded once the pane is quiet, or at once
// when read; lines the limit evicts during a flood are never encoded; what is read is what was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scrollback } from '../../src/history/index.js';
import { QUIET_MS } from '../../src/history/pending.js';
import { plainRow } from '../../src/server/sgr.js';
import { waitFor } from '../support/wait-for.js';
import { reference, write } from './support.js';

const numbered = (from: number, to: number) => {
  let s = '';
  for (let i = from; i <= to; i++) s += `\x1b[3${i % 8}mline ${i}\x1b[0m ${'漢'.repeat(i % 5)}\r\n`;
  return s;
};

function pane(limit: number) {
  const term = reference(40, 5, Scrollback.xtermScrollback(limit));
  const sb = new Scrollback(term, limit);
  term.onScroll(() => sb.scrolled());
  return { term, sb };
}

test('a flood copies lines; they are encoded only after the pane has been quiet', async (t) => {
  const { term, sb } = pane(2000);
  t.after(() => { sb.dispose(); term.dispose(); });
  await write(term, numbered(1, 1500));
  assert.ok(sb.pendingLines() > 1000, `lines wait raw while output arrives: ${sb.pendingLines()}`);
  const rawBytes = sb.storeBytes();
  await waitFor(() => sb.pendingLines() === 0, { timeoutMs: 5000, message: 'encoded once quiet' });
  assert.ok(sb.storeBytes() < rawBytes, `encoded lines are compact: ${sb.storeBytes()} vs ${rawBytes} raw`);
  const v = sb.view();
  assert.equal(plainRow(v.at(0) as never).trim(), 'line 1 漢');
});

test('reading encodes pending lines first, so readers see every line in order', async (t) => {
  const { term, sb } = pane(2000);
  t.after(() => { sb.dispose(); term.dispose(); });
  await write(term, numbered(1, 600));
  assert.ok(sb.pendingLines() > 0);
  const v = sb.view();
  const seen: string[] = [];
  for (let i = 0; i < v.length; i++) seen.push(plainRow(v.at(i) as never).trim());
  assert.equal(sb.pendingLines(), 0, 'the read encoded them');
  assert.deepEqual(seen.slice(0, 3).map((l) => l.replace(/\s+/g, '')), ['line1漢', 'line2漢漢', 'line3漢漢漢']);
  assert.equal(seen.filter((l) => l.startsWith('line ')).length, 600);
});

test('lines the limit evicts during a flood are dropped raw, never encoded; the kept ones are the newest', async (t) => {
  const { term, sb } = pane(300);
  t.after(() => { sb.dispose(); term.dispose(); });
  await write(term, numbered(1, 5000));
  assert.ok(sb.pendingLines() <= 300, `the raw tier holds at most the limit: ${sb.pendingLines()}`);
  await waitFor(() => sb.pendingLines() === 0, { timeoutMs: 5000 });
  const v = sb.view();
  assert.equal(v.length, 300 + 5);
  assert.match(plainRow(v.at(0) as never), new RegExp(`^line ${5000 - 300 - 5 + 2}\\b`), 'the oldest kept line follows from the limit');
  assert.match(plainRow(v.at(v.length - 2) as never), /line 5000/);
});

test('output that keeps coming keeps encoding off; clear and dispose cancel the pending work', async (t) => {
  const { term, sb } = pane(2000);
  t.after(() => term.dispose());
  for (let k = 0; k < 6; k++) {
    await write(term, numbered(k * 100 + 1, k * 100 + 100));
    await new Promise((r) => setTimeout(r, QUIET_MS / 3));
  }
  assert.ok(sb.pendingLines() >= 500, `still raw while output arrives every ${Math.round(QUIET_MS / 3)} ms: ${sb.pendingLines()}`);
  await write(term, '\x1b[3J');
  sb.clearing();
  sb.dispose();
  assert.equal(sb.pendingLines(), 0);
});

test('output still waiting to be parsed keeps a pane from counting as quiet: its lines stay raw until it is parsed', async (t) => {
  const held = pane(2000);
  const control = pane(2000);
  t.after(() => { for (const p of [held, control]) { p.sb.dispose(); p.term.dispose(); } });
  held.sb.outputWaiting(true);
  await write(held.term, numbered(1, 800));
  await write(control.term, numbered(1, 800));
  // The control pane, written at the same moment, goes quiet and is encoded: the held one's timer fired as often.
  await waitFor(() => control.sb.pendingLines() === 0, { timeoutMs: 5000, message: 'the control pane encoded once quiet' });
  assert.ok(held.sb.pendingLines() > 700, `held: lines stay raw while more output waits (${held.sb.pendingLines()} pending)`);
  held.sb.outputWaiting(false);
  await waitFor(() => held.sb.pendingLines() === 0, { timeoutMs: 5000, message: 'encoded once its output is parsed and it is quiet' });
  assert.equal(plainRow(held.sb.view().at(0) as never).trim(), 'line 1 漢');
});
