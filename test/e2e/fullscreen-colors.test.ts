// E2E: full-screen programs (vim, less) draw inside their pane on the alternate screen, and colours reach the outer terminal intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { looksAttached, PROMPT_RE, startAttached, TermHarness } from '../support/term-harness.js';

test('vim -u NONE -N and less draw inside the pane; quitting brings the shell screen back', async (t) => {
  const env = tempEnvFor(t);
  writeFileSync(join(env.home, 'notes.txt'), 'VIM-LINE-ONE\nVIM-LINE-TWO\n');
  writeFileSync(join(env.home, 'long.txt'), Array.from({ length: 300 }, (_, i) => `LESS-${i + 1}`).join('\n') + '\n');
  const h = await startAttached(env, { cols: 100, rows: 30 });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  const p1 = await h.waitForFrame('p1', { where: (f) => f.w < 100 });
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('echo BEFORE-$((4*4))\r');
  await h.waitForText('BEFORE-16', { region: p2.inner });
  const shellBefore = await h.regionText(p2.inner);
  const p1Before = await h.regionText(p1.inner);

  h.write('vim -u NONE -N notes.txt\r');
  await h.waitForScreen(() => {
    const r = h.regionNow(p2.inner);
    return r[0] === 'VIM-LINE-ONE' && r[1] === 'VIM-LINE-TWO' && r[2] === '~' && r[r.length - 2] === '~' && /"notes\.txt"/.test(r[r.length - 1]);
  }, { message: 'vim fills p2: the file, ~ filler rows and its message line at the bottom of the pane' });
  assert.deepEqual(await h.regionText(p1.inner), p1Before, 'the other pane is untouched');
  await h.waitForCursor(p2.inner.left, p2.inner.top, { message: 'the cursor is on vim\'s cursor, top-left of the pane' });
  h.write('Gonew-$((2))\x1b');
  await h.waitForText('new-$((2))', { region: p2.inner, message: 'typing in insert mode shows in vim' });
  h.write(':q!\r');
  await h.waitForScreen(
    () => {
      const r = h.regionNow(p2.inner);
      const at = r.indexOf('$ vim -u NONE -N notes.txt');
      return r.includes('BEFORE-16') && at >= 0 && PROMPT_RE.test(r[at + 1] ?? '') && r.every((l) => !l.startsWith('VIM-LINE') && l !== '~');
    },
    { message: 'after :q! the shell screen is back (with a new prompt) and vim\'s screen is gone' },
  );
  const after = await h.regionText(p2.inner);
  const at = after.indexOf('BEFORE-16');
  assert.deepEqual(after.slice(at, at + 3), ['BEFORE-16', '$ vim -u NONE -N notes.txt', '$'], `the shell screen as it was, plus the vim command line:\n${after.join('\n')}`);
  assert.deepEqual(after.slice(0, at), shellBefore.slice(0, at), 'the lines above are unchanged');

  h.write('less long.txt\r');
  await h.waitForScreen(() => {
    const r = h.regionNow(p2.inner);
    return r[0] === 'LESS-1' && r[r.length - 2] === `LESS-${r.length - 1}`;
  }, { message: 'less shows a screenful of the file in p2' });
  h.write(' ');
  await h.waitForText(/^LESS-2\d$/, { region: { ...p2.inner, bottom: p2.inner.top + 1 }, message: 'space pages forward' });
  h.write('q');
  await h.waitForText('$ less long.txt', { region: p2.inner, message: 'less quit; the shell screen is back' });
  await h.waitForNoText(/LESS-\d/, { region: p2.inner });
  await h.waitForText('BEFORE-16', { region: p2.inner });
});

