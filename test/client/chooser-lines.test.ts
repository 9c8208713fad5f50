// The chooser drawn by hand (chooser/lines.ts through chrome-lines.ts) against what Ink's ChooserOverlay drew
// (recorded): every cell alike on a terminal over the chooser's states x colour levels x themes; and what hostile
// titles, messages and screens cannot do.
//
// Recorded (CASTELLAN_RECORD_OVERLAYS=1) in a run that also compared every case with Ink's ChooserOverlay cell for
// cell (commit 1fad428, the component's last): test/client/chooser-lines.expected.json is what Ink drew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooserInput, openChooser, withData, type ChooserSession, type ChooserState } from '../../src/client/chooser/index.js';
import { composed } from '../../src/client/ui/chrome-lines.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import { chromeProps } from '../support/chrome-view.js';
import { plainText, sameAsRecorded } from '../support/overlay-record.js';

const SESSIONS: ChooserSession[] = [
  { name: 'work', current: true, windows: [
    { id: 'w1', index: 1, name: 'agents', current: true, panes: [
      { id: 'w1:p1', title: 'bash', state: 'unknown', active: false },
      { id: 'w1:p2', title: 'claude', state: 'blocked', agent: 'claude', message: 'needs permission to rm -rf', active: true },
      { id: 'w1:p3', title: 'codex', state: 'working', agent: 'codex', active: false },
      { id: 'w1:p4', title: 'vim', state: 'unknown', exited: true, active: false },
    ] },
    { id: 'w2', index: 2, name: 'build', current: false, panes: [
      { id: 'w2:p5', title: 'make', state: 'done', agent: 'gemini', message: 'finished', active: true },
      ...Array.from({ length: 12 }, (_, i) => ({ id: `w2:p${6 + i}`, title: `shell ${i}`, state: (['idle', 'working', 'unknown'] as const)[i % 3], active: false })),
    ] },
  ] },
  { name: 'other', current: false, socket: '/tmp/other.sock', windows: [{ id: 'w1', index: 1, name: 'main', current: true, panes: [{ id: 'w1:p1', title: 'pi', state: 'idle', agent: 'pi', active: true }] }] },
  { name: 'gone', current: false, unreachable: true, windows: [] },
];
const LONG: ChooserSession[] = [{ name: 'a-session-name-that-is-far-too-long-for-any-column', current: true, windows: [
  { id: 'w1', index: 1, name: '漢字のウィンドウ名前がとても長い', current: true, panes: [
    { id: 'w1:p1', title: 'a pane title that runs past the head column and on', state: 'blocked', agent: 'a-very-long-agent-name', message: 'a report message so long that it cannot fit in the tail of any row 😀 at all', active: true },
    { id: 'w1:p2', title: '漢字😀漢字😀漢字😀漢字😀漢字😀漢字😀漢字😀漢字😀', state: 'done', active: false },
  ] },
] }];

const key = (k: string) => ({ type: 'key' as const, key: k, raw: k.length === 1 ? k : '' });
/** The chooser after loading `sessions` and typing `keys`, for a window area of `rows`. */
function drive(sessions: ChooserSession[], keys: string[], rows = 23, over: Partial<ChooserState> = {}): ChooserState {
  let s = withData(openChooser('windows'), sessions);
  for (const k of keys) s = chooserInput(s, key(k), rows).state ?? s;
  return { ...s, ...over };
}
const PREVIEW = { pane: 'w1:p2', lines: ['$ claude', 'Allow rm -rf build? (y/n)', 'a preview line far longer than the screen is wide, cut where it ends, '.repeat(4), '', ''] };
const local = (s: ChooserState): ChromeProps['local'] => ({ prefix: false, overlay: s });

