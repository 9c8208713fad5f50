// Before a server starts for `castellan`: with `[session] restore = "ask"`, ask on the terminal whether to restore the snapshot.
import { isatty } from 'node:tty';
import type { CliContext } from './define-command.js';

/**
 * true/false: the user answered; undefined: the server decides (auto, off, nothing to restore, no terminal to ask on).
 * Without `io`, on this process's terminal: fds 0 and 1 are looked at before process.stdin is made (a stream, which
 * for a file or a pipe loads Node's fs streams and promises: CPU a `new -d` from a script does not need).
 */
export async function restoreChoice(ctx: CliContext, io?: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream }): Promise<boolean | undefined> {
  if (ctx.restore !== undefined) return ctx.restore;
  if (io ? !io.stdin.isTTY || !io.stdout.isTTY : !isatty(0) || !isatty(1)) return undefined;
  const { stdin, stdout } = io ?? process;
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
  // Loaded only to ask: readline is five of Node's modules.
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: stdin, output: stdout });
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
