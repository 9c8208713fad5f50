// tmux's command names and common flags, one entry each: what each means at `prefix :` (an action or a client command)
// and on the CLI (a castellan command line, or a socket call). The prompt, the CLI table, completion and docs read it.
// zod-free: the attached client loads it.
import { isPaneId } from '../platform/pane-id.js';
import { NAME_MAX, RESIZE_CELLS_MAX, WINDOW_INDEX_MAX } from './action-limits.js';
import type { Action } from './actions.js';
import type { ClientCommandName } from './commands.js';
import { LAYOUT_NAMES, type LayoutName } from './layout-presets.js';
import { clip, type Result, type TmuxArgs, type TmuxGrammar } from './tmux-args.js';

export { clip, parseTmuxArgs, tmuxWords, type Result, type TmuxArgs } from './tmux-args.js';

/** What a tmux command means at the prompt. */
export type PromptMeaning = { action: Action } | { client: ClientCommandName; args: string[] };

/** What it means on the CLI: a castellan command line, or one socket call (`pane_id` filled in when the target is implied). */
export type CliMeaning = { argv: string[] } | { method: string; params: Record<string, unknown>; pane?: 'implied' };

export interface TmuxCommand extends TmuxGrammar {
  name: string;
  /** tmux's own short names (splitw, neww, ...). */
  aliases: string[];
  /** getopt letters; a letter followed by ':' takes a value. */
  getopt: string;
  /** The most words after the flags (Infinity: a command line or keys). */
  maxArgs: number;
  usage: string;
  /** One line: the castellan command it is. */
  means: string;
  prompt?(a: TmuxArgs): Result<PromptMeaning>;
  cli?(a: TmuxArgs): Result<CliMeaning>;
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const no = (error: string): Result<never> => ({ ok: false, error });
const act = (action: Action): Result<PromptMeaning> => ok({ action });
const cl = (client: ClientCommandName, args: string[] = []): Result<PromptMeaning> => ok({ client, args });
const argv = (...words: Array<string | false | undefined | string[]>): Result<CliMeaning> =>
  ok({ argv: words.flat().filter((w): w is string => typeof w === 'string') });
const str = (v: string | true | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** A pane target: a castellan pane id (w1:p2). tmux's %N and session:window.pane forms name nothing here. */
function paneT(v: string | true | undefined): Result<string | undefined> {
  const s = str(v);
  if (s === undefined) return ok(undefined);
  return isPaneId(s) ? ok(s) : no(`pane target "${clip(s)}": castellan names panes like w1:p2 (the border shows it; list-panes lists them)`);
}

/** A window target: an id (w2) or the bar number (2, :2). */
function windowT(v: string | true | undefined): Result<{ window: string } | { index: number } | undefined> {
  const s = str(v)?.replace(/^:/, '');
  if (s === undefined) return ok(undefined);
  if (/^w\d{1,9}$/.test(s)) return ok({ window: s });
  if (/^\d{1,9}$/.test(s) && Number(s) <= WINDOW_INDEX_MAX) return ok({ index: Number(s) });
  return no(`window target "${clip(str(v)!)}": a window number from the bar (2) or its id (w2)`);
}

const dirOf = (f: TmuxArgs['flags']): 'left' | 'right' | 'up' | 'down' | undefined =>
  f.L ? 'left' : f.R ? 'right' : f.U ? 'up' : f.D ? 'down' : undefined;

function splitMeaning(a: TmuxArgs): Result<{ direction: 'left' | 'right' | 'up' | 'down'; pane?: string; percent?: number }> {
  if (a.flags.h && a.flags.v) return no('-h or -v, not both');
  // tmux's default is -v: the new pane below; -b puts it before (left or above).
  const direction = a.flags.h ? (a.flags.b ? 'left' : 'right') : a.flags.b ? 'up' : 'down';
  const t = paneT(a.flags.t);
  if (!t.ok) return t;
  const size = str(a.flags.p) ?? str(a.flags.l);
  let percent: number | undefined;
  if (size !== undefined) {
    const m = /^(\d{1,2})%?$/.exec(size);
    if (!m || (a.flags.l && !size.endsWith('%')) || Number(m[1]) < 1) return no(`size "${clip(size)}": castellan takes a share, -l N% or -p N (1-99)`);
    percent = Number(m[1]);
  }
  return ok({ direction, ...(t.value ? { pane: t.value } : {}), ...(percent ? { percent } : {}) });
}

function nameArg(a: TmuxArgs, what: string): Result<string> {
  const name = a.args.join(' ');
  if (!name) return no(`${what} needs a new name`);
  if (name.length > NAME_MAX) return no(`a name is at most ${NAME_MAX} characters`);
  return ok(name);
}

function resizeMeaning(a: TmuxArgs): Result<{ zoom: true; pane?: string } | { zoom: false; pane?: string; direction: 'left' | 'right' | 'up' | 'down'; cells: number }> {
  const t = paneT(a.flags.t);
  if (!t.ok) return t;
  const pane = t.value ? { pane: t.value } : {};
  if (a.flags.x || a.flags.y) return no('castellan resizes by cells from a border: -L/-R/-U/-D [N] (or -Z to zoom)');
  if (a.flags.Z) return ok({ zoom: true, ...pane });
  const direction = dirOf(a.flags);
  if (!direction) return no('expected -L, -R, -U, -D (with an optional cell count) or -Z');
  const cells = a.args[0] === undefined ? 1 : Number(a.args[0]);
  if (!/^\d{1,4}$/.test(a.args[0] ?? '1') || cells < 1 || cells > RESIZE_CELLS_MAX) return no(`the cell count is a number from 1 to ${RESIZE_CELLS_MAX}`);
  return ok({ zoom: false, ...pane, direction, cells });
}

function swapMeaning(a: TmuxArgs): Result<{ pane?: string; with: string }> {
  const s = paneT(a.flags.s);
  const t = paneT(a.flags.t);
  if (!s.ok) return s;
  if (!t.ok) return t;
  if (a.flags.U || a.flags.D) return ok({ ...(t.value ?? s.value ? { pane: (t.value ?? s.value)! } : {}), with: a.flags.U ? 'prev' : 'next' });
  if (t.value) return ok({ ...(s.value ? { pane: s.value } : {}), with: t.value });
  return no('expected -U, -D, or -t PANE (with -s PANE to swap two others)');
}

function windowSelect(a: TmuxArgs): Result<{ index: number } | { window: string } | { relative: 'next' | 'prev' | 'last' }> {
  if (a.flags.n) return ok({ relative: 'next' });
  if (a.flags.p) return ok({ relative: 'prev' });
  if (a.flags.l) return ok({ relative: 'last' });
  const w = windowT(a.flags.t);
  if (!w.ok) return w;
  return w.value ? ok(w.value) : no('expected -t WINDOW (its number in the bar), -n, -p or -l');
}

/** A window that prompt actions take by id only (the bar number needs the session's state, which the client resolves). */
function windowIdOnly(v: string | true | undefined): Result<{ window?: string }> {
  const w = windowT(v);
  if (!w.ok) return w;
  if (!w.value) return ok({});
  if ('window' in w.value) return ok({ window: w.value.window });
  return no(`at the prompt give the window's id (w${w.value.index}? the bar's tab shows it with prefix w); the CLI takes the number too`);
}

const winArgv = (w: { window: string } | { index: number } | undefined): string[] => (w ? ['--window', 'window' in w ? w.window : String(w.index)] : []);

function layoutOf(a: TmuxArgs): Result<{ name: LayoutName } | { cycle: 'next' | 'prev' }> {
  if (a.flags.n) return ok({ cycle: 'next' });
  if (a.flags.p) return ok({ cycle: 'prev' });
  const name = a.args[0];
  if (name && (LAYOUT_NAMES as readonly string[]).includes(name)) return ok({ name: name as LayoutName });
  return no(`expected a layout: ${LAYOUT_NAMES.join(', ')} (or -n, -p)`);
}

const TMUX: TmuxCommand[] = [
  {
    name: 'split-window', aliases: ['splitw'], getopt: 'bc:dhl:p:t:vP', maxArgs: Infinity,
    usage: 'split-window [-bdhv] [-c DIR] [-l N%|-p N] [-t PANE] [COMMAND...]', means: 'pane.split (castellan pane split); -v (below) is the default, as in tmux',
    prompt: (a) => {
      const m = splitMeaning(a);
      if (!m.ok) return m;
      return act({ type: 'pane.split', ...m.value, ...(str(a.flags.c) ? { cwd: str(a.flags.c) } : {}), ...(a.flags.d ? { detached: true } : {}), ...(a.args.length ? { command: a.args } : {}) });
    },
    cli: (a) => {
      const m = splitMeaning(a);
      if (!m.ok) return m;
      return argv('pane', 'split', '--direction', m.value.direction, m.value.pane && ['--pane', m.value.pane], str(a.flags.c) && ['--cwd', str(a.flags.c)!],
        m.value.percent !== undefined && ['--percent', String(m.value.percent)], a.flags.d && '--no-focus', a.args.length > 0 && ['--', ...a.args]);
    },
  },
  {
    name: 'new-window', aliases: ['neww'], getopt: 'c:dn:P', maxArgs: Infinity,
    usage: 'new-window [-d] [-c DIR] [-n NAME] [COMMAND...]', means: 'window.new (castellan window new)',
    prompt: (a) => {
      const name = str(a.flags.n);
      if (name && name.length > NAME_MAX) return no(`a name is at most ${NAME_MAX} characters`);
      return act({ type: 'window.new', ...(name ? { name } : {}), ...(str(a.flags.c) ? { cwd: str(a.flags.c) } : {}), ...(a.flags.d ? { detached: true } : {}), ...(a.args.length ? { command: a.args } : {}) });
    },
    cli: (a) => argv('window', 'new', str(a.flags.n) && ['--name', str(a.flags.n)!], str(a.flags.c) && ['--cwd', str(a.flags.c)!], a.flags.d && '--no-focus', a.args.length > 0 && ['--', ...a.args]),
  },
  {
    name: 'select-window', aliases: ['selectw'], getopt: 'lnpt:', maxArgs: 0,
    usage: 'select-window -t N | -n | -p | -l', means: 'window.select (castellan window select)',
    prompt: (a) => {
      const w = windowSelect(a);
      return w.ok ? act({ type: 'window.select', ...w.value }) : w;
    },
    cli: (a) => {
      const w = windowSelect(a);
      if (!w.ok) return w;
      return argv('window', 'select', 'relative' in w.value ? `--${w.value.relative}` : winArgv(w.value));
    },
  },
  ...(['next', 'prev', 'last'] as const).map((rel): TmuxCommand => ({
    name: rel === 'next' ? 'next-window' : rel === 'prev' ? 'previous-window' : 'last-window', aliases: [rel], getopt: '', maxArgs: 0,
    usage: rel === 'next' ? 'next-window' : rel === 'prev' ? 'previous-window' : 'last-window', means: `window.select ${rel}`,
    prompt: () => act({ type: 'window.select', relative: rel }),
    // last-window is the attached client's history: the CLI has none to go back in.
    ...(rel === 'last' ? {} : { cli: () => argv('window', 'select', `--${rel}`) }),
  })),
  {
    name: 'rename-window', aliases: ['renamew'], getopt: 't:', maxArgs: Infinity,
    usage: 'rename-window [-t WINDOW] NAME', means: 'window.rename (castellan window rename)',
    prompt: (a) => {
      if (!a.args.length && a.flags.t === undefined) return cl('client.prompt-rename-window');
      const w = windowIdOnly(a.flags.t);
      const n = nameArg(a, 'rename-window');
      if (!w.ok) return w;
      return n.ok ? act({ type: 'window.rename', ...w.value, name: n.value }) : n;
    },
    cli: (a) => {
      const w = windowT(a.flags.t);
      const n = nameArg(a, 'rename-window');
      if (!w.ok) return w;
      return n.ok ? argv('window', 'rename', winArgv(w.value), '--', n.value) : n;
    },
  },
  {
    name: 'kill-window', aliases: ['killw'], getopt: 't:', maxArgs: 0,
    usage: 'kill-window [-t WINDOW]', means: 'window.close (castellan window close)',
    prompt: (a) => {
      const w = windowIdOnly(a.flags.t);
      return w.ok ? act({ type: 'window.close', ...w.value }) : w;
    },
    cli: (a) => {
      const w = windowT(a.flags.t);
      return w.ok ? argv('window', 'close', winArgv(w.value)) : w;
    },
  },
  {
    name: 'kill-pane', aliases: ['killp'], getopt: 't:', maxArgs: 0,
    usage: 'kill-pane [-t PANE]', means: 'pane.close (castellan pane close)',
    prompt: (a) => {
      const t = paneT(a.flags.t);
      return t.ok ? act({ type: 'pane.close', ...(t.value ? { pane: t.value } : {}) }) : t;
    },
    cli: (a) => {
      const t = paneT(a.flags.t);
      return t.ok ? argv('pane', 'close', t.value && ['--pane', t.value]) : t;
    },
  },
  {
    name: 'select-pane', aliases: ['selectp'], getopt: 'DLRUlt:', maxArgs: 0,
    usage: 'select-pane -L|-R|-U|-D|-l | -t PANE', means: 'pane.focus (castellan pane focus)',
    prompt: (a) => {
      const t = paneT(a.flags.t);
      if (!t.ok) return t;
      const d = dirOf(a.flags);
      if (d) return act({ type: 'pane.focus', ...(t.value ? { pane: t.value } : {}), direction: d });
      if (a.flags.l) return act({ type: 'pane.focus', cycle: 'last' });
      return t.value ? act({ type: 'pane.focus', pane: t.value }) : no('expected -L, -R, -U, -D, -l or -t PANE');
    },
    cli: (a) => {
      const t = paneT(a.flags.t);
      if (!t.ok) return t;
      const d = dirOf(a.flags);
      if (d) return ok({ method: 'pane.focus', params: { direction: d } });
      if (a.flags.l) return no('-l (the last pane) is the attached client\'s history: press prefix ; there');
      return t.value ? argv('pane', 'focus', '--pane', t.value) : no('expected -L, -R, -U, -D or -t PANE');
    },
  },
  {
    name: 'last-pane', aliases: ['lastp'], getopt: '', maxArgs: 0,
    usage: 'last-pane', means: 'pane.focus last',
    prompt: () => act({ type: 'pane.focus', cycle: 'last' }),
  },
  {
    name: 'resize-pane', aliases: ['resizep'], getopt: 'DLRUt:x:y:Z', maxArgs: 1,
    usage: 'resize-pane [-t PANE] -L|-R|-U|-D [N] | -Z', means: 'pane.resize / pane.zoom (castellan pane resize, pane zoom)',
    prompt: (a) => {
      const m = resizeMeaning(a);
      if (!m.ok) return m;
      const pane = m.value.pane ? { pane: m.value.pane } : {};
      return m.value.zoom ? act({ type: 'pane.zoom', ...pane }) : act({ type: 'pane.resize', ...pane, direction: m.value.direction, cells: m.value.cells });
    },
    cli: (a) => {
      const m = resizeMeaning(a);
      if (!m.ok) return m;
      const pane = m.value.pane ? ['--pane', m.value.pane] : [];
      return m.value.zoom ? argv('pane', 'zoom', pane) : argv('pane', 'resize', pane, '--direction', m.value.direction, '--cells', String(m.value.cells));
    },
  },
  {
    name: 'swap-pane', aliases: ['swapp'], getopt: 'dDs:t:U', maxArgs: 0,
    usage: 'swap-pane -U|-D [-t PANE] | [-s PANE] -t PANE', means: 'pane.swap (castellan pane swap)',
    prompt: (a) => {
      const m = swapMeaning(a);
      return m.ok ? act({ type: 'pane.swap', ...(m.value.pane ? { pane: m.value.pane } : {}), with: m.value.with }) : m;
    },
    cli: (a) => {
      const m = swapMeaning(a);
      return m.ok ? argv('pane', 'swap', m.value.pane && ['--pane', m.value.pane], '--with', m.value.with) : m;
    },
  },
  {
    name: 'send-keys', aliases: ['send'], getopt: 'lt:', maxArgs: Infinity,
    usage: 'send-keys [-l] [-t PANE] KEY...', means: 'pane.send_keys (castellan pane send --keys): key names (Enter, C-c, Up) are pressed, other words typed',
    prompt: (a) => {
      const t = paneT(a.flags.t);
      if (!t.ok) return t;
      if (!a.args.length) return no('send-keys needs keys (Enter, C-c, or text)');
      return cl('client.send-keys', [t.value ?? '', a.flags.l ? 'literal' : 'keys', ...a.args]);
    },
    cli: (a) => {
      const t = paneT(a.flags.t);
      if (!t.ok) return t;
      if (!a.args.length) return no('send-keys needs keys (Enter, C-c, or text)');
      return ok({ method: 'pane.send_keys', params: { ...(t.value ? { pane_id: t.value } : {}), keys: a.args, ...(a.flags.l ? { literal: true } : { unknown: 'text' }) }, pane: 'implied' });
    },
  },
  {
    name: 'list-panes', aliases: ['lsp'], getopt: 'ast:', maxArgs: 0,
    usage: 'list-panes [-a] [-t WINDOW]', means: 'castellan pane list (at the prompt: the tree, prefix w)',
    prompt: () => cl('client.choose-tree', ['windows']),
    cli: (a) => {
      const w = windowT(a.flags.t);
      if (!w.ok) return w;
      if (w.value && 'index' in w.value) return no('list-panes -t takes the window id here (w2): castellan window list shows them');
      return argv('pane', 'list', !a.flags.a && w.value && ['--window', w.value.window]);
    },
  },
  {
    name: 'list-windows', aliases: ['lsw'], getopt: 'a', maxArgs: 0,
    usage: 'list-windows', means: 'castellan window list (at the prompt: the tree, prefix w)',
    prompt: () => cl('client.choose-tree', ['windows']),
    cli: () => argv('window', 'list'),
  },
  {
    name: 'select-layout', aliases: ['selectl'], getopt: 'Enpt:', maxArgs: 1,
    usage: `select-layout ${LAYOUT_NAMES.join('|')} | -n | -p | -E`, means: 'window.layout (castellan window layout); -E spreads the panes evenly',
    prompt: (a) => {
      if (a.flags.E) return act({ type: 'window.spread' });
      const l = layoutOf(a);
      return l.ok ? act({ type: 'window.layout', ...l.value }) : l;
    },
    cli: (a) => {
      if (a.flags.E) return no('-E spreads the attached client\'s window: press prefix E there');
      const l = layoutOf(a);
      return l.ok ? argv('window', 'layout', 'name' in l.value ? l.value.name : l.value.cycle) : l;
    },
  },
  {
    name: 'rotate-window', aliases: ['rotatew'], getopt: 'DU', maxArgs: 0,
    usage: 'rotate-window [-D|-U]', means: 'window.rotate: the panes move one place down (-D, the default) or up, focus staying in place',
    prompt: (a) => act({ type: 'window.rotate', direction: a.flags.U ? 'up' : 'down' }),
  },
  {
    name: 'move-window', aliases: ['movew'], getopt: 't:', maxArgs: 0,
    usage: 'move-window -t N', means: 'window.move: the window takes place N in the bar',
    prompt: (a) => {
      const w = windowT(a.flags.t);
      if (!w.ok) return w;
      return w.value && 'index' in w.value && w.value.index >= 1 ? act({ type: 'window.move', index: w.value.index }) : no('expected -t N (a place in the bar, from 1)');
    },
  },
  {
    name: 'break-pane', aliases: ['breakp'], getopt: 'dn:s:', maxArgs: 0,
    usage: 'break-pane [-d] [-n NAME] [-s PANE]', means: 'pane.break (castellan pane break)',
    prompt: (a) => {
      const s = paneT(a.flags.s);
      if (!s.ok) return s;
      const name = str(a.flags.n);
      if (name && name.length > NAME_MAX) return no(`a name is at most ${NAME_MAX} characters`);
      return act({ type: 'pane.break', ...(s.value ? { pane: s.value } : {}), ...(name ? { name } : {}), ...(a.flags.d ? { detached: true } : {}) });
    },
  },
  {
    name: 'join-pane', aliases: ['joinp'], getopt: 'bdhvs:t:', maxArgs: 0,
    usage: 'join-pane -s PANE [-t PANE] [-h|-v] [-b] [-d]', means: 'pane.join (castellan pane join)',
    prompt: (a) => {
      const s = paneT(a.flags.s);
      const t = paneT(a.flags.t);
      if (!s.ok) return s;
      if (!t.ok) return t;
      if (!s.value) return no('join-pane needs -s PANE (the pane to bring here)');
      const direction = a.flags.h ? (a.flags.b ? 'left' : 'right') : a.flags.b ? 'up' : 'down';
      return act({ type: 'pane.join', pane: s.value, ...(t.value ? { target: t.value } : {}), direction, ...(a.flags.d ? { detached: true } : {}) });
    },
  },
  {
    name: 'respawn-pane', aliases: ['respawnp'], getopt: 'kt:', maxArgs: 0,
    usage: 'respawn-pane [-k] [-t PANE]', means: 'pane.respawn (castellan pane respawn)',
    prompt: (a) => {
      const t = paneT(a.flags.t);
      return t.ok ? act({ type: 'pane.respawn', ...(t.value ? { pane: t.value } : {}), ...(a.flags.k ? { kill: true } : {}) }) : t;
    },
  },
  {
    name: 'display-message', aliases: ['display'], getopt: 'p', maxArgs: Infinity,
    usage: 'display-message [MESSAGE]', means: 'a message in the bar',
    prompt: (a) => cl('client.display-message', [a.args.join(' ')]),
  },
  { name: 'copy-mode', aliases: [], getopt: 'u', maxArgs: 0, usage: 'copy-mode [-u]', means: 'client.copy-mode; -u also scrolls a page up', prompt: (a) => cl('client.copy-mode', a.flags.u ? ['page-up'] : []) },
  { name: 'paste-buffer', aliases: ['pasteb'], getopt: '', maxArgs: 0, usage: 'paste-buffer', means: 'client.paste', prompt: () => cl('client.paste') },
  { name: 'choose-tree', aliases: [], getopt: 'sw', maxArgs: 0, usage: 'choose-tree [-s|-w]', means: 'client.choose-tree', prompt: (a) => cl('client.choose-tree', [a.flags.s ? 'sessions' : 'windows']) },
  { name: 'detach-client', aliases: ['detach'], getopt: '', maxArgs: 0, usage: 'detach-client', means: 'client.detach', prompt: () => cl('client.detach') },
  { name: 'list-keys', aliases: ['lsk'], getopt: '', maxArgs: 0, usage: 'list-keys', means: 'client.help', prompt: () => cl('client.help') },
  { name: 'refresh-client', aliases: ['refresh'], getopt: '', maxArgs: 0, usage: 'refresh-client', means: 'client.redraw', prompt: () => cl('client.redraw') },
  { name: 'command-prompt', aliases: [], getopt: '', maxArgs: 0, usage: 'command-prompt', means: 'client.command-prompt', prompt: () => cl('client.command-prompt') },
  {
    name: 'source-file', aliases: ['source'], getopt: '', maxArgs: 1, usage: 'source-file', means: 'config.reload: castellan reads its own config files again (a path is not taken)',
    prompt: (a) => (a.args.length ? no('castellan reads its own config files (castellan.toml, ~/.castellan/config.toml): source-file with no path reloads them') : cl('client.reload-config')),
  },
  {
    name: 'rename-session', aliases: ['rename'], getopt: 't:', maxArgs: Infinity, usage: 'rename-session NAME', means: 'not here: a session is a server named by its socket',
    prompt: () => no('a session\'s name is its server\'s socket: start one under another name (castellan --session NAME) instead'),
    cli: () => no('a session\'s name is its server\'s socket: start one under another name (castellan --session NAME) instead'),
  },
];

export const TMUX_COMMANDS: readonly TmuxCommand[] = TMUX;
const BY_NAME = new Map<string, TmuxCommand>(TMUX.flatMap((c) => [[c.name, c] as const, ...c.aliases.map((n) => [n, c] as const)]));

export const tmuxCommand = (name: string): TmuxCommand | undefined => BY_NAME.get(name);
