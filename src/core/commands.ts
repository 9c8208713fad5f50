// The table of bindable commands ("pane.split right"): what keys and the command prompt can run.
// zod-free, so the attached client loads no zod: the parsers build well-formed actions (typed against the schema's
// input type) and check its limits (action-limits.ts); the server parses every action with actionSchema at its socket.
import { isPaneId } from '../platform/pane-id.js';
import { NAME_MAX, RESIZE_CELLS_MAX, WINDOW_INDEX_MAX } from './action-limits.js';
import type { Action, ActionType } from './actions.js';
import { LAYOUT_NAMES, type LayoutName } from './layout-presets.js';
import { parsePopupArgs } from './popup-spec.js';
import type { Direction } from './types.js';
import { clip, parseTmuxArgs, tmuxCommand, tmuxWords } from './tmux-commands.js';

/** Commands that only the attached client can carry out (UI overlays, prompts, detaching). */
export const CLIENT_COMMANDS = [
  'client.detach',
  'client.help',
  'client.command-prompt',
  'client.prompt-rename-pane',
  'client.prompt-rename-window',
  'client.confirm-close-pane',
  'client.confirm-close-window',
  'client.send-prefix',
  'client.reload-config',
  'client.theme-next',
  'client.copy-mode',
  'client.paste',
  'client.agent-picker',
  'client.redraw',
  'client.jump-waiting',
  'client.choose-tree',
  'client.popup',
  'client.send-keys',
  'client.display-message',
  'client.display-panes',
  'client.find-window',
  'client.prompt-window-index',
  'client.prompt-move-window',
  'client.switch-session',
  'client.not-here',
] as const;
export type ClientCommandName = (typeof CLIENT_COMMANDS)[number];

export type BoundCommand =
  | { scope: 'server'; action: Action; text: string }
  | { scope: 'client'; name: ClientCommandName; args: string[]; text: string };

export interface CommandSpec {
  name: string;
  usage: string;
  description: string;
  parse(args: string[]): { ok: true; command: BoundCommand } | { ok: false; error: string };
}

const DIRS = ['left', 'right', 'up', 'down'] as const;
const isDir = (s: string | undefined): s is Direction => !!s && (DIRS as readonly string[]).includes(s);

function server(text: string, action: Action): ReturnType<CommandSpec['parse']> {
  if ('name' in action && typeof action.name === 'string' && action.name.length > NAME_MAX) return { ok: false, error: `a name is at most ${NAME_MAX} characters` };
  return { ok: true, command: { scope: 'server', action, text } };
}

function client(name: ClientCommandName, args: string[], text: string): ReturnType<CommandSpec['parse']> {
  return { ok: true, command: { scope: 'client', name, args, text } };
}

function spec(
  name: string,
  usage: string,
  description: string,
  parse: (args: string[], text: string) => ReturnType<CommandSpec['parse']>,
): CommandSpec {
  return { name, usage, description, parse: (args) => parse(args, [name, ...args].join(' ')) };
}

const noArgs = (type: ActionType) => (args: string[], text: string) =>
  args.length ? { ok: false as const, error: `${type} takes no arguments` } : server(text, { type } as Action);

