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
const MAX_SPAN = 60; // how many lines a multi-line value may span in line-by-line recovery
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

/** Parses `text`; on a syntax error keeps every table chunk, and then every line, that still parses. */
export function parseTomlRecovering(input: string): RecoveredToml {
  const text = input.replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/); // as smol-toml counts lines
  const whole = tryParse(text);
  if (whole.ok) return { value: whole.value, errors: [], locate: locator(lines, lines.map((_, i) => i + 1)) };

  // The document is rebuilt from pieces that parse together with everything kept so far, so arrays of
  // tables, sub-tables and duplicate keys behave exactly as they would in a whole file.
  const good: string[] = [];
  const goodMap: number[] = [];
  const errors: TomlProblem[] = [];
  let unreportedLine = 0;
  let unreportedCount = 0;
  const report = (line: number, message: string) => {
    if (errors.some((e) => e.line === line)) return;
    if (errors.length < MAX_ERRORS) errors.push({ line, message });
    else if (unreportedCount++ === 0) unreportedLine = line;
  };
  const append = (from: number, to: number): { line: number; message: string } | null => {
    const piece = lines.slice(from, to);
    const r = tryParse([...good, ...piece].join('\n'));
    if (!r.ok) {
      const line = r.line <= good.length ? goodMap[r.line - 1] : Math.min(to, from + (r.line - good.length));
      return { line, message: r.message };
    }
    good.push(...piece);
    for (let i = from; i < to; i++) goodMap.push(i + 1);
    return null;
  };

  const info = scan(lines);
  const starts = [0, ...info.flatMap((l, i) => (l.header && i > 0 ? [i] : []))];
  starts.forEach((start, k) => {
    const end = k + 1 < starts.length ? starts[k + 1] : lines.length;
    const err = append(start, end);
    if (!err) return;
    // Line-by-line recovery names the lines it really drops; the chunk's own error is the fallback,
    // since smol-toml often notices an unclosed value a line or more after it starts.
    const before = errors.length;
    recoverLines(start, end);
    if (errors.length === before) report(err.line, `syntax error: ${err.message}`);
  });

  function recoverLines(start: number, end: number): void {
    let skipping = false;
    for (let i = start; i < end; i++) {
      const line = lines[i];
      if (isBlank(line)) continue;
      if ((i === start && info[i].header) || STRICT_HEADER.test(line)) {
        const err = append(i, i + 1);
        skipping = err !== null;
        if (err) report(i + 1, `syntax error: ${err.message}; the keys of this table are ignored`);
        continue;
      }
      if (skipping) continue;
      const alone = tryParse(line);
      if (alone.ok) {
        const err = append(i, i + 1);
        if (err) report(i + 1, `${err.message}; line ignored`);
        continue;
      }
      // A value may span lines (arrays, multi-line strings): grow the piece until it parses.
      let taken = 0;
      if (/[[{]|"""|'''/.test(line)) {
        for (let j = i + 2; j <= Math.min(end, i + MAX_SPAN); j++) {
          if (STRICT_HEADER.test(lines[j - 1])) break;
          if (tryParse(lines.slice(i, j).join('\n')).ok) {
            if (!append(i, j)) taken = j - i;
            break;
          }
        }
      }
      if (taken > 0) i += taken - 1;
      else report(i + 1, `syntax error: ${alone.message}; line ignored`);
    }
  }

  if (unreportedCount > 0) errors.push({ line: unreportedLine, message: `${unreportedCount} more syntax errors from here on are not listed` });
  const value = tryParse(good.join('\n'));
  return {
    value: value.ok ? value.value : {},
    errors: errors.sort((a, b) => a.line - b.line),
    locate: locator(good, goodMap),
  };
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
  const note = (p: Segs, line: number) => {
    for (let n = 1; n <= p.length; n++) if (!found.has(k(p.slice(0, n)))) found.set(k(p.slice(0, n)), line);
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
    for (let n = path.length; n > 0; n--) {
      const line = found.get(k(path.slice(0, n)));
      if (line !== undefined) return line;
    }
    return undefined;
  };
}
