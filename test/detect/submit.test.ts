// An Enter typed into an idle agent pane: a submitted prompt reads working at once; anything else changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDetector, type Reading } from '../../src/detect/detector.js';
import { inputText } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { DIALOG_SETTLED_MS, SUBMIT_WINDOW_MS } from '../../src/detect/submit.js';
import { builtin, snap } from './support.js';

const RULE = '─'.repeat(40);
/** Claude's screen: transcript rows, then the input box holding `box`, then its footer. */
const claude = (box: string, above: string[] = ['● Hello from the mock model.']) => snap([...above, RULE, `❯ ${box}`, RULE, '  ⏸ manual mode on'], { title: '✳ Claude Code' });
const SPINNER = claude('', ['❯ Please fix it', '✶ Waddling…']);
const CLAUDE = () => ruleSetFor(builtin(), 'claude');

/** A detector that came to rest on an empty Claude box at t=0 and saw `typed` echoed at t=1000. */
function resting(typed: string) {
  const det = createDetector(CLAUDE(), { agent: 'claude' });
  det.update(claude(''), 0);
  det.tick(1000);
  assert.equal(det.current()?.state, 'idle');
  const screen = claude(typed);
  det.update(screen, 1000, { input: true });
  return { det, screen };
}

test('the input box text of each agent with a [submit] table', () => {
  assert.equal(inputText(CLAUDE(), claude('Please answer SLOW')), 'Please answer SLOW');
  assert.equal(inputText(CLAUDE(), claude('')), '');
  const gemini = ruleSetFor(builtin(), 'gemini');
  const box = (t: string) => ['▄'.repeat(40), ` > ${t}`, '▀'.repeat(40)];
  // the transcript draws earlier prompts in the same box: the input box is the last one
  assert.equal(inputText(gemini, snap([...box('Please THINK again'), 'ℹ Request cancelled.', ...box('Please RUN: x'), ' workspace'])), 'Please RUN: x');
  const codex = ruleSetFor(builtin(), 'codex');
  assert.equal(inputText(codex, snap(['› Please run TOOL', '• Working (0s • esc to interrupt)', '› Ask Codex to do anything', '  mock-model default'])), 'Ask Codex to do anything');
  assert.equal(inputText(ruleSetFor(builtin(), 'generic'), claude('x')), undefined, 'no [submit]: never read');
});

test('an Enter with typed text reads working at once and holds it until the agent draws the turn', () => {
  const { det, screen } = resting('Please fix it');
  const r = det.input('\r', screen, 1100);
  assert.equal(r?.state, 'working');
  assert.equal(r?.changed, true);
  assert.equal(r?.definitive, true, 'a definitive reading: it ends a hook\'s done of the last turn at once');
  // the agent is slow to redraw: the box still holds the prompt, then a half-drawn frame, then the box cleared
  assert.equal(det.update(screen, 1500).state, 'working');
  assert.equal(det.update(snap(['garbage']), 1700).state, 'working');
  assert.equal(det.update(claude(''), 1900).state, 'working');
  assert.equal(det.tick(2500), undefined);
  // the spinner: the agent has caught up, the ordinary rules go on from here
  assert.equal(det.update(SPINNER, 2600).state, 'working');
  const end = det.update(claude(''), 3000);
  assert.equal(end.state, 'working', 'the input box after the spinner waits its hold as always');
  assert.equal(det.tick(4000)?.state, 'idle');
});

test('a turn the agent never shows ends with the window', () => {
  const { det, screen } = resting('Please fix it');
  det.input('\r', screen, 1100);
  assert.equal(det.tick(1100 + SUBMIT_WINDOW_MS - 1), undefined);
  const at = det.nextTickAt();
  assert.ok(at !== undefined && at <= 1100 + SUBMIT_WINDOW_MS, 'a timer for the window\'s end');
  let r: Reading | undefined;
  for (let t = 1100 + SUBMIT_WINDOW_MS; t < 1100 + SUBMIT_WINDOW_MS + 2000 && !r; t += 50) r = det.tick(t);
  assert.equal(r?.state, 'idle');
});

test('an Enter that sends nothing to the model changes nothing', () => {
  for (const [what, typed, data] of [
    ['an empty box', '', '\r'],
    ['a slash command', '/model', '\r'],
    ['a bash line', '!ls', '\r'],
    ['the shortcuts help', '?', '\r'],
    ['a file mention being completed', 'look at @src/ma', '\r'],
    ['a trailing backslash (a new line)', 'first line \\', '\r'],
    ['text and Enter in one burst (a paste)', 'Please fix it', 'Please fix it\r'],
    ['another key', 'Please fix it', '\t'],
  ] as const) {
    const { det, screen } = resting(typed);
    assert.equal(det.input(data, screen, 1100), undefined, what);
    assert.equal(det.current()?.state, 'idle', what);
  }
});

test('the text the box held when the turn ended is not typed (a placeholder, a prompt left there)', () => {
  const det = createDetector(CLAUDE(), { agent: 'claude' });
  det.update(claude('Try "refactor <filepath>"'), 0);
  det.tick(1000);
  assert.equal(det.current()?.state, 'idle');
  assert.equal(det.input('\r', claude('Try "refactor <filepath>"'), 1100), undefined);
});

