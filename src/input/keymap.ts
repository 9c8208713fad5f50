// Key-spec grammar ("prefix %", "M-Left", "ctrl+b") and building the keymap from defaults plus user overrides.
import { COMMAND_TABLE, parseCommand } from '../core/commands.js';
import { DEFAULT_PREFIX } from './default-keymap.js';
import { NAMED_KEYS, composeKey, isKeyBase, type Mods } from './key-names.js';

export type KeyTable = 'prefix' | 'root';

export interface Binding {
  table: KeyTable;
  /** Canonical key name (see key-names.ts). */
  key: string;
  /** A command line for parseCommand, e.g. "pane.split right". */
  command: string;
  description: string;
  /** Heading in the help overlay: "Panes", "Windows", "Agents", ... */
  group: string;
  /** tmux `bind -r`: may be pressed again without the prefix within the router's repeat window. */
  repeat?: boolean;
}

export interface KeymapDiagnostic {
  severity: 'error' | 'warning';
  key?: string;
  message: string;
}

export interface Keymap {
  prefix: string;
  bindings: Binding[];
  lookup(table: KeyTable, key: string): Binding | undefined;
}

/** Group given to user bindings on keys that have no default. */
export const CUSTOM_GROUP = 'Custom';

const MOD_WORDS: Record<string, keyof Mods> = {
  c: 'ctrl', ctrl: 'ctrl', control: 'ctrl',
  m: 'meta', alt: 'meta', meta: 'meta', opt: 'meta', option: 'meta',
  s: 'shift', shift: 'shift',
};

/** Lower-case spellings (tmux's, browsers', common ones) of the named keys. */
const KEY_ALIASES: Record<string, string> = {
  ...Object.fromEntries(NAMED_KEYS.map((k) => [k.toLowerCase(), k])),
  return: 'Enter', ret: 'Enter', cr: 'Enter', backtab: 'BTab', spc: 'Space',
  backspace: 'BSpace', bs: 'BSpace', esc: 'Escape',
  pgup: 'PageUp', ppage: 'PageUp', pgdn: 'PageDown', pgdown: 'PageDown', npage: 'PageDown',
  ins: 'Insert', ic: 'Insert', del: 'Delete', dc: 'Delete',
  arrowup: 'Up', arrowdown: 'Down', arrowleft: 'Left', arrowright: 'Right',
};

type KeyResult = { ok: true; key: string } | { ok: false; error: string };

/** Turns a key name as a user might write it (`^B`, `Ctrl-b`, `alt+x`, `shift+up`, `PgUp`) into its canonical name. */
export function normalizeKey(input: string): KeyResult {
  let rest = typeof input === 'string' ? input.trim() : '';
  if (!rest) return { ok: false, error: 'empty key name' };
  const mods: Mods = { ctrl: false, meta: false, shift: false };
  if (rest.length > 1 && rest.startsWith('^') && [...rest].length === 2) {
    mods.ctrl = true;
    rest = rest.slice(1);
  }
  for (let m = /^([A-Za-z]+)[-+](.+)$/su.exec(rest); m && MOD_WORDS[m[1].toLowerCase()]; m = /^([A-Za-z]+)[-+](.+)$/su.exec(rest)) {
    mods[MOD_WORDS[m[1].toLowerCase()]] = true;
    rest = m[2];
  }
  const base = [...rest].length === 1 ? rest : KEY_ALIASES[rest.toLowerCase()];
  if (base === undefined) {
    const hint = /\s/.test(rest) ? ' (key sequences are not supported; bind one key)' : '';
    return { ok: false, error: `unknown key "${input.trim()}"${hint}` };
  }
  if (!isKeyBase(base)) return { ok: false, error: `"${input.trim()}" is a control character; write it as a name such as C-a or Tab` };
  return { ok: true, key: composeKey(mods, base) };
}

/** `"<key>"` is the root table (no prefix); `"prefix <key>"` is pressed after the prefix. `"root <key>"` also works. */
export function parseKeySpec(spec: string): { ok: true; table: KeyTable; key: string } | { ok: false; error: string } {
  if (typeof spec !== 'string' || !spec.trim()) return { ok: false, error: 'empty key spec' };
  const m = /^\s*(prefix|root)\s+(\S.*)$/isu.exec(spec);
  const table: KeyTable = m && m[1].toLowerCase() === 'prefix' ? 'prefix' : 'root';
  const r = normalizeKey(m ? m[2] : spec);
  if (!r.ok) return { ok: false, error: r.error };
  return { ok: true, table, key: r.key };
}

const tableKey = (table: KeyTable, key: string): string => `${table} ${key}`;
const specOf = (table: KeyTable, key: string): string => (table === 'prefix' ? `prefix ${key}` : key);
const commandName = (text: string): string => text.trim().split(/\s+/)[0] ?? '';

