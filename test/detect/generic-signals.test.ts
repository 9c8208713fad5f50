// The generic reader (issue 29): OSC 9;4, bells, notifications and titles through a real Screen, hostile input included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen } from '../../src/server/screen.js';
import { GenericReader, isGenericProgram, noteProgress, readSignals, type TerminalSignals } from '../../src/detect/generic-signals.js';

const fresh = (): TerminalSignals => ({ seq: 0, progress: 0, progressSeq: 0, bellSeq: 0, notifySeq: 0, titleSeq: 0 });

async function screenWith(...chunks: string[]): Promise<Screen> {
  const s = new Screen({ cols: 80, rows: 24, scrollback: 100 });
  for (const c of chunks) await new Promise<void>((res) => s.write(c, res));
  return s;
}

const read = (s: Screen, r = new GenericReader()) => r.read(s.snapshot())?.rule;

test('OSC 9;4 progress: busy while set, gone when cleared; paused needs you', async () => {
  const s = await screenWith('\x1b]9;4;3\x07');
  try {
    assert.equal(read(s), 'generic.osc9-4');
    await new Promise<void>((res) => s.write('\x1b]9;4;1;42\x1b\\', res));
    assert.equal(read(s), 'generic.osc9-4');
    await new Promise<void>((res) => s.write('\x1b]9;4;4;42\x07', res));
    assert.equal(read(s), 'generic.osc9-4-paused');
    await new Promise<void>((res) => s.write('\x1b]9;4;0\x07', res));
    assert.equal(read(s), undefined);
  } finally { s.dispose(); }
});

test('a bell or a notification needs you until the user types or the program goes on by itself', async () => {
  const s = await screenWith('hello\x07');
  try {
    const r = new GenericReader();
    assert.equal(read(s, r), 'generic.bell');
    r.ackSeq = s.signalSeq; // what DetectionLoop.noteInput does
    assert.equal(read(s, r), undefined);
    await new Promise<void>((res) => s.write('\x1b]777;notify;agent;waiting for you\x07', res));
    assert.equal(read(s, r), 'generic.notify');
    await new Promise<void>((res) => s.write('\x1b]9;4;3\x07', res)); // progress after the notification: it went on
    assert.equal(read(s, r), 'generic.osc9-4');
    await new Promise<void>((res) => s.write('\x1b]9;4;0\x07\x1b]9;Build finished\x07', res));
    assert.equal(read(s, r), 'generic.notify');
  } finally { s.dispose(); }
});

test('titles: a spinner or "working" is busy, "needs input" needs you, the title at rest after spinning is the prompt back', async () => {
  const s = await screenWith('\x1b]0;⠙ fixing the build\x07');
  try {
    const r = new GenericReader();
    assert.equal(read(s, r), 'generic.title-spinner');
    await new Promise<void>((res) => s.write('\x1b]2;myagent\x07', res));
    assert.equal(read(s, r), 'generic.title-rest');
    assert.equal(read(s), undefined, 'a title that never spun says nothing');
    await new Promise<void>((res) => s.write('\x1b]2;myagent: Action Required\x07', res));
    assert.equal(read(s, r), 'generic.title-needs-you');
    await new Promise<void>((res) => s.write('\x1b]2;◐︎ Qwen - work\x07', res));
    assert.equal(read(s, r), 'generic.title-spinner', 'a variation selector after the glyph');
  } finally { s.dispose(); }
});

test('a question with its approving option selected needs you; the same words in prose do not', () => {
  const r = new GenericReader();
  const snap = (lines: string[]) => ({ title: '', lines });
  assert.equal(r.read(snap(['Do you want to proceed?', '❯ 1. Yes', '  2. No']))?.rule, 'generic.dialog');
  assert.equal(r.read(snap(['│ Allow execution of [Shell]?      │', '│                                 │', '│ ● 1. Allow once                 │']))?.rule, 'generic.dialog');
  assert.equal(r.read(snap(['  ┃   Allow once   Allow always   Reject']))?.rule, 'generic.dialog');
  assert.equal(r.read(snap(['Should I proceed?', 'Yes, I will.']))?.rule, undefined);
});

test('malformed OSC 9;4 payloads change nothing', () => {
  for (const bad of ['4;9', '4;1;abc', '4x', '4;;', '4;1;' + '9'.repeat(40), '44;1', '']) {
    const sig = fresh();
    assert.equal(noteProgress(sig, bad), false, JSON.stringify(bad));
    assert.deepEqual(sig, fresh());
  }
  const sig = fresh();
  assert.equal(noteProgress(sig, '4'), true);
  assert.equal(sig.progress, 0);
});

test('hostile: floods of OSC 9;4, bells and titles, huge titles and control characters stay cheap and bounded', async () => {
  const flood = ('\x1b]9;4;3\x07\x07\x1b]0;⠙ x\x07\x1b]9;4;zz\x07\x1b]9;4;1;' + '9'.repeat(5000) + '\x07').repeat(2000);
  const huge = '\x1b]0;' + '\u0001\u0007'.slice(0, 1) + 'A'.repeat(200_000) + ' action required\x07';
  const t0 = performance.now();
  const s = await screenWith(flood, huge, '\x1b]777;notify;' + 'x'.repeat(100_000) + '\x07');
  try {
    const ms = performance.now() - t0;
    assert.ok(ms < 5000, `flood parsed in ${ms} ms`);
    const snap = s.snapshot();
    assert.ok(snap.title.length <= 1024 && !/[\u0000-\u001f]/.test(snap.title), 'title capped and clean');
    assert.equal(snap.signals.progress, 3, 'the last well-formed progress state ("zz" and a 5000-digit percent ignored)');
    const t1 = performance.now();
    const r = new GenericReader();
    for (let i = 0; i < 1000; i++) r.read(snap);
    assert.ok(performance.now() - t1 < 1000, 'the reader is cheap on a capped title');
    assert.equal(r.read(snap)?.rule, 'generic.notify');
  } finally { s.dispose(); }
});

test('readSignals without signals (a snapshot from elsewhere) reads only the title', () => {
  assert.equal(readSignals({ signals: undefined, title: '', ackSeq: 0 }), undefined);
  assert.equal(readSignals({ signals: undefined, title: '✦  Working… (work)', ackSeq: 0 })?.rule, 'generic.title-working');
});

test('never a shell, a pager or an editor; never over a known agent', () => {
  assert.equal(isGenericProgram('none', undefined, 'myagent', true), true);
  assert.equal(isGenericProgram('none', undefined, 'node', true), true);
  for (const comm of ['less', 'man', 'vim', 'nvim', 'htop', 'ssh', 'tmux']) assert.equal(isGenericProgram('none', undefined, comm, true), false, comm);
  assert.equal(isGenericProgram('shell', undefined, 'bash', true), false);
  assert.equal(isGenericProgram('process', 'claude', 'claude', true), false);
  assert.equal(isGenericProgram('none', undefined, undefined, false), false, 'no process information');
});
