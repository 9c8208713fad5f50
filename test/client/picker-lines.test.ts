// The agent picker drawn by hand (picker-lines.ts through chrome-lines.ts) against what Ink's AgentPicker drew
// (recorded): every cell alike on a terminal over the picker's states x colour levels x themes; and what a hostile
// agent definition cannot do.
//
// Recorded (CASTELLAN_RECORD_OVERLAYS=1) in a run that also compared every case with Ink's AgentPicker cell for cell
// (commit 3a29a8d, the component's last): test/client/picker-lines.expected.json is what Ink drew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composed } from '../../src/client/ui/chrome-lines.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import type { PickerAgent } from '../../src/client/ui-state.js';
import { chromeProps } from '../support/chrome-view.js';
import { plainText, sameAsRecorded } from '../support/overlay-record.js';

const agent = (i: number, over: Partial<PickerAgent> = {}): PickerAgent => ({
  name: `agent-${i}`, description: `Does task number ${i}`, command: `claude --agent a${i}`, source: i % 3 ? 'user' : 'project', startable: i % 4 !== 3, ...(i % 4 === 3 ? { reason: `.castellan/agents/a${i}.md is not trusted` } : {}), ...over,
});
const MANY = Array.from({ length: 30 }, (_, i) => agent(i));
const FEW = [agent(0), agent(1), agent(3)];
const LONG = [
  agent(0, { name: 'a-definition-name-far-longer-than-the-column', description: 'A description that runs far past the right edge of any terminal this is drawn on, and then some more' }),
  agent(1, { name: '漢字のエージェント', description: '漢字の説明 😀 with wide characters' }),
  agent(2, { name: 'x', command: 'a command line that is long enough to be cut in the footer of a narrow terminal --flag --other-flag' }),
];
const picker = (over: Partial<{ items: PickerAgent[]; index: number; loading: boolean; message: string }> = {}): ChromeProps['local'] =>
  ({ prefix: false, overlay: { kind: 'agents', items: FEW, index: 0, loading: false, ...over } });

/** The picker's states (what the brief asks to be proven): loading, empty, selection at the top and bottom, scrolled, messages, long names, small screens. */
const CASES: Array<[string, Partial<ChromeProps>]> = [
  ['loading', { local: picker({ items: [], loading: true }) }],
  ['no definitions', { local: picker({ items: [] }) }],
  ['selection at the top', { local: picker() }],
  ['an untrusted one selected', { local: picker({ index: 2 }) }],
  ['a message', { local: picker({ index: 2, message: 'agent-3 cannot start: .castellan/agents/a3.md is not trusted' }) }],
  ['an empty message', { local: picker({ message: '' }) }],
  ['many, selection at the top', { local: picker({ items: MANY }) }],
  ['many, selection at the bottom (scrolled)', { local: picker({ items: MANY, index: 29 }) }],
  ['many, selection just past a page', { local: picker({ items: MANY, index: 21 }) }],
  ['long and wide names cut', { local: picker({ items: LONG, index: 1 }) }],
  ['long names, 30 columns', { local: picker({ items: LONG, index: 2 }), cols: 30 }],
  ['10 columns', { local: picker({ items: MANY, index: 3 }), cols: 10 }],
  ['1 column', { local: picker(), cols: 1 }],
  ['wide', { local: picker({ items: MANY, index: 12 }), cols: 203, rows: 53 }],
  ['bar at the top', { local: picker({ items: MANY, index: 25 }), barAtTop: true }],
  ['short: 5 rows', { local: picker({ items: MANY, index: 4 }), rows: 5 }],
  ['short: 5 rows, loading', { local: picker({ items: [], loading: true }), rows: 5, barAtTop: true }],
];

test('the agent picker drawn by hand is what Ink drew, cell for cell, in every state, colour level and theme', async () => {
  await sameAsRecorded('picker-lines', CASES, {});
});

test('names, descriptions, commands and reasons with control characters cannot move the cursor or misalign a row', () => {
  const bad = [
    agent(0, { name: 'evil\x1b[2J', description: 'desc\r\n\x9b31m\x07', command: 'rm\x1b]0;t\x07 -rf' }),
    agent(3, { name: '\x00\x01', reason: 'untrusted\x1b[1;1H' }),
  ];
  for (const [index, message] of [[0, undefined], [1, undefined], [0, 'msg\x1b[H']] as const) {
    const lines = composed(chromeProps({ local: picker({ items: bad, index, ...(message ? { message } : {}) }) }))!;
    assert.equal(lines.length, 24);
    const text = plainText(lines);
    for (const l of text) assert.doesNotMatch(l, /[\x00-\x1f\x7f-\x9f]/);
    for (const l of text.slice(0, 23)) assert.equal([...l].length, 80, JSON.stringify(l));
  }
});

test('on screens shorter than the picker it is cut, every cell of the window area its own (where Ink let the panes show through)', () => {
  for (const [rows, barAtTop] of [[4, false], [3, true], [2, false]] as const) {
    const lines = plainText(composed(chromeProps({ local: picker({ items: MANY, index: 2 }), rows, barAtTop }))!);
    assert.equal(lines.length, rows);
    const area = barAtTop ? lines.slice(1) : lines.slice(0, -1);
    for (const l of area) assert.equal([...l].length, 80);
    assert.match(area[0], /^ launch an agent/);
    assert.doesNotMatch(lines.join(''), /[╭╮│]/);
  }
});
