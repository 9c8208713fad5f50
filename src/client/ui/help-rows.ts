// `prefix ?`'s list: every binding from the keymap table, grouped and filtered (app.ts scrolls it; help-lines.ts draws it).
import type { Binding } from '../../input/keymap.js';

export interface HelpRow {
  group?: string;
  key?: string;
  text?: string;
}

/** Rows of the help list (group headings + bindings) matching a filter. */
export function helpRows(bindings: Binding[], prefix: string, filter: string): HelpRow[] {
  const f = filter.toLowerCase();
  const rows: HelpRow[] = [];
  const groups = new Map<string, Binding[]>();
  for (const b of bindings) {
    const key = b.table === 'prefix' ? `${prefix} ${b.key}` : b.key;
    if (f && !`${key} ${b.command} ${b.description} ${b.group}`.toLowerCase().includes(f)) continue;
    if (!groups.has(b.group)) groups.set(b.group, []);
    groups.get(b.group)!.push(b);
  }
  for (const [group, list] of groups) {
    rows.push({ group });
    for (const b of list) rows.push({ key: b.table === 'prefix' ? `${prefix} ${b.key}` : b.key, text: `${b.description}  (${b.command})` });
  }
  return rows;
}