export const COMMANDS: CommandSpec[] = [
  spec('pane.split', 'pane.split right|down|left|up', 'Split the focused pane; the new pane opens on that side', (a, t) =>
    isDir(a[0]) && a.length === 1 ? server(t, { type: 'pane.split', direction: a[0] }) : { ok: false, error: 'expected a direction: right, down, left or up' }),
  spec('pane.close', 'pane.close', 'Close the focused pane (kills its program)', noArgs('pane.close')),
  spec('pane.focus', 'pane.focus left|right|up|down|next|prev|last', 'Move focus to a neighbouring pane', (a, t) => {
    if (a.length !== 1) return { ok: false, error: 'expected one of left, right, up, down, next, prev, last' };
    if (isDir(a[0])) return server(t, { type: 'pane.focus', direction: a[0] });
    if (a[0] === 'next' || a[0] === 'prev' || a[0] === 'last') return server(t, { type: 'pane.focus', cycle: a[0] });
    return { ok: false, error: `unknown focus target "${a[0]}"` };
  }),
  spec('pane.resize', 'pane.resize left|right|up|down [cells]', 'Move the focused pane\'s edge (default 1 cell)', (a, t) => {
    const cells = a[1] === undefined ? 1 : Number(a[1]);
    if (!isDir(a[0]) || !Number.isInteger(cells) || cells < 1 || cells > RESIZE_CELLS_MAX || a.length > 2) return { ok: false, error: `expected a direction and an optional cell count (1-${RESIZE_CELLS_MAX})` };
    return server(t, { type: 'pane.resize', direction: a[0], cells });
  }),
  spec('pane.zoom', 'pane.zoom', 'Zoom the focused pane to the whole window, or unzoom', noArgs('pane.zoom')),
  spec('pane.swap', 'pane.swap next|prev|left|right|up|down', 'Swap the focused pane with another', (a, t) => {
    const w = a[0] ?? 'next';
    if (a.length > 1 || !(w === 'next' || w === 'prev' || isDir(w))) return { ok: false, error: 'expected next, prev or a direction' };
    return server(t, { type: 'pane.swap', with: w });
  }),
  spec('pane.rename', 'pane.rename [name]', 'Rename the focused pane (prompts when no name is given)', (a, t) =>
    a.length === 0 ? client('client.prompt-rename-pane', [], t) : server(t, { type: 'pane.rename', name: a.join(' ') })),
  spec('pane.break', 'pane.break [name]', 'Move the focused pane into a new window of its own (tmux break-pane)', (a, t) => server(t, { type: 'pane.break', ...(a.length ? { name: a.join(' ') } : {}) })),
  spec('pane.join', 'pane.join PANE [right|down|left|up]', 'Bring pane PANE (e.g. w2:p1) beside the focused pane (tmux join-pane)', (a, t) => {
    if (a.length < 1 || a.length > 2 || (a[1] !== undefined && !isDir(a[1]))) return { ok: false, error: 'expected a pane id and an optional direction' };
    if (!isPaneId(a[0])) return { ok: false, error: 'pane id must look like w1:p1' };
    return server(t, { type: 'pane.join', pane: a[0], ...(a[1] ? { direction: a[1] } : {}) });
  }),
  spec('pane.respawn', 'pane.respawn [kill]', 'Run the focused pane\'s command again; "kill" ends a running one first (tmux respawn-pane)', (a, t) => {
    if (a.length > 1 || (a[0] !== undefined && a[0] !== 'kill')) return { ok: false, error: 'expected nothing or "kill"' };
    return server(t, { type: 'pane.respawn', ...(a[0] ? { kill: true } : {}) });
  }),
  spec('window.new', 'window.new [name]', 'Open a new window with a shell', (a, t) => server(t, { type: 'window.new', ...(a.length ? { name: a.join(' ') } : {}) })),
  spec('window.select', 'window.select N|next|prev|last', 'Switch window', (a, t) => {
    if (a.length !== 1) return { ok: false, error: 'expected a window number, next, prev or last' };
    if (/^\d+$/.test(a[0])) return Number(a[0]) <= WINDOW_INDEX_MAX ? server(t, { type: 'window.select', index: Number(a[0]) }) : { ok: false, error: `a window number is at most ${WINDOW_INDEX_MAX}` };
    if (a[0] === 'next' || a[0] === 'prev' || a[0] === 'last') return server(t, { type: 'window.select', relative: a[0] });
    return { ok: false, error: `unknown window "${a[0]}"` };
  }),
  spec('window.rename', 'window.rename [name]', 'Rename the current window (prompts when no name is given)', (a, t) =>
    a.length === 0 ? client('client.prompt-rename-window', [], t) : server(t, { type: 'window.rename', name: a.join(' ') })),
  spec('window.close', 'window.close', 'Close the current window and its panes', noArgs('window.close')),
  spec('window.synchronize', 'window.synchronize [on|off]', 'Type into every pane of the window at once (tmux synchronize-panes); the tab shows S', (a, t) => {
    if (a.length > 1 || (a[0] !== undefined && a[0] !== 'on' && a[0] !== 'off')) return { ok: false, error: 'expected nothing (toggle), on or off' };
    return server(t, { type: 'window.synchronize', mode: (a[0] as 'on' | 'off' | undefined) ?? 'toggle' });
  }),
  spec('window.layout', `window.layout ${LAYOUT_NAMES.join('|')}|next|prev`, 'Arrange the window\'s panes in a preset layout (as tmux select-layout)', (a, t) => {
    if (a.length !== 1) return { ok: false, error: `expected a layout (${LAYOUT_NAMES.join(', ')}), next or prev` };
    if (a[0] === 'next' || a[0] === 'prev') return server(t, { type: 'window.layout', cycle: a[0] });
    if ((LAYOUT_NAMES as readonly string[]).includes(a[0])) return server(t, { type: 'window.layout', name: a[0] as LayoutName });
    return { ok: false, error: `unknown layout "${a[0]}"; expected one of ${LAYOUT_NAMES.join(', ')}, next, prev` };
  }),
  spec('agent.reset', 'agent.reset', 'Forget the focused pane\'s reported agent state (back to screen heuristics)', noArgs('agent.reset')),
  spec('agent.wait', 'agent.wait', 'Tell me when the focused pane\'s agent is next idle or done', (a, t) =>
    a.length ? { ok: false, error: 'agent.wait takes no arguments' } : server(t, { type: 'agent.wait_mark' })),
  spec('client.detach', 'client.detach', 'Detach this client; panes keep running', (a, t) => client('client.detach', a, t)),
  spec('client.help', 'client.help', 'Show every key binding', (a, t) => client('client.help', a, t)),
  spec('client.command-prompt', 'client.command-prompt', 'Type a command (e.g. pane.split down)', (a, t) => client('client.command-prompt', a, t)),
  spec('client.confirm-close-pane', 'client.confirm-close-pane', 'Close the focused pane after a y/n confirmation', (a, t) => client('client.confirm-close-pane', a, t)),
  spec('client.confirm-close-window', 'client.confirm-close-window', 'Close the window after a y/n confirmation', (a, t) => client('client.confirm-close-window', a, t)),
  spec('client.send-prefix', 'client.send-prefix', 'Send the prefix key itself to the focused pane', (a, t) => client('client.send-prefix', a, t)),
  // The same name as the socket method and `castellan config reload`.
  spec('config.reload', 'config.reload', 'Read the config files again and apply them (the server also does when they change)', (a, t) => client('client.reload-config', a, t)),
  spec('client.theme-next', 'client.theme-next', 'Switch to the next theme', (a, t) => client('client.theme-next', a, t)),
  spec('client.copy-mode', 'client.copy-mode [page-up]', 'Enter copy mode (scroll, search, select); page-up also scrolls a page up (tmux copy-mode -u)', (a, t) =>
    a.length === 0 || (a.length === 1 && a[0] === 'page-up') ? client('client.copy-mode', a, t) : { ok: false, error: 'expected nothing or page-up' }),
  spec('client.paste', 'client.paste', 'Paste castellan\'s buffer into the focused pane', (a, t) => client('client.paste', a, t)),
  spec('client.agent-picker', 'client.agent-picker', 'Pick an agent definition to launch in a new pane', (a, t) => client('client.agent-picker', a, t)),
  spec('client.redraw', 'client.redraw', 'Redraw the whole screen', (a, t) => client('client.redraw', a, t)),
  spec('worktree.review', 'worktree.review', 'Review the focused agent\'s worktree: diff, commit, merge, rebase, discard', noArgs('worktree.review')),
  spec('client.jump-waiting', 'client.jump-waiting', 'Jump to the pane whose agent most recently needs you', (a, t) => client('client.jump-waiting', a, t)),
  spec('client.choose-tree', 'client.choose-tree [sessions|windows]', 'Choose a pane from the session/window/pane tree: badges, messages, / filter, n needs-me, preview (tmux choose-tree)', (a, t) =>
    a.length <= 1 && (a[0] === undefined || a[0] === 'sessions' || a[0] === 'windows') ? client('client.choose-tree', a.length ? a : ['windows'], t) : { ok: false, error: 'expected sessions or windows' }),
  spec('window.rotate', 'window.rotate [down|up]', 'Move every pane one place (down: to the next), focus staying in place (tmux rotate-window)', (a, t) =>
    a.length <= 1 && (a[0] === undefined || a[0] === 'down' || a[0] === 'up') ? server(t, { type: 'window.rotate', direction: (a[0] as 'up' | 'down' | undefined) ?? 'down' }) : { ok: false, error: 'expected down or up' }),
  spec('window.spread', 'window.spread', 'Give every pane of the window an even share of its split (tmux select-layout -E)', noArgs('window.spread')),
  spec('window.move', 'window.move N', 'Move the window to place N in the bar (tmux move-window -t N)', (a, t) =>
    a.length === 1 && /^\d{1,3}$/.test(a[0]) && Number(a[0]) >= 1 ? server(t, { type: 'window.move', index: Number(a[0]) }) : { ok: false, error: 'expected a place in the bar, from 1' }),
  spec('client.display-panes', 'client.display-panes', 'Show each pane\'s number; press a digit to focus that pane (tmux display-panes)', (a, t) => client('client.display-panes', a, t)),
  spec('client.find-window', 'client.find-window [TEXT]', 'Find a window: the tree, filtered by TEXT (prompts when none is given; tmux find-window)', (a, t) =>
    a.length ? client('client.find-window', [a.join(' ')], t) : client('client.find-window', [], t)),
  spec('client.prompt-window-index', 'client.prompt-window-index', 'Ask for a window number and show that window (tmux prefix \')', (a, t) => client('client.prompt-window-index', a, t)),
  spec('client.prompt-move-window', 'client.prompt-move-window', 'Ask for a place in the bar and move the window there (tmux prefix .)', (a, t) => client('client.prompt-move-window', a, t)),
  spec('client.switch-session', 'client.switch-session next|prev|last', 'Switch this client to the next, previous or last session (another castellan server; tmux switch-client -n/-p/-l)', (a, t) =>
    a.length === 1 && ['next', 'prev', 'last'].includes(a[0]) ? client('client.switch-session', a, t) : { ok: false, error: 'expected next, prev or last' }),
  spec('client.display-message', 'client.display-message TEXT', 'Show TEXT in the bar (tmux display-message)', (a, t) => client('client.display-message', [a.join(' ')], t)),
  // A tmux key castellan leaves unbound on purpose: pressing it says why (the help lists the reason too).
  spec('client.not-here', 'client.not-here REASON', 'Say why a tmux key does nothing here', (a, t) => client('client.not-here', [a.join(' ')], t)),
  // tmux's name works at the prompt too; both check their arguments here, and the client opens it with popup.open.
  ...['popup', 'display-popup'].map((name) => spec(name, `${name} [-w W] [-h H] [-d DIR] [-T TITLE] [CMD...]`, 'A floating popup running CMD (default: a shell) over the layout, closed when CMD exits or with prefix u (tmux display-popup -E)', (a, t) => {
    const r = parsePopupArgs(a);
    return r.ok ? client('client.popup', a, t) : r;
  })),
];

