// Theme files: semantic colour roles loaded from themes/*.toml (user themes override built-ins).
import { existsSync, readdirSync } from 'node:fs';
import { readFileBounded } from '../platform/read-file.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { formatPath, type Diagnostic } from './load.js';
import { showValue } from './schema.js';
import { parseTomlRecovering } from './toml.js';

export const THEME_ROLES = [
  'pane.border', 'pane.border.focused', 'pane.title', 'pane.title.focused', 'pane.exited',
  'bar', 'bar.session', 'bar.window', 'bar.window.active', 'bar.window.alert', 'bar.prefix', 'bar.status',
  'badge.idle', 'badge.working', 'badge.blocked', 'badge.done', 'badge.unknown',
  'notice.info', 'notice.warning', 'notice.error',
  'overlay', 'overlay.title', 'overlay.key', 'overlay.dim',
  'copy.selection', 'copy.match', 'copy.match.current', 'copy.indicator',
  'prompt',
] as const;
export type ThemeRole = (typeof THEME_ROLES)[number];

/** Colours are normalised to `#rrggbb`, `ansi:N` or `default`, so painters handle three forms only. */
export interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface Theme {
  name: string;
  description?: string;
  roles: Record<ThemeRole, Style>;
}

const ANSI_NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** `#rgb`, `#rrggbb`, ANSI names (`red`, `bright-red`, `gray`), `ansi:N` or `default`; undefined if none. */
export function normaliseColor(input: string): string | undefined {
  const s = input.trim().toLowerCase();
  if (s === 'default') return 'default';
  if (/^#[0-9a-f]{6}$/.test(s)) return s;
  if (/^#[0-9a-f]{3}$/.test(s)) return `#${[...s.slice(1)].map((c) => c + c).join('')}`;
  const ansi = /^ansi:(\d{1,3})$/.exec(s);
  if (ansi) return Number(ansi[1]) <= 255 ? `ansi:${Number(ansi[1])}` : undefined;
  if (s === 'gray' || s === 'grey') return 'ansi:8';
  const bright = s.startsWith('bright-');
  const index = ANSI_NAMES.indexOf(bright ? s.slice(7) : s);
  return index < 0 ? undefined : `ansi:${index + (bright ? 8 : 0)}`;
}

const ColorSchema = z.string({ error: 'expected a colour string' }).transform((s, ctx) => {
  const color = normaliseColor(s);
  if (color) return color;
  ctx.addIssue({
    code: 'custom',
    message: `not a colour: ${showValue(s)}; use "#rrggbb", "#rgb", a name like "bright-blue", "ansi:N" (0-255) or "default"`,
  });
  return z.NEVER;
});
const flag = z.boolean({ error: 'expected true or false' }).optional();
const StyleTableSchema = z.object({
  fg: ColorSchema.optional(),
  bg: ColorSchema.optional(),
  bold: flag,
  dim: flag,
  italic: flag,
  underline: flag,
  inverse: flag,
});
const STYLE_KEYS = Object.keys(StyleTableSchema.shape);

export function builtinThemesDir(): string {
  // src/config/ under tsx and dist/config/ after tsc are both two levels below the repo root.
  return fileURLToPath(new URL('../../themes/', import.meta.url));
}

const THEME_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function themeFiles(dir: string | undefined): Array<{ name: string; path: string }> {
  if (!dir) return [];
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.toml') && THEME_NAME.test(f.slice(0, -5)))
      .map((f) => ({ name: f.slice(0, -5), path: join(dir, f) }));
  } catch {
    return []; // a missing user theme directory is normal
  }
}

/** Built-in and user themes by name; a user theme hides the built-in of the same name. */
export function listThemes(opts: { userDir?: string }): Array<{ name: string; path: string; builtin: boolean }> {
  const byName = new Map<string, { name: string; path: string; builtin: boolean }>();
  for (const t of themeFiles(builtinThemesDir())) byName.set(t.name, { ...t, builtin: true });
  for (const t of themeFiles(opts.userDir)) byName.set(t.name, { ...t, builtin: false });
  return [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
}

/**
 * Theme names are ASCII (THEME_NAME): ordered case-insensitively by code unit, then by case. Not localeCompare: its
 * first call makes ICU load its collation data, ~1.9 MB of the node binary's pages that the server (which lists the
 * themes at start) then keeps resident for nothing else.
 */
function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

interface ParsedTheme {
  description?: string;
  roles: Partial<Record<ThemeRole, Style>>;
  diagnostics: Diagnostic[];
}

const MAX_THEME_BYTES = 256 * 1024;

/** Reads one theme file, keeping every valid role and reporting the rest. */
function readThemeFile(file: string): ParsedTheme {
  const r = readFileBounded(file, MAX_THEME_BYTES);
  if (!r.ok) return { roles: {}, diagnostics: [{ severity: 'error', file, message: `cannot read theme: ${r.message}` }] };
  const text = r.buf.toString('utf8');
  const toml = parseTomlRecovering(text);
  const diagnostics: Diagnostic[] = toml.errors.map((e) => ({ severity: 'error', file, line: e.line, message: e.message }));
  const say = (severity: Diagnostic['severity'], path: string[], message: string) => {
    const line = toml.locate(path);
    diagnostics.push({ severity, file, ...(line !== undefined ? { line } : {}), path: formatPath(path), message });
  };
  const out: ParsedTheme = { roles: {}, diagnostics };
  for (const [key, v] of Object.entries(toml.value)) {
    if (key === 'description' && typeof v === 'string') out.description = v;
    else if (key === 'name' && typeof v === 'string') continue; // the file name is the theme's name
    else if (key !== 'roles') say('warning', [key], key === 'name' || key === 'description' ? 'expected a string; ignored' : 'unknown key; ignored');
  }
  const roles = toml.value.roles;
  if (roles === undefined) return out;
  if (typeof roles !== 'object' || roles === null || Array.isArray(roles)) {
    say('error', ['roles'], `expected a table of roles, got ${showValue(roles)}`);
    return out;
  }
  for (const [role, v] of Object.entries(roles)) {
    if (!(THEME_ROLES as readonly string[]).includes(role)) {
      say('warning', ['roles', role], `unknown role; ignored (roles are ${THEME_ROLES.join(', ')})`);
      continue;
    }
    const style = parseStyle(v, (m) => say('warning', ['roles', role], m));
    if (style.ok) out.roles[role as ThemeRole] = style.value;
    else say('error', ['roles', role], `${style.message}; using the default theme's style`);
  }
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return out;
}

function parseStyle(v: unknown, warn: (m: string) => void): { ok: true; value: Style } | { ok: false; message: string } {
  if (typeof v === 'string') {
    const r = ColorSchema.safeParse(v);
    return r.success ? { ok: true, value: { fg: r.data } } : { ok: false, message: r.error.issues[0].message };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return { ok: false, message: `expected a colour or a style table like { fg = "#ffffff", bold = true }, got ${showValue(v)}` };
  }
  const known: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (STYLE_KEYS.includes(k)) known[k] = x;
    else warn(`unknown style attribute "${k}"; ignored (use ${STYLE_KEYS.join(', ')})`);
  }
  const r = StyleTableSchema.safeParse(known);
  if (r.success) return { ok: true, value: Object.fromEntries(Object.entries(r.data).filter(([, x]) => x !== undefined)) };
  const issue = r.error.issues[0];
  return { ok: false, message: `${issue.path.join('.')}: ${issue.message}` };
}

/** Roles every theme inherits: the built-in default, or plain terminal colours if even that is unreadable. */
function baseRoles(diagnostics: Diagnostic[]): Record<ThemeRole, Style> {
  const file = join(builtinThemesDir(), 'default.toml');
  const parsed = existsSync(file) ? readThemeFile(file) : undefined;
  if (!parsed) diagnostics.push({ severity: 'error', file, message: 'built-in default theme is missing; using terminal colours' });
  else diagnostics.push(...parsed.diagnostics);
  return Object.fromEntries(THEME_ROLES.map((r) => [r, parsed?.roles[r] ?? {}])) as Record<ThemeRole, Style>;
}

/**
 * Resolves a theme by name (user directory first), filling roles it lacks or gets wrong from the
 * built-in default. An unknown or unusable name gives a diagnostic and the default theme. Never throws.
 */
export function loadTheme(name: string, opts: { userDir?: string }): { theme: Theme; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  try {
    const base = baseRoles(diagnostics);
    const themes = listThemes(opts);
    let found = THEME_NAME.test(name) ? themes.find((t) => t.name === name) : undefined;
    if (!found) {
      const names = themes.map((t) => t.name).join(', ');
      const message = `unknown theme ${showValue(name)}; using "default" (available: ${names})`;
      diagnostics.push({ severity: 'error', file: opts.userDir ?? builtinThemesDir(), path: 'ui.theme', message });
      found = themes.find((t) => t.name === 'default'); // a user's own "default" still applies
    }
    if (!found) return { theme: { name: 'default', roles: base }, diagnostics };
    const parsed = readThemeFile(found.path);
    // The built-in default's diagnostics were already reported by baseRoles.
    if (!(found.builtin && found.name === 'default')) diagnostics.push(...parsed.diagnostics);
    const roles = Object.fromEntries(THEME_ROLES.map((r) => [r, parsed.roles[r] ?? base[r]])) as Record<ThemeRole, Style>;
    const theme: Theme = { name: found.name, roles };
    if (parsed.description !== undefined) theme.description = parsed.description;
    return { theme, diagnostics };
  } catch (e) {
    // Defensive: nothing above should throw, but a theme must never take the client down.
    diagnostics.push({ severity: 'error', file: name, message: `could not load theme: ${String(e)}` });
    return { theme: { name: 'default', roles: Object.fromEntries(THEME_ROLES.map((r) => [r, {}])) as Record<ThemeRole, Style> }, diagnostics };
  }
}
