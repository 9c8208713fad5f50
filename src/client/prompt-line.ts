// The `prefix :` line's Tab completion (command names, then flags and words) and its history (Up/Down), kept for the client's life.
import { COMMANDS } from '../core/commands.js';
import { TMUX_COMMANDS, tmuxCommand } from '../core/tmux-commands.js';

/** Commands entered, oldest first; tmux keeps its prompt history per server, castellan per client process. */
const history: string[] = [];
const HISTORY_MAX = 100;

export function remember(line: string): void {
  const t = line.trim();
  if (!t || t.length > 512) return;
  if (history[history.length - 1] !== t) history.push(t);
  if (history.length > HISTORY_MAX) history.splice(0, history.length - HISTORY_MAX);
}

/** Up (-1) or Down (+1) from position `at` (history.length: the line being typed); the line there and its position. */
export function recall(at: number | undefined, step: -1 | 1, typed: string): { text: string; at: number } | undefined {
  const from = at ?? history.length;
  const to = from + step;
  if (to < 0 || to > history.length) return undefined;
  return { text: to === history.length ? (at === undefined ? typed : '') : history[to], at: to };
}

const NAMES = [...new Set([...COMMANDS.map((c) => c.name), ...TMUX_COMMANDS.flatMap((c) => [c.name, ...c.aliases])])].sort();

/** Words a command takes after its name: a tmux command's flags, or the choices its usage spells (right|down|left|up). */
function wordsFor(name: string): string[] {
  const t = tmuxCommand(name);
  if (t) return [...t.getopt.replace(/:/g, '')].map((l) => `-${l}`);
  const usage = COMMANDS.find((c) => c.name === name)?.usage ?? '';
  return [...new Set(usage.split(/\s+/).slice(1).flatMap((w) => w.replace(/[[\]]/g, '').split('|')).filter((w) => /^[a-z][a-z-]*$/.test(w)))];
}

const common = (xs: string[]): string => xs.reduce((p, x) => { let i = 0; while (i < p.length && p[i] === x[i]) i++; return p.slice(0, i); });

/** Tab: completes the last word; when it cannot grow, moves to the next candidate. Returns the line unchanged when none fits. */
export function complete(text: string): string {
  const m = /^(.*?)(\S*)$/s.exec(text)!;
  const [before, word] = [m[1], m[2]];
  const first = !before.trim();
  const all = first ? NAMES : wordsFor(before.trim().split(/\s+/)[0]);
  const fits = all.filter((c) => c.startsWith(word));
  if (!fits.length) {
    // The word is a whole candidate already typed: cycle from it through every candidate of the same start.
    return text;
  }
  if (fits.length === 1) return `${before}${fits[0]} `;
  const grown = common(fits);
  if (grown.length > word.length) return before + grown;
  // Nothing to grow: the next candidate after the current word (tmux lists them; one line has room for one).
  const at = fits.indexOf(word);
  return before + fits[(at + 1) % fits.length];
}
