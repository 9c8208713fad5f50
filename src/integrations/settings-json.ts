// Merging castellan's hook entries into (and out of) an agent's JSON settings without disturbing anyone else's.
// Two shapes: `nested`, shared by Claude Code, Codex hooks.json, Gemini CLI and Qwen Code: {"hooks": {"<Event>": [{"matcher"?,
// "hooks": [{"type": "command", "command", ...}]}]}}; and `flat`, Copilot CLI's: {"hooks": {"<event>": [{"type": "command", "bash", ...}]}}.
import { isCastellanCommand } from './command-line.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface HookSpec {
  event: string;
  matcher?: string;
  /** The hook object, e.g. {type: "command", command, timeout}. */
  hook: JsonObject;
}

export interface JsonDoc {
  exists: boolean;
  text: string;
  value: JsonObject;
  /** Indentation unit found in the file (default two spaces). */
  indent: string;
}

export class SettingsError extends Error {}

export type EntryShape = 'nested' | 'flat';

const isObj = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);
/** A hook object castellan installed (its line is in `command`, or Copilot's `bash`). */
const isOurHook = (h: Json | undefined) => isObj(h) && (isCastellanCommand(h.command) || isCastellanCommand(h.bash));

export function parseJsonDoc(text: string | undefined, path: string): JsonDoc {
  if (text === undefined || !text.trim()) return { exists: text !== undefined, text: text ?? '', value: {}, indent: '  ' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new SettingsError(`${path} is not plain JSON (${(e as Error).message}); castellan will not rewrite it — add the entries by hand (see --dry-run)`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SettingsError(`${path}: expected a JSON object at the top level`);
  const m = /\n([ \t]+)\S/.exec(text);
  return { exists: true, text, value: value as JsonObject, indent: m ? m[1] : '  ' };
}

export function formatJsonDoc(value: JsonObject, indent: string): string {
  return JSON.stringify(value, null, indent) + '\n';
}

const clone = <T extends Json>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function hooksObject(doc: JsonObject, path: string, create: boolean): JsonObject | undefined {
  const h = doc.hooks;
  if (h === undefined) {
    if (!create) return undefined;
    doc.hooks = {};
    return doc.hooks as JsonObject;
  }
  if (!h || typeof h !== 'object' || Array.isArray(h)) throw new SettingsError(`${path}: "hooks" is not an object`);
  return h;
}

function entryHooks(entry: Json): Json[] | undefined {
  return entry && typeof entry === 'object' && !Array.isArray(entry) && Array.isArray(entry.hooks) ? entry.hooks : undefined;
}

/** Castellan's hooks in one event's entry list: [entry index, hook index] (flat: the entry is the hook, index -1). */
function ours(list: Json[], shape: EntryShape = 'nested'): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (shape === 'flat') {
    list.forEach((entry, i) => isOurHook(entry) && out.push([i, -1]));
    return out;
  }
  list.forEach((entry, i) =>
    entryHooks(entry)?.forEach((h, j) => {
      if (h && typeof h === 'object' && !Array.isArray(h) && isCastellanCommand(h.command)) out.push([i, j]);
    }),
  );
  return out;
}

/** Drops castellan's hooks from an entry list; entries left with no hooks go too (they were ours alone). */
function stripOurs(list: Json[], shape: EntryShape = 'nested'): { list: Json[]; removed: number } {
  if (shape === 'flat') {
    const keep = list.filter((e) => !isOurHook(e));
    return { list: keep, removed: list.length - keep.length };
  }
  let removed = 0;
  const out: Json[] = [];
  for (const entry of list) {
    const hs = entryHooks(entry);
    if (!hs) {
      out.push(entry);
      continue;
    }
    const keep = hs.filter((h) => !(h && typeof h === 'object' && !Array.isArray(h) && isCastellanCommand(h.command)));
    removed += hs.length - keep.length;
    if (keep.length === hs.length) out.push(entry);
    else if (keep.length) out.push({ ...(entry as JsonObject), hooks: keep });
  }
  return { list: out, removed };
}

export interface MergeResult {
  value: JsonObject;
  added: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * Puts exactly one castellan hook per spec'd event (appended after the user's own entries), replaces stale castellan
 * entries (another path, another matcher), and removes castellan entries for events no longer installed.
 * Everything else in the file is left as it was.
 */
export function mergeHooks(input: JsonObject, specs: readonly HookSpec[], path: string, shape: EntryShape = 'nested'): MergeResult {
  const value = clone(input);
  const hooks = hooksObject(value, path, true)!;
  const r: MergeResult = { value, added: [], updated: [], unchanged: [], removed: [] };
  for (const s of specs) {
    const cur = hooks[s.event];
    if (cur !== undefined && !Array.isArray(cur)) throw new SettingsError(`${path}: hooks.${s.event} is not a list`);
    const list = (cur ?? []) as Json[];
    const mine = ours(list, shape);
    const want: JsonObject = shape === 'flat' ? s.hook : { ...(s.matcher !== undefined ? { matcher: s.matcher } : {}), hooks: [s.hook] };
    if (mine.length === 1) {
      const [i] = mine[0];
      const entry = list[i] as JsonObject;
      if (sameJson(entry, want)) {
        r.unchanged.push(s.event);
        continue;
      }
    }
    const stripped = stripOurs(list, shape);
    hooks[s.event] = [...stripped.list, want];
    (stripped.removed ? r.updated : r.added).push(s.event);
  }
  const wanted = new Set(specs.map((s) => s.event));
  for (const [event, cur] of Object.entries(hooks)) {
    if (wanted.has(event) || !Array.isArray(cur)) continue;
    const stripped = stripOurs(cur, shape);
    if (!stripped.removed) continue;
    r.removed.push(event);
    if (stripped.list.length) hooks[event] = stripped.list;
    else delete hooks[event];
  }
  return r;
}

/** Removes every castellan hook; other hooks, and the events they hang on, stay. */
export function removeHooks(input: JsonObject, path: string, shape: EntryShape = 'nested'): { value: JsonObject; removed: string[] } {
  const value = clone(input);
  const hooks = hooksObject(value, path, false);
  const removed: string[] = [];
  if (!hooks) return { value, removed };
  for (const [event, cur] of Object.entries(hooks)) {
    if (!Array.isArray(cur)) continue;
    const stripped = stripOurs(cur, shape);
    if (!stripped.removed) continue;
    removed.push(event);
    if (stripped.list.length) hooks[event] = stripped.list;
    else delete hooks[event];
  }
  return { value, removed };
}

/** The castellan hooks a settings object holds, per event (for status output and tests). */
export function listOurHooks(value: JsonObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const hooks = value.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return out;
  for (const [event, cur] of Object.entries(hooks)) {
    if (!Array.isArray(cur)) continue;
    for (const [i, j] of ours(cur)) (out[event] ??= []).push(String((entryHooks(cur[i])![j] as JsonObject).command));
    for (const [i] of ours(cur, 'flat')) (out[event] ??= []).push(String((cur[i] as JsonObject).bash ?? (cur[i] as JsonObject).command));
  }
  return out;
}
