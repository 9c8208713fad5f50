// tmux's command names at the prompt and their flags (issue 30 item 6): one table (src/core/tmux-commands.ts), hostile lines too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommand } from '../../src/core/commands.js';
import { parseTmuxArgs, TMUX_COMMANDS, tmuxCommand, tmuxWords } from '../../src/core/tmux-commands.js';
import { emptyState, reduce } from '../../src/core/reducer.js';
import { panesOf } from '../../src/core/layout.js';
import { complete, recall, remember } from '../../src/client/prompt-line.js';

const action = (line: string) => {
  const r = parseCommand(line);
  assert.ok(r.ok, `${line}: ${r.ok ? '' : r.error}`);
  assert.equal(r.command.scope, 'server', line);
  return (r.command as { action: Record<string, unknown> }).action;
};
const client = (line: string) => {
  const r = parseCommand(line);
  assert.ok(r.ok, `${line}: ${r.ok ? '' : r.error}`);
  assert.equal(r.command.scope, 'client', line);
  return r.command as { name: string; args: string[] };
};
const error = (line: string) => {
  const r = parseCommand(line);
  assert.ok(!r.ok, `${line} should be refused`);
  return r.error;
};

test('split-window: -h right, -v and the default below (as tmux), -b before, -c -t -d -p -l N%, a quoted command', () => {
  assert.deepEqual(action('split-window -h'), { type: 'pane.split', direction: 'right' });
  assert.deepEqual(action('split-window'), { type: 'pane.split', direction: 'down' });
  assert.deepEqual(action('splitw -v'), { type: 'pane.split', direction: 'down' });
  assert.deepEqual(action('split-window -bh'), { type: 'pane.split', direction: 'left' });
  assert.deepEqual(action("split-window -dh -c '/tmp/a dir' -t w1:p2 -p 30 'vim foo'"), { type: 'pane.split', direction: 'right', pane: 'w1:p2', percent: 30, cwd: '/tmp/a dir', detached: true, command: ['vim foo'] });
  assert.deepEqual(action('split-window -c/tmp -l 25%'), { type: 'pane.split', direction: 'down', percent: 25, cwd: '/tmp' });
});

test('window, pane and layout words map onto the same actions as castellan\'s names', () => {
  assert.deepEqual(action('new-window -n build -c /src'), { type: 'window.new', name: 'build', cwd: '/src' });
  assert.deepEqual(action('neww -d make test'), { type: 'window.new', detached: true, command: ['make', 'test'] });
  assert.deepEqual(action('select-window -t 2'), { type: 'window.select', index: 2 });
  assert.deepEqual(action('selectw -t :3'), { type: 'window.select', index: 3 });
  assert.deepEqual(action('select-window -t w4'), { type: 'window.select', window: 'w4' });
  assert.deepEqual(action('next-window'), { type: 'window.select', relative: 'next' });
  assert.deepEqual(action('prev'), { type: 'window.select', relative: 'prev' });
  assert.deepEqual(action('last-window'), { type: 'window.select', relative: 'last' });
  assert.deepEqual(action('rename-window my build'), { type: 'window.rename', name: 'my build' });
  assert.equal(client('rename-window').name, 'client.prompt-rename-window');
  assert.deepEqual(action('kill-window -t w3'), { type: 'window.close', window: 'w3' });
  assert.deepEqual(action('killp'), { type: 'pane.close' });
  assert.deepEqual(action('select-pane -L'), { type: 'pane.focus', direction: 'left' });
  assert.deepEqual(action('selectp -t w1:p3'), { type: 'pane.focus', pane: 'w1:p3' });
  assert.deepEqual(action('resize-pane -L 5'), { type: 'pane.resize', direction: 'left', cells: 5 });
  assert.deepEqual(action('resizep -D'), { type: 'pane.resize', direction: 'down', cells: 1 });
  assert.deepEqual(action('resize-pane -Z'), { type: 'pane.zoom' });
  assert.deepEqual(action('swap-pane -U'), { type: 'pane.swap', with: 'prev' });
  assert.deepEqual(action('swapp -D'), { type: 'pane.swap', with: 'next' });
  assert.deepEqual(action('swap-pane -s w1:p1 -t w1:p2'), { type: 'pane.swap', pane: 'w1:p1', with: 'w1:p2' });
  assert.deepEqual(action('select-layout tiled'), { type: 'window.layout', name: 'tiled' });
  assert.deepEqual(action('select-layout -E'), { type: 'window.spread' });
  assert.deepEqual(action('rotate-window'), { type: 'window.rotate', direction: 'down' });
  assert.deepEqual(action('move-window -t 1'), { type: 'window.move', index: 1 });
  assert.deepEqual(client('send-keys -t w1:p2 "ls -la" Enter'), { scope: 'client', name: 'client.send-keys', args: ['w1:p2', 'keys', 'ls -la', 'Enter'], text: 'send-keys -t w1:p2 "ls -la" Enter' });
  assert.equal(client('copy-mode -u').args[0], 'page-up');
  assert.equal(client('display-message hello there').args[0], 'hello there');
  assert.equal(client('lsp').name, 'client.choose-tree');
});

