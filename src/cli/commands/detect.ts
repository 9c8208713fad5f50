// `castellan detect`: runs the agent-state rules on a saved screen (plain text or ANSI) and says which rule matched.
import { existsSync, readFileSync } from 'node:fs';
import { stripControlsKeepLines } from '../../core/text.js';
import { basename, dirname, join } from 'node:path';
import { evaluate, explain, type DetectSnapshot, type Match } from '../../detect/engine.js';
import { identify } from '../../detect/identify.js';
import { formatDetectDiagnostic, loadRules, ruleSetFor } from '../../detect/rules.js';
import type { DetectState } from '../../detect/rules-schema.js';
import { Screen } from '../../server/screen.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export interface LoadedScreen extends DetectSnapshot {
  ansi: boolean;
}

const ANSI = /\x1b[[\]()PX^_]/;

function parseSize(s: string | undefined): { cols: number; rows: number } | undefined {
  if (!s) return undefined;
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(s);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new UsageError(`--size wants COLSxROWS (e.g. 120x40), got "${s}"`);
  return { cols: Number(m[1]), rows: Number(m[2]) };
}

function parseCursor(s: string | undefined): { x: number; y: number } | undefined {
  if (!s) return undefined;
  const m = /^(\d{1,4}),(\d{1,4})$/.exec(s);
  if (!m) throw new UsageError(`--cursor wants X,Y (0-based column and row), got "${s}"`);
  return { x: Number(m[1]), y: Number(m[2]) };
}

/** Without --cursor: the end of the last non-blank row (where a shell prompt leaves it). */
function guessCursor(lines: readonly string[]): { x: number; y: number } {
  for (let y = lines.length - 1; y >= 0; y--) if (lines[y].trim() !== '') return { x: lines[y].length, y };
  return { x: 0, y: 0 };
}

/**
 * Turns a saved screen (`tmux capture-pane -p [-e]`, a pane.read dump...) into the snapshot the
 * server would hand to detection. ANSI input goes through the same emulator as a live pane.
 */