test('16-colour, 256-colour and truecolor SGR, bold and backgrounds survive to the outer screen', async (t) => {
  const env = tempEnvFor(t);
  // A script, so the typed command line never contains the words the test looks for.
  writeFileSync(
    join(env.home, 'colors.sh'),
    "printf '\\033[31mRED16\\033[0m \\033[38;5;196mPAL196\\033[0m \\033[38;2;10;200;30mRGBFG\\033[0m \\033[1;38;5;33mBOLD33\\033[0m \\033[48;5;22mBGPAL\\033[0m \\033[48;2;1;2;250mBGRGB\\033[0m PLAIN\\n'\n",
  );
  const h = await startAttached(env, { cols: 90, rows: 20 });
  const f = (await h.frames())[0];
  h.write('sh colors.sh\r');
  await h.waitForText('PLAIN', { region: f.inner });
  const at = async (word: string) => {
    const [m] = await h.find(word, f.inner);
    assert.ok(m, `${word} on screen`);
    return { first: await h.cellAt(m.x, m.y), last: await h.cellAt(m.x + word.length - 1, m.y), after: await h.cellAt(m.x + word.length, m.y) };
  };
  const red = await at('RED16');
  assert.deepEqual([red.first.fgMode, red.first.fg], ['palette', 1], 'SGR 31 is palette red');
  assert.deepEqual([red.last.fgMode, red.last.fg], ['palette', 1], 'the whole word is red');
  assert.equal(red.after.fgMode, 'default', 'SGR 0 resets');
  const pal = await at('PAL196');
  assert.deepEqual([pal.first.fgMode, pal.first.fg], ['palette', 196], '38;5;196');
  const rgb = await at('RGBFG');
  assert.deepEqual([rgb.first.fgMode, rgb.first.fg.toString(16)], ['rgb', (0x0ac81e).toString(16)], '38;2;10;200;30 stays truecolor');
  assert.deepEqual([rgb.last.fgMode, rgb.last.fg], ['rgb', 0x0ac81e]);
  const bold = await at('BOLD33');
  assert.deepEqual([bold.first.bold, bold.first.fgMode, bold.first.fg], [true, 'palette', 33], 'bold + 38;5;33');
  assert.equal(bold.after.bold, false, 'bold ends with SGR 0');
  const bgp = await at('BGPAL');
  assert.deepEqual([bgp.first.bgMode, bgp.first.bg, bgp.first.fgMode], ['palette', 22, 'default'], '48;5;22');
  assert.equal(bgp.after.bgMode, 'default', 'the background does not bleed past the word');
  const bgr = await at('BGRGB');
  assert.deepEqual([bgr.first.bgMode, bgr.first.bg], ['rgb', 0x0102fa], '48;2;1;2;250 stays truecolor');
  const plain = await at('PLAIN');
  assert.deepEqual([plain.first.fgMode, plain.first.bgMode, plain.first.bold], ['default', 'default', false], 'plain text after a reset');
});

test('reattaching while vim runs shows vim; quitting it afterwards restores the shell screen', async (t) => {
  const env = tempEnvFor(t);
  writeFileSync(join(env.home, 'notes.txt'), 'VIM-LINE-ONE\n');
  const h = await startAttached(env, { cols: 80, rows: 24 });
  const f = (await h.frames())[0];
  h.write('echo BEFORE-$((5*5))\r');
  await h.waitForText('BEFORE-25', { region: f.inner });
  h.write('vim -u NONE -N notes.txt\r');
  await h.waitForText(/^"notes\.txt"/, { region: f.inner, message: 'vim is up' });
  h.prefix('d');
  assert.equal((await h.waitForExit()).exitCode, 0);

  const h2 = TermHarness.start(env, { cols: 80, rows: 24 });
  await h2.waitForScreen((l) => looksAttached(l, { prompt: false }), { message: 'reattached' });
  await h2.waitForScreen(() => {
    const r = h2.regionNow(f.inner);
    return r[0] === 'VIM-LINE-ONE' && r[1] === '~' && r[r.length - 2] === '~';
  }, { message: 'vim\'s screen is shown on reattach, not the shell\'s' });
  assert.equal((await h2.find('BEFORE-25')).length, 0, 'the shell screen is hidden behind vim');
  h2.write(':q\r');
  await h2.waitForScreen(() => {
    const r = h2.regionNow(f.inner);
    return r.includes('BEFORE-25') && r.includes('$ vim -u NONE -N notes.txt') && !r.includes('~');
  }, { message: 'after :q the shell screen from before vim is back' });
});

test('wide characters (CJK, emoji) keep the pane borders and the text after them in place', async (t) => {
  const env = tempEnvFor(t);
  writeFileSync(join(env.home, 'wide.sh'), "printf '\\346\\274\\242\\345\\255\\227\\360\\237\\246\\200|AFTER\\n'\n");
  const h = await startAttached(env, { cols: 60, rows: 12 });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  const p1 = await h.waitForFrame('p1', { where: (f) => f.w < 60 });
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('sh wide.sh\r');
  const m = await h.waitForText('|AFTER', { region: p2.inner });
  assert.equal(m.x, p2.inner.left + 6, '漢字🦀 take six cells: the text after them starts at column 6 of the pane');
  const first = await h.cellAt(p2.inner.left, m.y);
  assert.deepEqual([first.char, first.width], ['漢', 2]);
  const crab = await h.cellAt(p2.inner.left + 4, m.y);
  assert.deepEqual([crab.char, crab.width], ['🦀', 2]);
  const row = (await h.screenText())[m.y];
  assert.equal((await h.cellAt(p2.x, m.y)).char, '│', 'p2\'s left border is in place on that row');
  assert.equal((await h.cellAt(p2.x + p2.w - 1, m.y)).char, '│', `p2's right border is in place on that row: ${row}`);
  assert.equal((await h.cellAt(p1.x + p1.w - 1, m.y)).char, '│', 'p1\'s right border too');
});
