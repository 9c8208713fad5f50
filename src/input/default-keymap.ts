// The default key bindings: tmux's keys for what tmux also does, castellan's own on keys tmux leaves free.
import { LAYOUT_NAMES } from '../core/layout-presets.js';
import type { Binding } from './keymap.js';

/** tmux's prefix. Users move it with `prefix = "C-a"` in `[keys]`. */
export const DEFAULT_PREFIX = 'C-b';

const PANES = 'Panes';
const WINDOWS = 'Windows';
const AGENTS = 'Agents';
const COPY = 'Copy & paste';
const SESSION = 'Session';

// tmux keys castellan leaves without their tmux command, and why (pressing one says it; prefix ? lists it).
const NO_RENAME = "a session's name is its server's socket: start it under another name (castellan --session NAME)";
const ONE_BUFFER = 'castellan keeps one buffer, the last copy: prefix ] pastes it';
const NO_MARK = 'join-pane and swap-pane take a pane id instead (prefix : join-pane -s w1:p2)';
const NO_CLOCK = 'the bar is for agents\' states; date in a pane, or prefix u for a shell in a popup';

/** [key after the prefix, command, description, group, repeatable?] */
type Row = [key: string, command: string, description: string, group: string, repeat?: 'repeat'];

const DIRS = [['Up', 'up', 'above'], ['Down', 'down', 'below'], ['Left', 'left', 'to the left'], ['Right', 'right', 'to the right']] as const;

