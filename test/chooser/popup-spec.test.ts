// Popup sizes and arguments (core/popup-spec.ts): tmux's -w -h -d -T, percentages, clamping to the terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePopupArgs, popupRect } from '../../src/core/popup-spec.js';
import { parseCommand } from '../../src/core/commands.js';

test('arguments: flags, then the command (with or without --); -E is accepted', () => {
  assert.deepEqual(parsePopupArgs(['-w', '60', '-h', '50%', '-d', '/tmp', '-T', 'git', '-E', 'lazygit']), { ok: true, value: { width: 60, height: '50%', cwd: '/tmp', title: 'git', command: ['lazygit'] } });
  assert.deepEqual(parsePopupArgs(['--', '-w', 'x']), { ok: true, value: { command: ['-w', 'x'] } });
  assert.deepEqual(parsePopupArgs([]), { ok: true, value: {} });
  for (const bad of [['-w'], ['-w', '-5'], ['-h', '0'], ['-w', '101%'], ['-w', '2'], ['-h', 'big']]) assert.equal(parsePopupArgs(bad).ok, false, bad.join(' '));
});

test('placement: centred, percentages of the terminal, cut to fit, too small refused', () => {
  assert.deepEqual(popupRect({ cols: 100, rows: 30 }, '80%', '50%'), { outer: { x: 10, y: 7, w: 80, h: 15 }, inner: { cols: 78, rows: 13 } });
  assert.deepEqual(popupRect({ cols: 100, rows: 30 }, 10_000, 10_000), { outer: { x: 0, y: 0, w: 100, h: 30 }, inner: { cols: 98, rows: 28 } });
  assert.equal(popupRect({ cols: 2, rows: 30 }, 10, 10), undefined);
});

test('the prompt knows popup and display-popup, and refuses bad sizes there too', () => {
  const r = parseCommand('display-popup -w 40 -h 10 htop');
  assert.equal(r.ok && r.command.scope === 'client' && r.command.name, 'client.popup');
  assert.equal(parseCommand('popup -w nope').ok, false);
  const t = parseCommand('client.choose-tree sessions');
  assert.deepEqual(t.ok && t.command.scope === 'client' && t.command.args, ['sessions']);
  assert.equal(parseCommand('client.choose-tree panes').ok, false);
});