export const COMMAND_TABLE: ReadonlyMap<string, CommandSpec> = new Map(COMMANDS.map((c) => [c.name, c]));

/** Parses a command line such as `pane.split right` (also used by the `prefix :` prompt). */
export function parseCommand(text: string): { ok: true; command: BoundCommand } | { ok: false; error: string } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { ok: false, error: 'empty command' };
  const spec = COMMAND_TABLE.get(words[0]);
  if (spec) return spec.parse(words.slice(1));
  const tmux = tmuxCommand(words[0]);
  if (!tmux?.prompt) return { ok: false, error: `unknown command "${clip(words[0])}"${tmux ? ` (${tmux.name}: ${tmux.means})` : ' (Tab completes names; castellan\'s and tmux\'s both work)'}` };
  // tmux's words are split as tmux splits them: quotes keep a command line or a name together.
  const split = tmuxWords(text.trim());
  if (!split.ok) return split;
  const args = parseTmuxArgs(tmux, split.value.slice(1));
  if (!args.ok) return args;
  const m = tmux.prompt(args.value);
  if (!m.ok) return { ok: false, error: `${tmux.name}: ${m.error}` };
  const line = text.trim();
  if ('action' in m.value) return server(line, m.value.action);
  return client(m.value.client, m.value.args, line);
}