const ROWS: Row[] = [
  ['%', 'pane.split right', 'Split: new pane on the right', PANES],
  ['"', 'pane.split down', 'Split: new pane below', PANES],
  ['o', 'pane.focus next', 'Focus the next pane', PANES],
  [';', 'pane.focus last', 'Focus the previously focused pane', PANES],
  // Not repeatable (tmux's are): a quick Up after moving focus belongs to the shell's history.
  ...DIRS.map(([key, dir, where]): Row => [key, `pane.focus ${dir}`, `Focus the pane ${where}`, PANES]),
  ...DIRS.map(([key, dir]): Row => [`C-${key}`, `pane.resize ${dir} 1`, `Resize the pane ${dir} by 1 cell`, PANES, 'repeat']),
  ...DIRS.map(([key, dir]): Row => [`M-${key}`, `pane.resize ${dir} 5`, `Resize the pane ${dir} by 5 cells`, PANES, 'repeat']),
  ['z', 'pane.zoom', 'Zoom the pane to the whole window, or unzoom', PANES],
  ['!', 'pane.break', 'Move the pane into a new window of its own', PANES],
  ['x', 'client.confirm-close-pane', 'Close the pane (asks first)', PANES],
  ['{', 'pane.swap prev', 'Swap the pane with the previous one', PANES],
  ['}', 'pane.swap next', 'Swap the pane with the next one', PANES],
  // tmux has no pane names; P (unbound in tmux) mirrors `,` for windows and reads as "Pane".
  ['P', 'pane.rename', 'Rename the pane', PANES],
  ['q', 'client.display-panes', 'Show the panes\' numbers (in the bar); a digit focuses that pane', PANES],
  ['E', 'window.spread', 'Spread the panes evenly', PANES],
  ['C-o', 'window.rotate down', 'Rotate the panes: each moves one place on', PANES],
  ['M-o', 'window.rotate up', 'Rotate the panes the other way', PANES],
  ['m', `client.not-here ${NO_MARK}`, `Mark the pane: not here, ${NO_MARK}`, PANES],

  ['c', 'window.new', 'New window', WINDOWS],
  ['n', 'window.select next', 'Next window', WINDOWS],
  ['p', 'window.select prev', 'Previous window', WINDOWS],
  ['l', 'window.select last', 'Last used window', WINDOWS],
  // Windows number from 1 (tmux with base-index 1), so the digit row reads left to right: 1..9, then 0 for window 10.
  ...Array.from({ length: 10 }, (_, i): Row => [String((i + 1) % 10), `window.select ${i + 1}`, `Window ${i + 1}`, WINDOWS]),
  [',', 'window.rename', 'Rename the window', WINDOWS],
  ["'", 'client.prompt-window-index', 'Window by number (asks for it)', WINDOWS],
  ['.', 'client.prompt-move-window', 'Move the window to a place in the bar (asks for it)', WINDOWS],
  ['f', 'client.find-window', 'Find a window: type text, then choose from the tree filtered by it', WINDOWS],
  ['S', 'window.synchronize', 'Type into every pane of the window at once (the tab shows S)', WINDOWS],
  ['Space', 'window.layout next', 'Arrange the panes in the next preset layout', WINDOWS],
  // tmux's M-1..M-5: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled.
  ...LAYOUT_NAMES.map((name, i): Row => [`M-${i + 1}`, `window.layout ${name}`, `Layout: ${name}`, WINDOWS]),
  ['&', 'client.confirm-close-window', 'Close the window (asks first)', WINDOWS],

  // tmux's choose-tree keys: s opens at the sessions level, w at the windows level.
  ['s', 'client.choose-tree sessions', 'Choose a session, window or pane from a tree (badges, filter, preview)', SESSION],
  ['w', 'client.choose-tree windows', 'Choose a window or pane from a tree (badges, filter, preview)', WINDOWS],
  // u for "pop-up" (tmux binds nothing to display-popup; P, its usual pick, names panes here).
  ['u', 'popup', 'A shell in a popup over the layout; in a popup, prefix u closes it', SESSION],
  ['a', 'client.agent-picker', 'Launch an agent in a new pane', AGENTS],
  // j for "jump": unbound in tmux, and on the home row for the key you press most when agents wait.
  ['j', 'client.jump-waiting', 'Jump to the agent that most recently needs you', AGENTS],
  ['W', 'agent.wait', 'Notify me when this pane\'s agent is next idle or done', AGENTS],
  // D for "diff": tmux's choose-client, which castellan has no use for (clients are not chosen, they attach).
  ['D', 'worktree.review', 'Review this agent\'s worktree: diff, commit, merge into base, rebase, discard', AGENTS],
  ['R', 'agent.reset', 'Forget the reported agent state (back to screen heuristics)', AGENTS],

  ['[', 'client.copy-mode', 'Copy mode: scroll, search, select', COPY],
  [']', 'client.paste', 'Paste the buffer into the pane', COPY],
  ['PageUp', 'client.copy-mode page-up', 'Copy mode, a page up', COPY],
  ['=', `client.not-here ${ONE_BUFFER}`, `Choose a buffer: not here, ${ONE_BUFFER}`, COPY],
  ['#', `client.not-here ${ONE_BUFFER}`, `List the buffers: not here, ${ONE_BUFFER}`, COPY],

  ['d', 'client.detach', 'Detach; panes keep running', SESSION],
  // A session is a server of its own here (castellan --session NAME); the client moves between them as prefix s does.
  ['(', 'client.switch-session prev', 'Previous session (by name)', SESSION],
  [')', 'client.switch-session next', 'Next session (by name)', SESSION],
  ['L', 'client.switch-session last', 'The session this client was in before', SESSION],
  ['$', `client.not-here ${NO_RENAME}`, `Rename the session: not here, ${NO_RENAME}`, SESSION],
  ['t', `client.not-here ${NO_CLOCK}`, `Clock: not here, ${NO_CLOCK}`, SESSION],
  ['?', 'client.help', 'List key bindings', SESSION],
  [':', 'client.command-prompt', 'Command prompt', SESSION],
  ['r', 'client.redraw', 'Redraw the screen', SESSION],
  ['T', 'client.theme-next', 'Next theme', SESSION],
  [DEFAULT_PREFIX, 'client.send-prefix', 'Send the prefix key to the pane', SESSION],
];

/** Every default binding is in the prefix table: root bindings would take keys away from the agents. */
export const DEFAULT_BINDINGS: Binding[] = ROWS.map(([key, command, description, group, repeat]) => ({
  table: 'prefix',
  key,
  command,
  description,
  group,
  ...(repeat ? { repeat: true } : {}),
}));
