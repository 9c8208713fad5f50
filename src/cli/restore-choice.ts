// Before a server starts for `castellan`: with `[session] restore = "ask"`, ask on the terminal whether to restore the snapshot.
import { createInterface } from 'node:readline/promises';
import type { CliContext } from './define-command.js';

/** true/false: the user answered; undefined: the server decides (auto, off, nothing to restore, no terminal to ask on). */
export async function restoreChoice(ctx: CliContext, io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream }): Promise<boolean | undefined> {
  if (ctx.restore !== undefined) return ctx.restore;
  if (!io.stdin.isTTY || !io.stdout.isTTY) return undefined;
  // The snapshot store and its schema only when there is a terminal to ask on (`new -d` has none).
  const { listSnapshots } = await import('../restore/store.js');
  const snap = listSnapshots(ctx.paths).find((s) => s.session === ctx.paths.session && s.status === 'ok' && !s.problem);
  if (!snap) return undefined;
  let mode: string;
  try {
    // Loaded only when there is a snapshot to ask about: a plain attach pays nothing for this.
    const { loadConfig } = await import('../config/load.js');
    mode = loadConfig({ cwd: ctx.cwd, home: ctx.paths.home }).config.session.restore;
  } catch {
    return undefined;
  }
  if (mode !== 'ask') return undefined;
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  const t = setTimeout(() => rl.close(), 60_000);
  try {
    const when = new Date(snap.savedAt ?? 0).toLocaleString();
    const a = await rl.question(`castellan: restore session ${ctx.paths.session} (${snap.windows} window(s), ${snap.panes} pane(s), saved ${when})? [Y/n] `);
    return !/^\s*n/i.test(a);
  } catch {
    return undefined;
  } finally {
    clearTimeout(t);
    rl.close();
  }
}
