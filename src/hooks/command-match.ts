// Which commands a command line runs, for command rules ("git push" = "deny"): parsed by mvdan/sh, wrappers seen through.
import { createRequire } from 'node:module';
import { WRAPPERS, SHELLS, type Wrapper } from './command-wrappers.js';

/** A simple command's words; `undefined` stands for a word whose value is only known when it runs (`$G`, `$(...)`). */
export type Words = Array<string | undefined>;

/**
 * Scripts past this are not parsed (a command line is a few KB); they are scanned word by word instead, which errs
 * toward matching. The GopherJS parser takes ~27 µs a statement and ~30 µs to visit one node of its tree, so these
 * two bounds keep a hostile line under ~0.2 s of CPU.
 */
const MAX_SCRIPT = 16 * 1024;
const MAX_NODES = 2000;
/** Statement separators past this many: a generated line, scanned rather than parsed (parse time grows with them). */
const MAX_SEPARATORS = 200;
const OVER_BUDGET = new Error('over the node budget');
/** sh -c inside sh -c inside ...: deeper than this is not a command line a person wrote; it counts as matching. */
const MAX_DEPTH = 8;
/** How far after the command's name its subcommand may stand (`git -C dir -c k=v --no-pager push`). */
const REACH = 12;

// mvdan/sh compiled to JavaScript (its official GopherJS build): ~130 ms to load, so only on the first command rule.
type Sh = { syntax: { NewParser(): { Parse(src: string, name: string): unknown }; Walk(n: unknown, f: (n: any) => boolean): void; NodeType(n: unknown): string } };
let sh: Sh | undefined;
const syntax = () => (sh ??= createRequire(import.meta.url)('mvdan-sh') as Sh).syntax;

const base = (w: string) => w.split('/').pop() ?? w;

