// The web view's answer keys per agent, against the agents' own dialogs as captured in agent-lab (test/fixtures/screens):
// each row's approve key lands on the option the captured dialog has selected, and the rows that need more than one
// key say so. The keys themselves were checked against the real agents by test/web/answer-keys-lab.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANSWER_KEYS, DOWN, ENTER, ESC, KEY_GAP_MS, answerKeys, answerSequence, pressKeys } from '../../src/web/answer-keys.js';
import { fixture } from '../detect/support.js';

const rows = (rel: string) => fixture(rel).replace(/\n$/, '').split('\n');

/** Per agent: a captured blocked screen, the selected option Enter takes there, and the keys the page must press. */
const CASES: Array<{ agent: string; screen: string; selected: RegExp; approve: string[]; deny: string[]; beforeMessage: string[] }> = [
  { agent: 'claude', screen: 'claude/lab-160x45/blocked.txt', selected: /❯ 1\. Yes\s*$/m, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'claude', screen: 'claude/80x24/blocked.txt', selected: /❯ 1\. Yes\s*$/m, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  // Auto mode with no server-side check: "❯ No" is selected and "Yes" is the row below it.
  { agent: 'claude', screen: 'claude/auto-160x45/blocked-automode-fallback.txt', selected: /❯ No\s*\n\s*Yes/, approve: [DOWN, ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'claude', screen: 'claude/auto-80x24/blocked-automode-fallback.txt', selected: /❯ No\s*\n\s*Yes/, approve: [DOWN, ENTER], deny: [ESC], beforeMessage: [ESC] },
  // The step before it ("Enter to stay in auto mode"): Enter stays and the dialog above follows.
  { agent: 'claude', screen: 'claude/auto-160x45/blocked-automode-unavailable.txt', selected: /Enter to stay in auto mode/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'codex', screen: 'codex/lab-160x45/blocked.txt', selected: /› 1\. Yes, proceed \(y\)/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'gemini', screen: 'gemini/160x45/blocked.txt', selected: /● 1\. Allow once/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'qwen', screen: 'qwen/lab-160x45/blocked.txt', selected: /› 1\. Yes, allow once/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'copilot', screen: 'copilot/lab-160x45/blocked.txt', selected: /❯ 1\. Yes\s/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  { agent: 'opencode', screen: 'opencode/lab-160x45/blocked.txt', selected: /Allow once {3}Allow always {3}Reject/, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
  // Kilo's Esc opens "Tell Kilo what to do differently": Enter confirms it empty, or the message is typed there.
  { agent: 'kilo', screen: 'kilo/lab-160x45/blocked.txt', selected: /Allow once {3}Allow always {3}Reject/, approve: [ENTER], deny: [ESC, ENTER], beforeMessage: [ESC] },
  { agent: 'pi', screen: 'pi/160x45/blocked.txt', selected: /→ Yes\s*$/m, approve: [ENTER], deny: [ESC], beforeMessage: [ESC] },
];

for (const c of CASES) {
  test(`${c.agent} (${c.screen}): approve ${JSON.stringify(c.approve)}, deny ${JSON.stringify(c.deny)}`, () => {
    const screen = rows(c.screen);
    assert.match(screen.join('\n'), c.selected, 'the captured dialog is the one this row is about');
    const keys = answerKeys(c.agent, screen);
    assert.deepEqual(answerSequence(keys, 'approve'), c.approve);
    assert.deepEqual(answerSequence(keys, 'deny'), c.deny);
    assert.deepEqual(answerSequence(keys, 'deny', true), c.beforeMessage);
  });
}

test('every agent in the table has a checked screen above, and an unknown agent gets Enter / Escape', () => {
  assert.deepEqual([...new Set(CASES.map((c) => c.agent))].sort(), Object.keys(ANSWER_KEYS).sort());
  assert.deepEqual(answerSequence(answerKeys('someone-new'), 'approve'), [ENTER]);
  assert.deepEqual(answerSequence(answerKeys('someone-new'), 'deny'), [ESC]);
  assert.deepEqual(answerSequence(answerKeys(undefined, ['❯ No', '  Yes']), 'approve'), [ENTER], 'variants belong to their agent');
  assert.deepEqual(answerSequence(answerKeys('__proto__'), 'approve'), [ENTER]);
  assert.deepEqual(answerSequence(answerKeys('claude'), 'approve'), [ENTER], 'no screen: the row itself');
});

test('a screen that only looks like the fallback dialog somewhere else does not move the selection', () => {
  // "No" and "Yes" on their own lines in the agent's text, not a selected "❯ No" above "Yes".
  assert.deepEqual(answerSequence(answerKeys('claude', [' Do you want to proceed?', ' ❯ 1. Yes', '   4. No', ' Yes']), 'approve'), [ENTER]);
  assert.deepEqual(answerSequence(answerKeys('claude', ['  No', '  Yes']), 'approve'), [ENTER]);
});

test('pressKeys: the first key at once, each next one a gap later (a lone Escape is not read as Alt+Enter)', async () => {
  const writes: Array<[string, number]> = [];
  const t0 = Date.now();
  const done = pressKeys((d) => void writes.push([d, Date.now() - t0]), [ESC, ENTER], 120);
  assert.deepEqual(writes.map((w) => w[0]), [ESC], 'the first key is written before pressKeys yields');
  await done;
  assert.deepEqual(writes.map((w) => w[0]), [ESC, ENTER]);
  assert.ok(writes[1]![1] - writes[0]![1] >= 100, `gap ${writes[1]![1] - writes[0]![1]} ms`);
  assert.ok(KEY_GAP_MS >= 100 && KEY_GAP_MS <= 1000);
});
