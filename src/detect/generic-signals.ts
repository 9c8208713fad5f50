// The generic reader: what any terminal program tells the terminal (OSC 9;4 progress, bells, OSC 9/777
// notifications, its title), mapped to a badge for programs castellan does not know (issue 29).
//
// The screen (src/server/screen.ts) counts these events in one small object mutated in place, so a flood of
// OSC 9;4 or bells allocates nothing; detection reads a frozen copy in each snapshot and this module turns it,
// through the table below, into a Match the detector treats like a rule's. Every rule id starts with
// "generic." so pane info, `herd list` and `herd explain` show where the badge came from.
import type { Match } from './engine.js';
import type { DetectState } from './rules-schema.js';

/** Event counters of one screen. `seq` numbers every event; `*Seq` is the number of the latest of each kind. */
export interface TerminalSignals {
  seq: number;
  /** OSC 9;4 state: 0 none, 1 progress, 2 error, 3 indeterminate (busy), 4 paused/warning. */
  progress: number;
  progressSeq: number;
  bellSeq: number;
  notifySeq: number;
  titleSeq: number;
}

/**
 * OSC 9;4;<state>[;<percent>] (ConEmu, Windows Terminal, Ghostty...): records the state. `data` is the payload after
 * "9;". Malformed payloads change nothing. Parsed by char codes: a flood allocates nothing. Returns true if recorded.
 */
export function noteProgress(sig: TerminalSignals, data: string): boolean {
  if (data.length > 16 || data.charCodeAt(0) !== 0x34 /* 4 */) return false;
  if (data.length === 1) return set(sig, 0);
  if (data.charCodeAt(1) !== 0x3b /* ; */) return false;
  const st = data.charCodeAt(2) - 0x30;
  if (!(st >= 0 && st <= 4) || (data.length > 3 && data.charCodeAt(3) !== 0x3b)) return false;
  for (let i = 4; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return set(sig, st);
}

function set(sig: TerminalSignals, state: number): boolean {
  sig.progress = state;
  sig.progressSeq = ++sig.seq;
  return true;
}

/**
 * Programs that are no agent even though castellan does not know them: pagers, editors, monitors, remote and nested
 * terminals. Their panes keep the plain generic rules and no agent name. (Shells are identify.ts's SHELLS.)
 */
export const NOT_AGENTS: ReadonlySet<string> = new Set([
  'less', 'more', 'most', 'man', 'pg', 'bat', 'vim', 'vi', 'nvim', 'view', 'nano', 'pico', 'emacs', 'micro', 'hx', 'helix', 'kak', 'joe', 'ed',
  'top', 'htop', 'btop', 'atop', 'watch', 'tail', 'journalctl', 'ssh', 'mosh', 'mosh-client', 'tmux', 'screen', 'castellan', 'zellij',
  'mc', 'ranger', 'lf', 'nnn', 'fzf', 'sudo', 'su',
]);

/**
 * Whether a pane's foreground is read by the generic reader: something runs (`hasProcesses`), identification found no
 * agent and no shell (`source: 'none'`), and its leader's name is no pager or editor.
 */
export function isGenericProgram(source: string, agent: string | undefined, comm: string | undefined, hasProcesses: boolean): boolean {
  return !agent && source === 'none' && hasProcesses && !!comm && !NOT_AGENTS.has(comm);
}

/** What the reader sees: the snapshot's counters and title, and the counter when the user last typed. */
export interface SignalView {
  signals: TerminalSignals | undefined;
  title: string;
  /** `seq` when the user last typed: a bell or notification before it has been answered. */
  ackSeq: number;
  /** The program has spun its title (or said "working" there) before: a title at rest is then its prompt returning. */
  titleSpins?: boolean;
  /** The last BOTTOM_LINES non-blank rows of the screen, joined by \n. */
  bottom?: string;
}

interface SignalRule {
  id: string;
  state: DetectState;
  priority: number;
  busy: boolean;
  when(v: SignalView): boolean;
}

// Spinner glyphs programs put at the start of their title while they work: braille (cli-spinners "dots", Codex),
// quarter/half circles (Claude), ASCII bars. A glyph that stays put at rest (Claude's ✳) is not one.
const TITLE_SPINNER = /^\s*[\u2800-\u28ff◐◓◑◒◴◷◶◵◰◳◲◱|/\\-][\ufe0e\ufe0f]?\s/u;
const TITLE_WORKING = /\b(?:working|thinking|running|generating|processing)\b/i;
const TITLE_NEEDS_YOU = /\b(?:action required|needs? (?:your )?(?:input|attention|approval)|waiting for (?:you|input|approval)|approval required|permission required)\b/i;
const TITLE_IDLE = /^\W{0,4}\b(?:ready|idle|done)\b/i;

// A question with its approving option selected under it (a permission dialog): the shape Claude, Codex, Gemini, pi,
// Copilot and Qwen share (`Do you want to proceed?` / `❯ 1. Yes`, `Allow?` / `→ Yes`, inside │ borders or not), and
// the button row of opencode/Kilo (`Allow once   Allow always   Reject`). Written from the lab's still captures.
const DIALOG = [
  /\?[ \t│┃|]*$(?:\n[^\n]{0,300}){0,4}\n[ \t│┃|]*[❯›→●>▶][ \t]*(?:1[.)][ \t]*)?(?:Yes|Allow|Approve|Proceed)\b/mu,
  /^[ \t│┃|]*(?:Allow|Approve|Yes)\b[^\n]{0,80}\b(?:Reject|Deny)\b/mu,
];
export const BOTTOM_LINES = 16;
const MAX_ROW = 300;