export async function screenFromText(text: string, opts: { title?: string; size?: { cols: number; rows: number }; cursor?: { x: number; y: number } } = {}): Promise<LoadedScreen> {
  const rowsText = text.replace(/\r?\n$/, '').split(/\r?\n/);
  const ansi = ANSI.test(text);
  const widest = rowsText.reduce((w, l) => Math.max(w, [...l.replace(/\x1b\[[0-9;:?]*[ -/]*[@-~]/g, '')].length), 1);
  // wide characters take two cells, so an unknown width gets room to spare: wrapping would change rows
  const cols = opts.size?.cols ?? (ansi ? Math.min(4000, widest * 2) : widest);
  const rows = opts.size?.rows ?? Math.max(1, rowsText.length);
  let lines: string[];
  if (ansi) {
    const screen = new Screen({ cols, rows, scrollback: 0 });
    try {
      await new Promise<void>((resolve) => screen.write(rowsText.slice(-rows).join('\r\n'), resolve));
      lines = [...screen.snapshot().lines];
    } finally {
      screen.dispose();
    }
  } else {
    lines = rowsText.slice(-rows).map((l) => stripControlsKeepLines(l).replace(/ +$/, ''));
    while (lines.length < rows) lines.push('');
  }
  return { lines, title: opts.title ?? '', cursor: opts.cursor ?? guessCursor(lines), cols, rows, ansi };
}

/** The title a lab capture was taken with: `<name>-<state>[.ansi].txt` next to `<name>-titles.tsv`. */
export function titleFromTsv(file: string): string | undefined {
  const base = basename(file).replace(/(\.ansi)?\.txt$/, '');
  const parts = base.split('-');
  for (let i = 1; i < parts.length; i++) {
    const tsv = join(dirname(file), `${parts.slice(0, i).join('-')}-titles.tsv`);
    if (!existsSync(tsv)) continue;
    const state = parts.slice(i).join('-');
    for (const line of readFileSync(tsv, 'utf8').split('\n')) {
      const tab = line.indexOf('\t');
      if (tab > 0 && line.slice(0, tab) === state) return line.slice(tab + 1);
    }
  }
  return undefined;
}

/** What a single still screen says: a non-busy `working` rule needs change over time, so it settles. */
export function stillState(match: Match | undefined, fallback: { still: DetectState }): DetectState {
  if (!match) return fallback.still;
  return match.state === 'working' && !match.busy ? 'idle' : match.state;
}

export default defineCommand({
  name: 'detect',
  usage: 'castellan detect (--agent NAME | --command CMD) --screen FILE [--title TITLE] [--size COLSxROWS] [--cursor X,Y] [--rules DIR] [--no-user-rules] [--all] [--json]',
  summary: 'Run agent-state detection on a saved screen (plain text or ANSI colours) and print the state and the rule that matched.',
  details: [
    'NAME: claude, codex, gemini, pi, opencode, kilo, copilot, qwen, cursor or generic (any other name uses the generic',
    'rules). CMD: a command line as a process shows it (e.g. "node /usr/lib/node_modules/@qwen-code/qwen-code/cli.js"):',
    'the agent is identified from it with the rule files\' [identify] rows, as a pane\'s process tree is.',
    'FILE: e.g. `tmux capture-pane -p -e -t PANE > screen.txt`; "-" reads stdin. The title comes from',
    '--title, else from a `<name>-titles.tsv` next to an agent-lab capture `<name>-<state>.txt`.',
    'Rules: the built-in ones merged with ~/.castellan/detect/<agent>.toml (or --rules DIR). See docs/detection.md.',
  ].join('\n'),
  options: {
    agent: { type: 'string' }, command: { type: 'string' }, screen: { type: 'string' }, title: { type: 'string' }, size: { type: 'string' },
    cursor: { type: 'string' }, rules: { type: 'string' }, 'no-user-rules': { type: 'boolean' },
    all: { type: 'boolean' }, json: { type: 'boolean' },
  },
  run: async (ctx, { values }) => {
    const file = values.screen as string | undefined;
    if (!file) throw new UsageError('--screen FILE is required');
    const command = values.command as string | undefined;
    if (command !== undefined && values.agent !== undefined) throw new UsageError('give --agent or --command, not both');
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (e) {
      ctx.err(`castellan detect: cannot read ${file}: ${(e as Error).message}`);
      return EXIT.error;
    }
    const title = (values.title as string | undefined) ?? (file === '-' ? undefined : titleFromTsv(file));
    const snap = await screenFromText(text, { title, size: parseSize(values.size as string), cursor: parseCursor(values.cursor as string) });
    const userDir = values['no-user-rules'] ? undefined : (values.rules as string | undefined) ?? join(ctx.paths.userDir, 'detect');
    const loaded = loadRules({ userDir });
    // --command: which agent that process is, by the same signature rows (built-in + the user's) the server uses.
    const ident = command === undefined ? undefined : identify({ processes: [], launchCommand: command.trim().split(/\s+/).slice(0, 64), signatures: loaded.signatures });
    const agent = (values.agent as string | undefined) ?? ident?.agent ?? 'generic';
    const set = ruleSetFor(loaded, agent);
    const match = evaluate(set, snap);
    const still = stillState(match, set.fallback);
    const state = match ? match.state : set.fallback.still;
    const matches = values.all ? explain(set, snap) : undefined;
    if (values.json) {
      ctx.out(JSON.stringify({
        agent, ...(ident ? { identified: ident.why } : {}), rules: set.agent, file, ansi: snap.ansi, size: { cols: snap.cols, rows: snap.rows }, title: snap.title,
        state, still_state: still, rule: match?.rule ?? null, priority: match?.priority ?? null,
        busy: match?.busy ?? false, plain: match?.plain ?? false, confidence: match?.plain ? 'plain' : 'weak',
        source: match?.source ?? null, ...(matches ? { matches } : {}), diagnostics: loaded.diagnostics,
      }, null, 2));
    } else {
      ctx.out(`agent    ${agent}${set.agent !== agent ? ` (no rules of its own: ${set.agent} rules)` : ''}${ident ? `  (${ident.agent ? ident.why : `not identified: ${ident.why}`})` : ''}`);
      ctx.out(`screen   ${file} (${snap.rows} rows${snap.ansi ? ', ANSI' : ''})${snap.title ? `  title ${JSON.stringify(snap.title)}` : ''}`);
      ctx.out(`state    ${state}${match?.plain ? ' (plain)' : ' (weak)'}`);
      if (match) {
        const flags = [`priority ${match.priority}`, ...(match.busy ? ['busy marker'] : []), ...(match.plain ? ['plain'] : [])];
        ctx.out(`rule     ${match.rule} (${flags.join(', ')})  ${match.source}`);
        if (still !== state) ctx.out(`note     no busy marker: a live pane reads ${state} only while its screen changes, ${still} once it holds still`);
      } else {
        ctx.out(`rule     none matched: fallback is ${set.fallback.changing} while the screen changes, ${set.fallback.still} when it holds still`);
      }
      for (const m of matches ?? []) ctx.out(`  holds  ${m.rule} → ${m.state} (priority ${m.priority}${m.busy ? ', busy' : ''}${m.plain ? ', plain' : ''})`);
      for (const d of loaded.diagnostics) ctx.err(formatDetectDiagnostic(d));
    }
    return EXIT.ok;
  },
});