/**
 * Applies the user's `[keys]` table to the defaults. `"prefix" = "C-a"` moves the prefix (and the
 * default "prefix again sends the prefix" binding with it); `"prefix |" = "pane.split right"` adds
 * or replaces; `"-r pane.resize up"` makes it repeatable; `"none"` removes. Bad entries are skipped
 * with a diagnostic and the rest still apply.
 */
export function buildKeymap(defaults: Binding[], user: Record<string, string>): { keymap: Keymap; diagnostics: KeymapDiagnostic[] } {
  const diagnostics: KeymapDiagnostic[] = [];
  const table = new Map<string, Binding>();
  for (const b of defaults) {
    const parsed = parseCommand(b.command);
    if (parsed.ok) table.set(tableKey(b.table, b.key), { ...b });
    else diagnostics.push({ severity: 'error', key: specOf(b.table, b.key), message: `default binding "${specOf(b.table, b.key)}": ${parsed.error}` });
  }
  const entries = Object.entries(user ?? {});
  let prefix = DEFAULT_PREFIX;
  const prefixEntry = entries.find(([spec]) => spec.trim().toLowerCase() === 'prefix');
  if (prefixEntry) {
    const r = typeof prefixEntry[1] === 'string' ? normalizeKey(prefixEntry[1]) : { ok: false as const, error: 'expected a key name' };
    if (!r.ok) diagnostics.push({ severity: 'error', key: 'prefix', message: `prefix: ${r.error}; keeping ${prefix}` });
    else {
      movePrefixBinding(table, prefix, r.key, diagnostics);
      prefix = r.key;
    }
  }
  const setByUser = new Set<string>();
  for (const [spec, value] of entries) {
    if (spec === prefixEntry?.[0]) continue;
    applyEntry(table, spec, value, setByUser, diagnostics);
  }
  const rootOnPrefix = table.get(tableKey('root', prefix));
  if (rootOnPrefix) {
    diagnostics.push({ severity: 'warning', key: prefix, message: `root binding "${prefix}" (${rootOnPrefix.command}) never fires: ${prefix} is the prefix` });
  }
  const bindings = [...table.values()];
  const index = new Map(bindings.map((b) => [tableKey(b.table, b.key), b]));
  return { keymap: { prefix, bindings, lookup: (t, k) => index.get(tableKey(t, k)) }, diagnostics };
}

/** Pressing the prefix twice sends it to the pane; that binding follows the prefix to its new key. */
function movePrefixBinding(table: Map<string, Binding>, from: string, to: string, diagnostics: KeymapDiagnostic[]): void {
  if (from === to) return;
  const old = table.get(tableKey('prefix', from));
  if (!old || commandName(old.command) !== 'client.send-prefix') return;
  const taken = table.get(tableKey('prefix', to));
  if (taken) diagnostics.push({ severity: 'warning', key: `prefix ${to}`, message: `"prefix ${to}" (${taken.command}) now sends the prefix to the pane; bind ${taken.command} to another key if you need it` });
  table.delete(tableKey('prefix', from));
  table.set(tableKey('prefix', to), { ...old, key: to });
}

function applyEntry(table: Map<string, Binding>, spec: string, value: unknown, setByUser: Set<string>, diagnostics: KeymapDiagnostic[]): void {
  const fail = (message: string): void => void diagnostics.push({ severity: 'error', key: spec, message });
  const ks = parseKeySpec(spec);
  if (!ks.ok) return fail(`key "${spec}": ${ks.error}`);
  if (typeof value !== 'string') return fail(`key "${spec}": expected a command string such as "pane.split right" or "none"`);
  const id = tableKey(ks.table, ks.key);
  const where = specOf(ks.table, ks.key);
  if (setByUser.has(id)) diagnostics.push({ severity: 'warning', key: spec, message: `"${where}" is bound more than once in [keys]; the last entry wins` });
  setByUser.add(id);
  const text = value.trim();
  if (/^none$/i.test(text)) {
    if (!table.delete(id)) diagnostics.push({ severity: 'warning', key: spec, message: `"${where}" = "none": nothing was bound there` });
    return;
  }
  const flag = /^-r\s+(.*)$/su.exec(text);
  const parsed = parseCommand(flag ? flag[1] : text);
  if (!parsed.ok) return fail(`key "${spec}": ${parsed.error}`);
  const cmdText = parsed.command.text;
  if (ks.table === 'root' && [...ks.key].length === 1) {
    diagnostics.push({ severity: 'warning', key: spec, message: `root binding "${ks.key}" takes that character away from every pane (did you mean "prefix ${ks.key}"?)` });
  }
  const previous = table.get(id);
  table.set(id, {
    table: ks.table,
    key: ks.key,
    command: cmdText,
    description: COMMAND_TABLE.get(commandName(cmdText))?.description ?? cmdText,
    group: previous?.group ?? CUSTOM_GROUP,
    ...(flag ? { repeat: true } : {}),
  });
}