test('an Enter at a dialog or during a turn is not a prompt', () => {
  const det = createDetector(CLAUDE(), { agent: 'claude' });
  det.update(SPINNER, 0);
  det.update(SPINNER, 100);
  assert.equal(det.current()?.state, 'working');
  assert.equal(det.input('\r', claude('more text', ['✶ Waddling…']), 150), undefined);
  const dialog = snap([' Bash command', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No']);
  det.update(dialog, 200);
  assert.equal(det.current()?.state, 'blocked');
  assert.equal(det.input('\r', dialog, 300), undefined);
});

test('the last turn\'s end still on screen does not end a submitted prompt\'s window', () => {
  // Gemini clears its box before it draws the turn: its answer above the box under "◇ Ready" is still a definitive done
  const gemini = ruleSetFor(builtin(), 'gemini');
  const screen = (box: string) => snap(['✦ Hello from the mock model.', '─'.repeat(40), '▄'.repeat(40), ` > ${box}`, '▀'.repeat(40), ' workspace'], { title: '◇  Ready (work)' });
  const det = createDetector(gemini, { agent: 'gemini' });
  det.update(screen('  Type your message or @path/to/file'), 0);
  assert.equal(det.current()?.state, 'done');
  det.update(screen('Please fix it'), 1000, { input: true });
  assert.equal(det.input('\r', screen('Please fix it'), 1400)?.state, 'working');
  assert.equal(det.update(screen('  Type your message or @path/to/file'), 1450).state, 'working');
  assert.equal(det.tick(2000), undefined);
});

const DIALOG = (selected: 1 | 2) => snap([' Bash command', '   touch x', ' Do you want to proceed?', `${selected === 1 ? ' ❯' : '  '} 1. Yes`, `${selected === 2 ? ' ❯' : '  '} 2. No`, ' Esc to cancel · Tab to amend'], { title: '✳ Claude Code' });

/** A detector showing Claude's permission prompt since t=0. */
function dialog(selected: 1 | 2) {
  const det = createDetector(CLAUDE(), { agent: 'claude' });
  det.update(DIALOG(selected), 0);
  assert.equal(det.current()?.state, 'blocked');
  return det;
}

test('an Enter on a dialog\'s approving option reads working at once and holds it while the dialog is erased', () => {
  const det = dialog(1);
  assert.equal(det.input('\r', DIALOG(1), DIALOG_SETTLED_MS + 10)?.state, 'working');
  assert.equal(det.update(DIALOG(1), DIALOG_SETTLED_MS + 200).state, 'working', 'the dialog still drawn: the same dialog, answered');
  assert.equal(det.update(SPINNER, DIALOG_SETTLED_MS + 300).state, 'working');
});

test('an Enter on "No", or on a dialog drawn a moment ago, is no approval', () => {
  assert.equal(dialog(2).input('\r', DIALOG(2), DIALOG_SETTLED_MS + 10), undefined, '"No" selected');
  assert.equal(dialog(1).input('\r', DIALOG(1), DIALOG_SETTLED_MS - 10), undefined, 'Claude ignores an Enter the instant its dialog opens');
  assert.equal(dialog(1).input('\x1b', DIALOG(1), DIALOG_SETTLED_MS + 10), undefined, 'Esc');
});

test('an approval the agent never acts on ends with the window: the dialog reads blocked again', () => {
  const det = dialog(1);
  det.input('\r', DIALOG(1), DIALOG_SETTLED_MS);
  let r: Reading | undefined;
  for (let t = DIALOG_SETTLED_MS + 50; t < DIALOG_SETTLED_MS + SUBMIT_WINDOW_MS + 500 && !r; t += 50) r = det.update(DIALOG(1), t).changed ? det.current() : undefined;
  assert.equal(r?.state, 'blocked');
  assert.ok(r!.at >= DIALOG_SETTLED_MS + SUBMIT_WINDOW_MS);
});

test('an approved tool too fast for a working frame still comes to rest: the erased dialog ends the window', () => {
  // live pi: the tool ran 40 ms after the Enter and no working frame was drawn; the badge held working for 3 s
  const det = dialog(1);
  assert.equal(det.input('\r', DIALOG(1), DIALOG_SETTLED_MS + 10)?.state, 'working');
  const rest = claude('', ['● Done: touched x.']);
  assert.equal(det.update(rest, DIALOG_SETTLED_MS + 60).state, 'working', 'a rest screen waits its hold as always');
  let r: Reading | undefined;
  for (let t = DIALOG_SETTLED_MS + 100; t < DIALOG_SETTLED_MS + 1000 && !r; t += 20) r = det.tick(t);
  assert.ok(r && (r.state === 'idle' || r.state === 'done'), `came to rest: ${r?.state}`);
  assert.ok(r!.at < DIALOG_SETTLED_MS + 600, `within the screen's rest target, not the ${SUBMIT_WINDOW_MS} ms window (${r!.at})`);
});