test('hostile lines: unknown flags, missing values and arguments, huge numbers and names, control characters, bad targets', () => {
  assert.match(error('split-window -x'), /unknown flag -x/);
  assert.match(error('split-window -hv'), /not both/);
  assert.match(error('split-window -c'), /-c needs a value/);
  assert.match(error('split-window -l 30'), /-l N%/);
  assert.match(error('split-window -p 250'), /share/);
  assert.match(error('split-window -t %3'), /w1:p2/);
  assert.match(error('select-window'), /-t WINDOW/);
  assert.match(error('select-window -t 99999999999'), /window target/);
  assert.match(error('select-window -t x 2'), /too many arguments/);
  assert.match(error('resize-pane'), /-L, -R/);
  assert.match(error('resize-pane -L 99999'), /1 to 1000/);
  assert.match(error('resize-pane -L -5'), /1 to 1000/);
  assert.match(error('resize-pane -x 20'), /by cells/);
  assert.match(error('swap-pane'), /-U, -D/);
  assert.match(error('send-keys -t w1:p1'), /needs keys/);
  assert.match(error('rename-window ' + 'x'.repeat(300)), /at most 200/);
  assert.match(error('new-window -n ' + 'y'.repeat(300)), /at most 200/);
  assert.match(error('rename-session foo'), /--session NAME/);
  assert.match(error('split-window "unclosed'), /unclosed/);
  assert.match(error('source-file ~/.tmux.conf'), /own config files/);
  // a control character in a flag or a name is shown harmlessly in the error, never raw
  const e = error('split-window -\x1b[31m');
  assert.ok(!/[\x00-\x1f]/.test(e), JSON.stringify(e));
  assert.ok(!/[\x00-\x1f]/.test(error('no-such-\x07cmd')));
  // a name with control characters parses; the reducer's cleanName strips them (tested with the reducer)
  assert.equal(action('rename-window a\x01b').name, 'a\x01b');
  // a huge line is refused quickly, not hung on
  const t0 = Date.now();
  error('split-window ' + '-h '.repeat(50_000) + '-x');
  assert.ok(Date.now() - t0 < 2000, 'a 150 kB line is parsed in well under 2 s (an upper bound on a loaded machine)');
});

test('getopt as tmux: clusters, joined values, -- ends the flags, the first word ends them too', () => {
  const sk = tmuxCommand('send-keys')!;
  const r = parseTmuxArgs(sk, ['-lt', 'w1:p1', '--', '-n']);
  assert.ok(r.ok);
  assert.deepEqual(r.value, { flags: { l: true, t: 'w1:p1' }, args: ['-n'] });
  const r2 = parseTmuxArgs(sk, ['-t', 'w1:p1', 'ls', '-la']);
  assert.ok(r2.ok);
  assert.deepEqual(r2.value.args, ['ls', '-la']);
  assert.deepEqual(tmuxWords(`a 'b c' "d \\" e" f\\ g ''`), { ok: true, value: ['a', 'b c', 'd " e', 'f g', ''] });
  // every entry's names are unique, and none shadows a castellan prompt name
  const names = TMUX_COMMANDS.flatMap((c) => [c.name, ...c.aliases]);
  assert.equal(new Set(names).size, names.length);
});

