// TOML parsing that survives syntax errors (keeps every table and line that parses) and finds key lines.
// The only importer of smol-toml.
import { parse } from 'smol-toml';
import { stripControls } from '../core/text.js';

export interface TomlProblem {
  line: number;
  message: string;
}

export interface RecoveredToml {
  value: Record<string, unknown>;
  errors: TomlProblem[];
  /** 1-based line of the key (or the nearest enclosing table) at `path`; numbers index arrays of tables. */
  locate(path: ReadonlyArray<string | number>): number | undefined;
}

type Segs = Array<string | number>;

// Deep nesting is never meaningful in a config and would only make hostile input expensive.
const OPTIONS = { unsafeKeyBehaviour: 'drop', maxDepth: 32 } as const;
const MAX_ERRORS = 50;
const MAX_SPAN = 60;
const MAX_LINE = 8192; // how many lines a multi-line value may span in line-by-line recovery
// A table header as people write them: trusted in recovery, where the scanner's state is not.
const STRICT_HEADER = /^\[\[?\s*[A-Za-z0-9_\-"'][A-Za-z0-9_\-."' \t]*\]\]?\s*(#.*)?$/;

function tomlMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const first = raw.split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
  return stripControls(first) || 'syntax error';
}

function tryParse(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; line: number; message: string } {
  try {
    return { ok: true, value: parse(text, OPTIONS) as Record<string, unknown> };
  } catch (e) {
    const line = typeof (e as { line?: unknown }).line === 'number' ? (e as { line: number }).line : 1;
    return { ok: false, line, message: tomlMessage(e) };
  }
}

interface LineInfo {
  /** The line starts outside any multi-line string or bracket, so it can begin a header or a key. */
  clean: boolean;
  header: boolean;
}

/** Tracks multi-line strings and open brackets so headers inside values are not mistaken for tables. */
function scan(lines: readonly string[]): LineInfo[] {
  let str: '"""' | "'''" | null = null;
  let depth = 0;
  return lines.map((line) => {
    const clean = str === null && depth === 0;
    // An unclosed `[` makes the rest of the file one chunk; line-by-line recovery, which trusts
    // strict headers, then still saves the tables after it.
    if (clean && /^\s*\[/.test(line)) return { clean, header: true };
    let i = 0;
    while (i < line.length) {
      if (str !== null) {
        const end = line.indexOf(str, i);
        if (end < 0) break;
        i = end + 3;
        str = null;
        continue;
      }
      const c = line[i];
      if (c === '#') break;
      if (c === '"' || c === "'") {
        if (line.startsWith(c.repeat(3), i)) {
          str = c === '"' ? '"""' : "'''";
          i += 3;
          continue;
        }
        i++;
        while (i < line.length && line[i] !== c) i += c === '"' && line[i] === '\\' ? 2 : 1;
      } else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
      i++;
    }
    return { clean, header: false };
  });
}

const isBlank = (line: string) => /^\s*(#.*)?$/.test(line);
// A multi-line value can only end on a line that closes something.
const mayClose = (line: string) => /[\]}]|"""|'''/.test(line);

/**
 * How much parsing recovery may do. smol-toml costs ~50 µs per failed parse and ~0.5 µs per byte, so without a
 * bound 10,000 bad lines took 36 s. Recovery stops when either runs out and ignores the rest of the file.
 */
class Budget {
  private attempts = 0;
  private bytes = 0;
  constructor(private readonly maxBytes: number, private readonly maxAttempts = 1500) {}
  spend(text: string): void {
    this.attempts++;
    this.bytes += text.length;
  }
  get out(): boolean {
    return this.attempts >= this.maxAttempts || this.bytes >= this.maxBytes;
  }
}

interface Piece {
  from: number;
  to: number;
}

/**
 * Parses `text`; on a syntax error keeps every table chunk, and then every line, that still parses, within a
 * bounded amount of work (see Budget). Each piece is first checked alone, then all are parsed together once, so
 * arrays of tables, sub-tables and duplicate keys behave as in a whole file; a piece that clashes with the
 * others there is dropped and reported.
 */
export function parseTomlRecovering(input: string): RecoveredToml {
  const lines = input.replace(/^\uFEFF/, '').split(/\r?\n/); // as smol-toml counts lines
  // No config line is this long; such a line (a 50,000-part dotted key costs the parser 0.3 s) is dropped unread.
  const tooLong: TomlProblem[] = [];
  lines.forEach((line, i) => {
    if (line.length <= MAX_LINE) return;
    lines[i] = '';
    if (tooLong.length < MAX_ERRORS) tooLong.push({ line: i + 1, message: `line longer than ${MAX_LINE} characters; ignored` });
  });
  const text = lines.join('\n');
  const whole = tryParse(text);
  if (whole.ok) return { value: whole.value, errors: tooLong, locate: locator(lines, lines.map((_, i) => i + 1)) };

  const budget = new Budget(4 * text.length + 64 * 1024);
  const attempt = (piece: string) => {
    budget.spend(piece);
    return tryParse(piece);
  };
  const pieces: Piece[] = [];
  const errors: TomlProblem[] = [...tooLong];
  let stoppedAt: number | undefined;
  const report = (line: number, message: string) => {
    if (!errors.some((e) => e.line === line)) errors.push({ line, message });
  };
  const stop = (line: number): boolean => {
    if (stoppedAt === undefined && (budget.out || errors.length >= MAX_ERRORS)) stoppedAt = line;
    return stoppedAt !== undefined;
  };
  const slice = (from: number, to: number) => lines.slice(from, to).join('\n');

  const info = scan(lines);
  const starts = [0, ...info.flatMap((l, i) => (l.header && i > 0 ? [i] : []))];
  const chunkEnd = (k: number) => (k + 1 < starts.length ? starts[k + 1] : lines.length);
  // Runs of chunks are tried together and halved only where they fail, so one error among 3,000 good tables
  // costs a dozen parses, not 3,000.
  const keep = (lo: number, hi: number, knownBad: boolean): void => {
    if (stop(starts[lo] + 1)) return;
    const from = starts[lo];
    const to = chunkEnd(hi - 1);
    const r = knownBad ? undefined : attempt(slice(from, to));
    if (r?.ok) {
      pieces.push({ from, to });
      return;
    }
    if (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      keep(lo, mid, false);
      keep(mid, hi, false);
      return;
    }
    // Line-by-line recovery names the lines it really drops; the chunk's own error is the fallback,
    // since smol-toml often notices an unclosed value a line or more after it starts.
    const own = r ?? attempt(slice(from, to));
    const before = errors.length;
    recoverLines(from, to);
    if (errors.length === before && stoppedAt === undefined && !own.ok) report(Math.min(to, from + own.line), `syntax error: ${own.message}`);
  };
  keep(0, starts.length, true);

  function recoverLines(start: number, end: number): void {
    let skipping = false;
    for (let i = start; i < end; i++) {
      const line = lines[i];
      if (isBlank(line)) continue;
      if (stop(i + 1)) return;
      if ((i === start && info[i].header) || STRICT_HEADER.test(line)) {
        const r = attempt(line);
        skipping = !r.ok;
        if (r.ok) pieces.push({ from: i, to: i + 1 });
        else report(i + 1, `syntax error: ${r.message}; the keys of this table are ignored`);
        continue;
      }
      if (skipping) continue;
      const alone = attempt(line);
      if (alone.ok) {
        pieces.push({ from: i, to: i + 1 });
        continue;
      }
      // A value may span lines (arrays, multi-line strings): grow the piece until it parses.
      let taken = 0;
      if (/[[{]|"""|'''/.test(line)) {
        for (let j = i + 2; j <= Math.min(end, i + MAX_SPAN) && !budget.out; j++) {
          if (STRICT_HEADER.test(lines[j - 1])) break;
          if (!mayClose(lines[j - 1])) continue;
          if (attempt(slice(i, j)).ok) {
            taken = j - i;
            pieces.push({ from: i, to: j });
            break;
          }
        }
      }
      if (taken > 0) i += taken - 1;
      else report(i + 1, `syntax error: ${alone.message}; line ignored`);
    }
  }

  // Everything kept parses alone; together, a piece may still clash (a duplicate key or table): drop it and retry.
  const build = (ps: readonly Piece[]) => {
    const good: string[] = [];
    const map: number[] = [];
    for (const p of ps) for (let i = p.from; i < p.to; i++) {
      good.push(lines[i]);
      map.push(i + 1);
    }
    return { good, map };
  };
  let kept = pieces;
  let doc = build(kept);
  let value: Record<string, unknown> = {};
  for (let tries = 0; ; tries++) {
    const r = attempt(doc.good.join('\n'));
    if (r.ok) {
      value = r.value;
      break;
    }
    const line = doc.map[Math.min(doc.map.length, Math.max(1, r.line)) - 1] ?? 1;
    if (tries >= 8 || budget.out) {
      // Out of budget: the longest run of pieces from the top that parses together, by bisection.
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (tryParse(build(kept.slice(0, mid)).good.join('\n')).ok) lo = mid;
        else hi = mid - 1;
      }
      const rest = kept[lo];
      kept = kept.slice(0, lo);
      doc = build(kept);
      const v = tryParse(doc.good.join('\n'));
      value = v.ok ? v.value : {};
      if (rest) stoppedAt = Math.min(stoppedAt ?? Infinity, rest.from + 1);
      break;
    }
    const bad = kept.findIndex((p) => line >= p.from + 1 && line <= p.to);
    report(line, `${r.message}; ${bad >= 0 && kept[bad].to - kept[bad].from > 1 ? 'lines ignored' : 'line ignored'}`);
    kept = bad >= 0 ? kept.filter((_, i) => i !== bad) : kept.slice(0, -1);
    doc = build(kept);
  }
  if (stoppedAt !== undefined) {
    const why = errors.length >= MAX_ERRORS ? `more than ${MAX_ERRORS} syntax errors` : 'too many errors to recover from cheaply';
    errors.push({ line: stoppedAt, message: `${why}: the rest of the file from here on is ignored` });
  }
  return { value, errors: errors.sort((a, b) => a.line - b.line), locate: locator(doc.good, doc.map) };
}

/** Reads a dotted TOML key (bare, "basic" or 'literal' parts) starting at `pos`. */
function readKey(s: string, pos: number): { segs: string[]; pos: number } | null {
  const segs: string[] = [];
  let i = pos;
  for (;;) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    const c = s[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < s.length && s[j] !== c) j += c === '"' && s[j] === '\\' ? 2 : 1;
      const raw = s.slice(i, j + 1);
      let seg = raw.slice(1, -1);
      if (c === '"') {
        try {
          seg = JSON.parse(raw) as string;
        } catch {
          // TOML escapes JSON does not know (\U, \e) only matter for locating; the raw text is close enough.
        }
      }
      segs.push(seg);
      i = j + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) return null;
      segs.push(m[0]);
      i += m[0].length;
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] !== '.') return { segs, pos: i };
    i++;
  }
}

/** Maps key paths in a valid document to the original line numbers, for diagnostics. */
function locator(lines: readonly string[], map: readonly number[]): RecoveredToml['locate'] {
  const found = new Map<string, number>();
  const arrayIndex = new Map<string, number>();
  const k = (p: Segs) => JSON.stringify(p);
  // Only the first levels of a key are noted: config keys are never deeper, and a 50,000-part dotted key
  // would otherwise cost quadratic memory here (it once exhausted the heap).
  const note = (p: Segs, line: number) => {
    for (let n = 1; n <= Math.min(p.length, OPTIONS.maxDepth); n++) if (!found.has(k(p.slice(0, n)))) found.set(k(p.slice(0, n)), line);
  };
  let table: Segs = [];
  const info = scan(lines);
  lines.forEach((line, idx) => {
    if (!info[idx].clean || isBlank(line)) return;
    const lineNo = map[idx];
    const trimmed = line.trimStart();
    if (info[idx].header) {
      const isArray = trimmed.startsWith('[[');
      const key = readKey(trimmed, isArray ? 2 : 1);
      if (!key) return;
      const path: Segs = [];
      key.segs.forEach((seg, n) => {
        path.push(seg);
        const open = arrayIndex.get(k(path));
        if (n < key.segs.length - 1 && open !== undefined) path.push(open);
      });
      if (isArray) {
        const i = (arrayIndex.get(k(path)) ?? -1) + 1;
        arrayIndex.set(k(path), i);
        path.push(i);
      }
      table = path;
      note(path, lineNo);
      return;
    }
    const key = readKey(line, 0);
    if (key && line[key.pos] === '=') note([...table, ...key.segs], lineNo);
  });
  return (path) => {
    for (let n = Math.min(path.length, OPTIONS.maxDepth); n > 0; n--) {
      const line = found.get(k(path.slice(0, n)));
      if (line !== undefined) return line;
    }
    return undefined;
  };
}