const CASES: Array<[string, Partial<ChromeProps>]> = [
  ['loading', { local: local(openChooser('windows')) }],
  ['loading the sessions level', { local: local(openChooser('sessions')) }],
  ['the tree, cursor on the current pane', { local: local(drive(SESSIONS, [])) }],
  ['unfolded, with a preview', { local: local(drive(SESSIONS, ['Right'], 23, { preview: PREVIEW })) }],
  ['selection at the top', { local: local(drive(SESSIONS, ['Home'])) }],
  ['selection at the bottom (scrolled)', { local: local(drive(SESSIONS, ['Right', 'End'])) }],
  ['another session selected', { local: local(drive(SESSIONS, ['End'])) }],
  ['filtering, nothing typed', { local: local(drive(SESSIONS, ['/'])) }],
  ['a filter with matches', { local: local(drive(SESSIONS, ['/', 'c', 'l'])) }],
  ['a filter kept, needs me', { local: local(drive(SESSIONS, ['n', '/', 'c', 'Tab'])) }],
  ['a filter with no matches', { local: local(drive(SESSIONS, ['/', 'z', 'z', 'q'])) }],
  ['needs me', { local: local(drive(SESSIONS, ['n'])) }],
  ['a message', { local: local(drive(SESSIONS, [], 23, { message: 'other: not answering' })) }],
  ['long and wide names cut', { local: local(drive(LONG, ['Right'], 23, { preview: PREVIEW })) }],
  ['long names, 30 columns', { local: local(drive(LONG, ['Right'], 23)), cols: 30 }],
  ['20 columns', { local: local(drive(SESSIONS, ['Right'])), cols: 20 }],
  ['10 columns', { local: local(drive(SESSIONS, [])), cols: 10 }],
  ['wide', { local: local(drive(SESSIONS, ['Right'], 52, { preview: PREVIEW })), cols: 203, rows: 53 }],
  ['bar at the top', { local: local(drive(SESSIONS, ['Right', 'Down', 'Down'], 23, { preview: PREVIEW })), barAtTop: true }],
  ['11 rows: no preview yet', { local: local(drive(SESSIONS, ['Right', 'Down'], 10)), rows: 11 }],
  ['12 rows: the smallest preview', { local: local(drive(SESSIONS, ['Right', 'Down'], 11, { preview: PREVIEW })), rows: 12 }],
  ['short: 5 rows', { local: local(drive(SESSIONS, ['Down'], 4)), rows: 5 }],
];

test('the chooser drawn by hand is what Ink drew, cell for cell, in every state, colour level and theme', async () => {
  await sameAsRecorded('chooser-lines', CASES, {});
});

test('titles, names, messages and preview rows with control characters cannot move the cursor or misalign a row', () => {
  const bad: ChooserSession[] = [{ name: 'w\x1b[2J', current: true, windows: [{ id: 'w1', index: 1, name: 'n\x07\x9b', current: true, panes: [
    { id: 'w1:p1', title: 't\x1b]0;x\x07', state: 'blocked', agent: 'a\r\n', message: 'm\x1b[1;1H\x00', active: true },
  ] }] }];
  const s = drive(bad, ['Right', 'Down', 'Down'], 23, { preview: { pane: 'w1:p1', lines: ['\x1b[31mred\x1b[0m', 'x\ry', ''] }, message: undefined });
  const lines = composed(chromeProps({ local: local(s) }))!;
  assert.equal(lines.length, 24);
  const text = plainText(lines);
  for (const l of text) assert.doesNotMatch(l, /[\x00-\x1f\x7f-\x9f]/);
  for (const l of text.slice(0, 23)) assert.equal([...l].length, 80, JSON.stringify(l));
});

test('on screens shorter than the chooser it is cut, every cell of the window area its own', () => {
  for (const [rows, barAtTop] of [[4, false], [3, true], [2, false]] as const) {
    const lines = plainText(composed(chromeProps({ local: local(drive(SESSIONS, [], rows - 1)), rows, barAtTop }))!);
    assert.equal(lines.length, rows);
    const area = barAtTop ? lines.slice(1) : lines.slice(0, -1);
    for (const l of area) assert.equal([...l].length, 80);
    assert.match(area[0], /^ choose a pane/);
    assert.doesNotMatch(lines.join(''), /[╭╮│]/);
  }
});
