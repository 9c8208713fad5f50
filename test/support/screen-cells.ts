// Lines of chrome drawn on a terminal, read back cell by cell: how the hand-drawn chrome and overlays are proven alike
// to Ink's (and to what Ink drew, recorded) at every colour level.
import assert from 'node:assert/strict';
import chalk from 'chalk';
import xterm from '@xterm/headless';

/** Every cell of the lines drawn on a terminal, as text: character, fg, bg and attributes. */
export async function cells(lines: string[], cols: number, rows: number): Promise<string[]> {
  // Wider than the client: where Ink overflows a narrower client (it does not clip), only the client's columns count;
  // with autowrap off (DECAWM), a row wider still cannot spill onto the next (Ink's 80-column panes on a 10-column one).
  const t = new xterm.Terminal({ cols: cols + 60, rows, allowProposedApi: true });
  try {
    await new Promise<void>((r) => t.write('\x1b[?7l' + lines.map((l, y) => `\x1b[${y + 1};1H\x1b[0m${l}\x1b[0m`).join(''), r));
    const out: string[] = [];
    const buf = t.buffer.active;
    const cell = buf.getNullCell();
    for (let y = 0; y < rows; y++) {
      const line = buf.getLine(y);
      for (let x = 0; x < cols; x++) {
        line?.getCell(x, cell);
        out.push(`${y},${x}:${JSON.stringify(cell.getChars() || ' ')}/${cell.getWidth()} fg${cell.getFgColorMode()}.${cell.getFgColor()} bg${cell.getBgColorMode()}.${cell.getBgColor()} b${+!!cell.isBold()}d${+!!cell.isDim()}i${+!!cell.isItalic()}u${+!!cell.isUnderline()}r${+!!cell.isInverse()}`);
      }
    }
    return out;
  } finally {
    t.dispose();
  }
}

/** Asserts two renderings put the same thing in every cell of a cols x rows screen. */
export async function sameCells(mine: string[], theirs: string[], cols: number, rows: number, what: string): Promise<void> {
  const [a, b] = await Promise.all([cells(mine, cols, rows), cells(theirs, cols, rows)]);
  const diff = a.findIndex((c, i) => c !== b[i]);
  assert.equal(diff, -1, `${what}: first differing cell\n  composed ${a[diff]}\n  ink      ${b[diff]}`);
}

export const withLevel = async (level: 0 | 1 | 2 | 3, f: () => Promise<void>): Promise<void> => {
  const was = chalk.level;
  chalk.level = level;
  try {
    await f();
  } finally {
    chalk.level = was;
  }
};
