// An overlay drawn by hand against what Ink drew for it, over cases x 3 themes x 4 colour levels: a recording
// (test/client/<name>.expected.json) made while it was still compared with Ink cell for cell, before the Ink components
// were deleted (commits 56bce34, 3a29a8d, 1fad428). CASTELLAN_RECORD_OVERLAYS=1 records again, from the code under test:
// only for a change meant to show. Only the window area counts: the bar is the chrome's.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composed } from '../../src/client/ui/chrome-lines.js';
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import { loadTheme } from '../../src/config/themes.js';
import { chromeProps } from './chrome-view.js';
import { cells, withLevel } from './screen-cells.js';
import { REPO } from './temp-env.js';

const THEMES = ['default', 'light', 'high-contrast'].map((n) => loadTheme(n, {}).theme);
type Expected = Record<string, { text: string[]; cells: Record<string, string> }>;

export const plainText = (lines: string[]): string[] => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));

/** Every cell drawn on a terminal, as a short digest (the cells themselves are ~2 000 per screen). */
async function digest(lines: string[], cols: number, rows: number): Promise<string> {
  return createHash('sha256').update((await cells(lines, cols, rows)).join('\n')).digest('hex').slice(0, 20);
}

export async function sameAsRecorded(name: string, cases: Array<[string, Partial<ChromeProps>]>, base: Partial<ChromeProps>): Promise<void> {
  const file = join(REPO, 'test', 'client', `${name}.expected.json`);
  const record = process.env.CASTELLAN_RECORD_OVERLAYS === '1';
  const want: Expected = record ? {} : JSON.parse(readFileSync(file, 'utf8'));
  for (const level of [0, 1, 2, 3] as const) {
    await withLevel(level, async () => {
      for (const theme of THEMES) for (const [what, over] of cases) {
        const p = chromeProps({ theme, ...base, ...over });
        const mine = composed(p);
        assert.ok(mine, `${what}: composed by hand`);
        assert.equal(mine.length, p.rows, `${what}: one line per row`);
        const at = `${theme.name}/${level}`;
        // The bar row is blanked on both sides: under an overlay Ink also drew the panes, and on a client narrower than
        // the window a frame's corner could show through the bar's end; by hand the bar row is the bar alone.
        const barRow = p.barAtTop ? 0 : p.rows - 1;
        const area = mine.map((l, y) => (y === barRow ? '' : l));
        const d = await digest(area, p.cols, p.rows);
        if (record) {
          want[what] ??= { text: [], cells: {} };
          if (at === 'default/3') want[what].text = plainText(area);
          want[what].cells[at] = d;
          continue;
        }
        assert.ok(want[what], `${what}: recorded`);
        if (at === 'default/3') assert.deepEqual(plainText(area), want[what].text, `${what}: the text Ink drew`);
        assert.equal(d, want[what].cells[at], `${what} (${at}): the cells Ink drew (colours and attributes; the text matched at default/3)`);
      }
    });
  }
  if (record) writeFileSync(file, JSON.stringify(want, null, 1) + '\n');
  else assert.deepEqual(Object.keys(want), cases.map(([w]) => w), 'every recorded case is drawn');
}