/** The bottom non-blank rows the dialog patterns read (rows cut to MAX_ROW: a huge row costs no more). */
export function bottomText(lines: readonly string[]): string {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < BOTTOM_LINES; i--) if (lines[i].trim()) out.push(lines[i].slice(0, MAX_ROW));
  return out.reverse().join('\n');
}

const attention = (v: SignalView): number => (v.signals ? Math.max(v.signals.bellSeq, v.signals.notifySeq) : 0);
/** A working signal newer than the bell/notification: the program went on by itself. */
const busySince = (v: SignalView, seq: number): boolean => !!v.signals && ((v.signals.progress === 1 || v.signals.progress === 3) && v.signals.progressSeq > seq);

/** The table, highest priority first. Generic rules (generic.toml) above a signal's priority still win (a y/n question: 100). */
export const SIGNAL_RULES: readonly SignalRule[] = [
  { id: 'generic.dialog', state: 'blocked', priority: 96, busy: false, when: (v) => !!v.bottom && DIALOG.some((re) => re.test(v.bottom!)) },
  { id: 'generic.osc9-4-paused', state: 'blocked', priority: 95, busy: false, when: (v) => v.signals?.progress === 4 },
  { id: 'generic.title-needs-you', state: 'blocked', priority: 95, busy: false, when: (v) => TITLE_NEEDS_YOU.test(v.title) },
  {
    id: 'generic.bell', state: 'blocked', priority: 94, busy: false,
    when: (v) => !!v.signals && v.signals.bellSeq > v.ackSeq && v.signals.bellSeq >= v.signals.notifySeq && !busySince(v, v.signals.bellSeq),
  },
  {
    id: 'generic.notify', state: 'blocked', priority: 94, busy: false,
    when: (v) => !!v.signals && v.signals.notifySeq > v.ackSeq && !busySince(v, v.signals.notifySeq),
  },
  { id: 'generic.osc9-4', state: 'working', priority: 90, busy: true, when: (v) => v.signals?.progress === 1 || v.signals?.progress === 3 },
  { id: 'generic.title-spinner', state: 'working', priority: 85, busy: true, when: (v) => TITLE_SPINNER.test(v.title) },
  { id: 'generic.title-working', state: 'working', priority: 85, busy: true, when: (v) => TITLE_WORKING.test(v.title) },
  { id: 'generic.title-rest', state: 'idle', priority: 60, busy: false, when: (v) => !!v.titleSpins && v.ackSeq >= attention(v) },
  { id: 'generic.title-ready', state: 'idle', priority: 60, busy: false, when: (v) => TITLE_IDLE.test(v.title) && v.ackSeq >= attention(v) },
];

/** The first signal rule that holds, as a Match (the detector weighs it against the rules' match by priority). */
export function readSignals(v: SignalView): Match | undefined {
  for (const r of SIGNAL_RULES) {
    if (r.when(v)) return { state: r.state, rule: r.id, busy: r.busy, plain: r.state === 'blocked', priority: r.priority, source: 'generic-signals' };
  }
  return undefined;
}

const TITLE_BUSY = new Set(['generic.title-spinner', 'generic.title-working']);

/** One pane's generic reader: the signal table plus the little it remembers (the last input, whether the title spins). */
export class GenericReader {
  /** The screen's `signalSeq` when the user last typed. */
  ackSeq = 0;
  private titleSpins = false;
  read(snap: { signals?: TerminalSignals; title: string; lines: readonly string[] }): Match | undefined {
    const m = this.peek(snap);
    if (m && TITLE_BUSY.has(m.rule)) this.titleSpins = true;
    return m;
  }
  /** The same reading without learning from it (`herd explain`). */
  peek(snap: { signals?: TerminalSignals; title: string; lines: readonly string[] }): Match | undefined {
    return readSignals({ signals: snap.signals, title: snap.title, ackSeq: this.ackSeq, titleSpins: this.titleSpins, bottom: bottomText(snap.lines) });
  }
}

/** The higher-priority of a rule match and a signal match (ties: the rule, which is the more specific). */
export function preferMatch(rule: Match | undefined, signal: Match | undefined): Match | undefined {
  if (!signal) return rule;
  if (!rule) return signal;
  return signal.priority > rule.priority ? signal : rule;
}
