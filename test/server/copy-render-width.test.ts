// Copy mode's corner indicator is right-aligned by its display width: ASCII without string-width, wide text with it once loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import stringWidth from 'string-width';
import { Screen } from '../../src/server/screen.js';
import { startCopy } from '../../src/server/copy-mode.js';
import { copyBufferOf, loadCopyWidth, renderCopy } from '../../src/server/copy-render.js';
import { CopyController } from '../../src/server/copy-controller.js';
import { write } from '../history/support.js';

const STYLES = { selection: '7', match: '4', current: '7;1', indicator: '7' };
const visible = (row: string) => stringWidth(row.replace(/\x1b\[[0-9;]*m/g, ''));

test('the copy indicator fills the top row to the pane width, for an ASCII position and for a wide search prompt', async (t) => {
  const s = new Screen({ cols: 30, rows: 4, scrollback: 100 });
  t.after(() => s.dispose());
  await write(s, 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n');
  const st = startCopy('p', copyBufferOf(s), 'vi');
  assert.equal(visible(renderCopy(s, st, STYLES).rows[0]), 30, 'the position indicator');
  // Entering copy mode (any op of the controller) starts the load; a prompt typed after it is measured by string-width.
  new CopyController(() => 'vi').apply('p', s, { op: 'enter' });
  await loadCopyWidth();
  const wide = renderCopy(s, { ...st, prompt: { backward: false, text: '漢字を検索' } }, STYLES).rows[0];
  assert.ok(wide.includes('/漢字を検索█'), JSON.stringify(wide));
  assert.equal(visible(wide), 30, 'five wide characters take ten cells');
});