test('the reducer: rotate-window moves every pane one place with focus staying in place; select-layout -E spreads; move-window', () => {
  const ctx = { now: 1, defaultCommand: ['/bin/sh'], defaultCwd: '/tmp' };
  let s = reduce(emptyState('main'), { type: 'server.init', cols: 120, rows: 40, command: ['sh'], cwd: '/' }, ctx).state;
  const run = (a: Record<string, unknown>) => {
    const r = reduce(s, a as never, ctx);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    s = r.state;
  };
  run({ type: 'pane.split', direction: 'right' });
  run({ type: 'pane.split', direction: 'right' });
  const w = () => s.windows[s.windowOrder[0]];
  assert.deepEqual(panesOf(w().layout), ['w1:p1', 'w1:p2', 'w1:p3']);
  assert.equal(w().active, 'w1:p3');
  run({ type: 'window.rotate', direction: 'down' });
  assert.deepEqual(panesOf(w().layout), ['w1:p3', 'w1:p1', 'w1:p2']);
  assert.equal(w().active, 'w1:p2', 'focus stays in the third place');
  run({ type: 'window.rotate', direction: 'up' });
  assert.deepEqual(panesOf(w().layout), ['w1:p1', 'w1:p2', 'w1:p3']);
  run({ type: 'pane.resize', pane: 'w1:p1', direction: 'right', cells: 20 });
  run({ type: 'window.spread' });
  const ratios = (n: { kind: string; ratio?: number; a?: unknown; b?: unknown }): number[] => (n.kind === 'leaf' ? [] : [n.ratio!, ...ratios(n.a as never), ...ratios(n.b as never)]);
  assert.deepEqual(ratios(w().layout as never).map((r) => Math.round(r * 100)), [33, 50]);
  run({ type: 'window.new' });
  run({ type: 'window.new' });
  run({ type: 'window.move', window: 'w3', index: 1 });
  assert.deepEqual(s.windowOrder, ['w3', 'w1', 'w2']);
  assert.deepEqual(s.windowOrder.map((id) => s.windows[id].index), [1, 2, 3]);
  run({ type: 'window.move', window: 'w3', index: 999 });
  assert.deepEqual(s.windowOrder, ['w1', 'w2', 'w3']);
});

test('prompt Tab completion: names (castellan\'s and tmux\'s), then a command\'s flags or words; history keeps lines across prompts', () => {
  assert.equal(complete('split-w'), 'split-window ');
  assert.equal(complete('resize-p'), 'resize-pane ');
  assert.equal(complete('pane.sp'), 'pane.split ');
  assert.equal(complete('pane.split r'), 'pane.split right ');
  const flag = complete('resize-pane -');
  assert.match(flag, /^resize-pane -[DLRUtxyZ]$/);
  assert.notEqual(complete(flag), flag, 'Tab again moves on to the next flag');
  assert.equal(complete('zzz'), 'zzz', 'nothing fits: the line stays');
  assert.equal(complete(''), complete(''), 'an empty line does not throw');
  remember('split-window -h');
  remember('select-window -t 2');
  const up1 = recall(undefined, -1, 'typed')!;
  assert.equal(up1.text, 'select-window -t 2');
  const up2 = recall(up1.at, -1, '')!;
  assert.equal(up2.text, 'split-window -h');
  assert.equal(recall(up2.at, 1, '')!.text, 'select-window -t 2');
  assert.equal(recall(undefined, 1, 'typed'), undefined, 'Down on the typed line: nothing newer');
  remember('x'.repeat(10_000));
  assert.equal(recall(undefined, -1, '')!.text, 'select-window -t 2', 'a huge line is not kept');
});
