// opencode/Kilo in a narrow pane: the footer wraps its cells, so "esc interrupt" splits over two rows; the progress
// blocks still say working. Rows copied from a live Kilo 7.7.7 pane, 48 columns, in castellan (pane.read).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../src/detect/engine.js';
import { ruleSetFor } from '../../src/detect/rules.js';
import { builtin, snap } from './support.js';

const box = ['     ▣  Code · Mock Model', '  ┃', '  ┃', '  ┃', '  ┃  Code  · Mock Model Mock', `  ╹${'▀'.repeat(44)}`];

for (const agent of ['kilo', 'opencode']) {
  test(`${agent}: a wrapped working footer at 48 columns is still a busy marker; the same footer at rest is idle`, () => {
    const set = ruleSetFor(builtin(), agent);
    const working = evaluate(set, snap([...box, '   ■■⬝⬝⬝⬝⬝⬝  esc        120 (0%) ctrl+p', '             interrupt           commands'], { cols: 48 }));
    assert.deepEqual([working?.state, working?.rule, working?.busy], ['working', 'busy-footer', true]);
    const atRest = evaluate(set, snap([...box, '   /tmp/agent-lab.kilo.1MD0yD/   120 (0%) ctrl+p', '   work                               commands'], { cols: 48 }));
    assert.deepEqual([atRest?.state, atRest?.rule], ['idle', 'rejected'], 'a bare turn footer with no busy row: the turn was stopped');
  });
}
