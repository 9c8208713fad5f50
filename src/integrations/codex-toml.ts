// Codex's `notify` setting in config.toml: added as one marked line (never replacing someone else's notify), removed the same way.
import { parseTomlRecovering } from '../config/toml.js';

export const NOTIFY_MARK = '# castellan: turn-complete notifications to the castellan hook bridge (castellan integrations uninstall codex removes this)';

export type NotifyStatus = 'added' | 'updated' | 'unchanged' | 'foreign' | 'unparsable';

export interface NotifyPlan {
  text: string;
  status: NotifyStatus;
  /** The notify command already configured by someone else (status foreign). */
  foreign?: unknown;
}

const tomlString = (s: string) => JSON.stringify(s); // JSON escapes are valid TOML basic-string escapes
export const notifyLine = (argv: readonly string[]) => `notify = [${argv.map(tomlString).join(', ')}]`;

function isOurLine(line: string): boolean {
  return /^\s*notify\s*=/.test(line) && /castellan(?:\.js)?'?\s+hook\s/.test(line.replace(/\\"/g, '"'));
}

function topLevelNotify(text: string): { ok: boolean; notify?: unknown } {
  const t = parseTomlRecovering(text);
  return { ok: t.errors.length === 0, notify: t.value.notify };
}

/** Where a top-level key can go: before the first table header (a line that starts a `[table]`), else at the end. */
function insertAt(lines: string[]): number {
  const i = lines.findIndex((l) => /^\s*\[\[?\s*[A-Za-z0-9_"'-]/.test(l));
  return i === -1 ? lines.length : i;
}

export function planNotify(text: string | undefined, argv: readonly string[]): NotifyPlan {
  const src = text ?? '';
  const want = notifyLine(argv);
  const before = topLevelNotify(src);
  if (!before.ok) return { text: src, status: 'unparsable' };
  const lines = src.split('\n');
  const mine = lines.findIndex(isOurLine);
  if (mine !== -1) {
    if (lines[mine] === want) return { text: src, status: 'unchanged' };
    lines[mine] = want;
    return { text: lines.join('\n'), status: 'updated' };
  }
  if (before.notify !== undefined) return { text: src, status: 'foreign', foreign: before.notify };
  let text2: string;
  if (!src.trim()) text2 = `${NOTIFY_MARK}\n${want}\n`;
  else {
    let at = insertAt(lines);
    if (at === lines.length && lines[at - 1] === '') at--; // before the final newline
    const block = [NOTIFY_MARK, want];
    if (at > 0 && lines[at - 1].trim() !== '') block.unshift('');
    if (at < lines.length && lines[at].trim() !== '') block.push('');
    text2 = [...lines.slice(0, at), ...block, ...lines.slice(at)].join('\n');
  }
  // Trust only what the parser confirms: notify must now be exactly ours, at the top level.
  const after = topLevelNotify(text2);
  if (!after.ok || JSON.stringify(after.notify) !== JSON.stringify(argv)) {
    const fallback = `${NOTIFY_MARK}\n${want}\n\n${src}`;
    const check = topLevelNotify(fallback);
    if (!check.ok || JSON.stringify(check.notify) !== JSON.stringify(argv)) return { text: src, status: 'unparsable' };
    return { text: fallback, status: 'added' };
  }
  return { text: text2, status: 'added' };
}

/** Removes castellan's notify line and its marker comment (plus the blank line that came with them). */
export function removeNotify(text: string | undefined): { text: string; removed: boolean } {
  if (text === undefined) return { text: '', removed: false };
  const lines = text.split('\n');
  const i = lines.findIndex(isOurLine);
  if (i === -1) return { text, removed: false };
  const start = lines[i - 1] === NOTIFY_MARK ? i - 1 : i;
  lines.splice(start, i + 1 - start);
  // Our block came with one blank line: collapse the double blank it leaves behind.
  if (start > 0 && lines[start - 1] === '' && lines[start] === '') lines.splice(start, 1);
  else if (start === 0 && lines[0] === '' && lines.length > 1) lines.splice(0, 1);
  const out = lines.join('\n');
  return { text: out.trim() ? out : '', removed: true };
}