/** A word's value when it is all literal (quotes removed, `g"i"t` is `git`), else undefined. */
function wordText(w: { Parts: unknown[] }, quoted = false): string | undefined {
  let out = '';
  for (const p of w.Parts as Array<{ Value?: string; Parts?: unknown[] }>) {
    const t = syntax().NodeType(p);
    if (t === 'Lit') out += quoted ? p.Value!.replace(/\\([$`"\\\n])/g, '$1') : p.Value!.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
    else if (t === 'SglQuoted') out += p.Value!;
    else if (t === 'DblQuoted') {
      const inner = wordText({ Parts: p.Parts ?? [] }, true);
      if (inner === undefined) return undefined;
      out += inner;
    } else return undefined;
  }
  return out;
}

/** The simple commands of a script, nested ones (`$(...)`, subshells, heredocs fed to a shell) included; undefined if it does not parse. */
function parseScript(script: string, budget: { nodes: number }): { commands: Words[]; heredocs: string[]; aliases: Map<string, string> } | undefined {
  if (script.length > MAX_SCRIPT || budget.nodes <= 0) return undefined;
  let seps = 0;
  for (let i = 0; i < script.length && seps <= MAX_SEPARATORS; i++) if (';&|\n'.includes(script[i])) seps++;
  if (seps > MAX_SEPARATORS) return undefined;
  const S = syntax();
  let file: unknown;
  try {
    file = S.NewParser().Parse(script, '');
  } catch {
    return undefined;
  }
  const commands: Words[] = [];
  const heredocs: string[] = [];
  const aliases = new Map<string, string>();
  try {
    S.Walk(file, (n) => {
      if (!n) return true;
      if (--budget.nodes < 0) throw OVER_BUDGET;
      const t = S.NodeType(n);
      if (t === 'CallExpr') {
        const ws: Words = (n.Args as Array<{ Parts: unknown[] }>).map((w) => wordText(w));
        if (ws.length) commands.push(ws);
        if (ws[0] === 'alias') for (const a of ws.slice(1)) if (a?.includes('=')) aliases.set(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1));
      } else if (t === 'Stmt') {
        for (const r of n.Redirs as Array<{ Hdoc?: { Parts: unknown[] } | null; Word?: { Parts: unknown[] } | null }>) {
          // A heredoc or here-string may be a script its command reads (`bash <<EOF`, `sh <<< 'git push'`).
          const body = r.Hdoc ? wordText(r.Hdoc, true) : r.Word ? wordText(r.Word) : undefined;
          if (body !== undefined && (r.Hdoc || /\s/.test(body))) heredocs.push(body);
        }
      }
      return true;
    });
  } catch {
    return undefined;
  }
  return { commands, heredocs, aliases };
}

/** The words after a wrapper's own options and operands: the command it runs, and any option value that is a script. */
function peel(w: Wrapper, args: Words): { rest: Words; scripts: string[] } {
  const scripts: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) break;
    if (a === '--') {
      i++;
      break;
    }
    if (w.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) continue;
    if (!a.startsWith('-') || a === '-') break;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    // A short flag with its value attached (`-n10`, `-uroot`) takes nothing more.
    const attached = !flag.startsWith('--') && flag.length > 2 && w.valued?.includes(flag.slice(0, 2));
    const key = attached ? flag.slice(0, 2) : flag;
    const value = inline ?? (attached ? flag.slice(2) : w.valued?.includes(key) ? args[++i] : undefined);
    if (w.script?.includes(key) && value !== undefined) scripts.push(value);
  }
  return { rest: args.slice(i + (w.operands ?? 0)), scripts };
}

/** Every simple command an argv may run: itself, what its wrappers run, and the scripts its shells are given. */
export function commandsRun(argv: readonly string[]): { commands: Words[]; opaque: boolean } {
  const commands: Words[] = [];
  let opaque = false;
  /** A shell with no script and no file reads one from its input (`echo 'git push' | sh`). */
  let stdinShell = false;
  const budget = { nodes: MAX_NODES };
  const queue: Array<{ ws: Words; depth: number; aliases?: Map<string, string> }> = [{ ws: [...argv], depth: 0 }];
  const script = (text: string, depth: number) => {
    if (depth > MAX_DEPTH) return void (opaque = true);
    const parsed = parseScript(text, budget);
    // What does not parse is still scanned: its words split at anything that is not part of a name.
    if (!parsed) return void commands.push(text.slice(0, 8 * 1024 * 1024).split(/[\s;&|(){}`!<>$"'\\]+/).filter(Boolean));
    for (const ws of parsed.commands) queue.push({ ws, depth, aliases: parsed.aliases });
    for (const h of parsed.heredocs) script(h, depth + 1);
    // An alias's value runs wherever the alias does: judge it as a command line of its own.
    for (const v of parsed.aliases.values()) script(v, depth + 1);
  };
  for (let n = 0; n < queue.length && n < 10_000; n++) {
    const { depth, aliases } = queue[n];
    let ws = queue[n].ws;
    while (ws.length && ws[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[0])) ws = ws.slice(1);
    if (!ws.length) continue;
    const name = ws[0] === undefined ? undefined : base(ws[0]);
    const alias = name !== undefined ? aliases?.get(name) : undefined;
    if (alias !== undefined) {
      script(`${alias} ${ws.slice(1).map((w) => (w === undefined ? '"$_"' : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ')}`, depth + 1);
      continue;
    }
    commands.push(ws);
    // `$CMD args`: the shell splits the value into words, so the command could be anything.
    if (name === undefined) {
      opaque = true;
      continue;
    }
    // A shell or eval later in the words (`find . -exec sh -c '...' \;`, an unknown wrapper) is a command of its own.
    for (let i = 1; i < ws.length; i++) if (ws[i] !== undefined && (SHELLS.has(base(ws[i]!)) || ws[i] === 'eval')) queue.push({ ws: ws.slice(i), depth: depth + 1 });
    if (SHELLS.has(name)) {
      if (depth > MAX_DEPTH) opaque = true;
      // `bash -lc 'git push'`: the first operand after a flag cluster holding c is the script.
      const rest = ws.slice(1);
      const c = rest.findIndex((a) => a !== undefined && /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
      const at = rest.findIndex((a, i) => i > c && (a === undefined || !a.startsWith('-')));
      if (c >= 0 && at >= 0) {
        const text = rest[at];
        // `bash -c "$CMD"`: a script known only when it runs could be anything.
        if (text === undefined) opaque = true;
        else script(text, depth + 1);
      } else if (at < 0) stdinShell = true;
      continue;
    }
    if (name === 'eval') {
      script(ws.slice(1).map((w) => w ?? '"$_"').join(' '), depth + 1);
      continue;
    }
    const w = WRAPPERS[name];
    if (!w) continue;
    const { rest, scripts } = peel(w, ws.slice(1));
    // Script options may follow the operands too (`flock FILE -c 'git push'`).
    for (let i = 1; i + 1 < ws.length; i++) if (w.script?.includes(ws[i]!) && ws[i + 1] !== undefined && !scripts.includes(ws[i + 1]!)) scripts.push(ws[i + 1]!);
    for (const s of scripts) script(s, depth + 1);
    if (w.joined && rest.length) script(rest.map((x) => x ?? '"$_"').join(' '), depth + 1);
    else if (rest.length) queue.push({ ws: rest, depth, ...(aliases ? { aliases } : {}) });
  }
  // What a shell reads from its input cannot be known; any word of the line that is itself a command line may be it.
  if (stdinShell) {
    const words = commands.flat().filter((w): w is string => w !== undefined && /\s/.test(w));
    for (const w of words) for (const ws of parseScript(w, budget)?.commands ?? [w.split(/\s+/)]) commands.push(ws);
  }
  return { commands, opaque };
}

/** The rest of `want` in order among the words after position i (`git -C dir push` runs `git push`). */
function follows(ws: Words, i: number, want: readonly string[]): boolean {
  let k = 1;
  for (let j = i + 1; j < Math.min(ws.length, i + REACH) && k < want.length; j++) if (ws[j] === undefined || ws[j] === want[k]) k++;
  return k === want.length;
}

/**
 * Does `argv` run the command that `key`'s words name? Each simple command the line may run is checked at every
 * word, so a wrapper castellan has never heard of is seen through too (`strace -f git push`). It errs on the side of
 * matching (`echo git push`, `$TOOL push`): these rows tighten, so a false match asks or denies, a missed one would
 * let the call through. What it cannot see: a program that runs git itself, or a script read from a file or a pipe.
 */
export function runsCommand(argv: readonly string[], key: string): boolean {
  const want = key.trim().split(/\s+/).filter(Boolean);
  if (!want.length) return false;
  const { commands, opaque } = commandsRun(argv);
  if (opaque) return true;
  for (const ws of commands) {
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i];
      if ((w === undefined || base(w) === want[0]) && follows(ws, i, want)) {
        // A word known only at run time stands for the command's name only where it is the name (`$G push`).
        if (w === undefined && i > 0) continue;
        return true;
      }
    }
  }
  return false;
}
