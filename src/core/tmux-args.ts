// tmux's command-line grammar: its getopt (clustered flags, joined values) and its word splitting (quotes, backslash).
// zod-free: the attached client loads it.
import { stripControls } from './text.js';

/** Flags as getopt leaves them (a letter: true, or its value) and the words after them. */
export interface TmuxArgs {
  flags: Record<string, string | true>;
  args: string[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

/** Text from outside shown in an error: short, and without control characters. */
export const clip = (s: string): string => {
  const t = stripControls(s, '?');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
};

/** What parseTmuxArgs needs of a command: its flags, its most words, and names for its errors. */
export interface TmuxGrammar {
  name: string;
  usage: string;
  /** getopt letters; a letter followed by ':' takes a value. */
  getopt: string;
  maxArgs: number;
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const no = (error: string): Result<never> => ({ ok: false, error });

/** tmux's getopt: clustered letters (-dh), values joined or apart (-cDIR, -c DIR), `--` or the first word ends the flags. */
export function parseTmuxArgs(cmd: TmuxGrammar, words: string[]): Result<TmuxArgs> {
  const flags: TmuxArgs['flags'] = {};
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === '--') {
      i++;
      break;
    }
    // A lone '-' or a negative number is a word, not flags.
    if (!w.startsWith('-') || w === '-' || /^-\d/.test(w)) break;
    for (let j = 1; j < w.length; j++) {
      const letter = w[j];
      const at = cmd.getopt.indexOf(letter);
      if (at === -1 || letter === ':') return no(`${cmd.name}: unknown flag -${clip(letter)} (usage: ${cmd.usage})`);
      if (cmd.getopt[at + 1] !== ':') {
        flags[letter] = true;
        continue;
      }
      const value = j + 1 < w.length ? w.slice(j + 1) : words[++i];
      if (value === undefined) return no(`${cmd.name}: -${letter} needs a value (usage: ${cmd.usage})`);
      flags[letter] = value;
      break;
    }
  }
  const args = words.slice(i);
  if (args.length > cmd.maxArgs) return no(`${cmd.name}: too many arguments (usage: ${cmd.usage})`);
  return ok({ flags, args });
}

/** The words of a prompt line as tmux splits them: spaces apart, '...' and "..." keep spaces, \ escapes one character. */
export function tmuxWords(line: string): Result<string[]> {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else cur += ch;
  }
  if (quote) return no(`unclosed ${quote}`);
  if (has || cur) out.push(cur);
  return ok(out);
}
