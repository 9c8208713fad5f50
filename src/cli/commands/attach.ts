// `castellan attach` (tmux: attach, a): attach this terminal to a session that runs, or that a snapshot brings back.
import { resolvePaths } from '../../platform/paths.js';
import { probeSocket } from '../../server/socket-bind.js';
import { LOCAL_NAME } from '../../machines/cli-door.js';
import { type CliContext, defineCommand, EXIT, UsageError } from '../define-command.js';

/** tmux's `attach -t NAME` and `new -s NAME` name the session after the command; both mean --session NAME here. */
export function forSession(ctx: CliContext, name: string | undefined): CliContext {
  if (name === undefined) return ctx;
  return { ...ctx, paths: resolvePaths({ session: name, env: ctx.env }), sessionFlag: name };
}

/**
 * Starts the session's server if none runs (`create`, or a snapshot to bring back), then attaches unless `detached`.
 * Nothing is started for a terminal that cannot attach: a server left behind by a failed attach is a session nobody asked for.
 */
export async function openSession(ctx: CliContext, o: { create: boolean; detached?: boolean; window?: string }): Promise<number> {
  // Attaching from inside one of this server's own panes would draw castellan inside itself.
  if (!o.detached && ctx.env.CASTELLAN_ENV === '1' && !ctx.sessionFlag && ctx.env.CASTELLAN_SOCKET === ctx.paths.socket) {
    ctx.err('castellan: already inside this castellan session (pane ' + (ctx.env.CASTELLAN_PANE_ID ?? '?') + '); use --session NAME for another one');
    return EXIT.usage;
  }
  const running = await probeSocket(ctx.paths.socket);
  if (!running && !o.create && !(await import('../../restore/store.js')).listSnapshots(ctx.paths).some((s) => s.session === ctx.paths.session && s.status === 'ok' && !s.problem)) {
    ctx.err(`castellan: can't find session: ${ctx.paths.session} (castellan new -s ${ctx.paths.session} creates it; castellan ls lists them)`);
    return EXIT.error;
  }
  if (!o.detached && (!process.stdin.isTTY || !process.stdout.isTTY)) {
    ctx.err(`castellan: not a terminal, so nothing to attach${running ? '' : '; no server was started (-d starts one detached)'}`);
    return EXIT.error;
  }
  if (!running) {
    // Only when no server runs (as startDaemon): the snapshot store and its schemas are no attached client's business.
    const { restoreChoice } = await import('../restore-choice.js');
    const restore = await restoreChoice(ctx);
    const { startDaemon } = await import('../../server/daemon.js');
    // Detached, return once the socket is at its path (a script's next call waits there until the server serves it);
    // attaching, once it answers. A start that will not restore sets the old snapshot aside as it loads: that is
    // waited for, so `session snapshots` right after lists it.
    await startDaemon(ctx.paths, { cwd: ctx.cwd, cols: process.stdout.columns, rows: process.stdout.rows, restore, until: o.detached && restore !== false ? 'published' : 'answering' });
  }
  if (o.detached) {
    ctx.out(`castellan: session ${ctx.paths.session} runs on ${ctx.paths.socket}`);
    return EXIT.ok;
  }
  // Before the client loads: React and its reconciler pick their production builds (a fraction of the development
  // builds' code and memory) from NODE_ENV when first imported, so the client is imported only now.
  process.env.NODE_ENV = 'production';
  const { attach } = await import('../../client/attach.js');
  return attach({ paths: ctx.paths, stdin: process.stdin, stdout: process.stdout, window: o.window });
}

/** `attach --machine NAME` (or `-t SESSION@NAME`): a full client over the ssh bridge; nothing is started on the other host. */
async function attachMachine(ctx: CliContext, machine: string, window: string | undefined, session?: string): Promise<number> {
  const { connectNamed, sessionProblem } = await import('../../machines/index.js');
  const bad = session === undefined ? undefined : sessionProblem(session);
  if (bad) throw new UsageError(bad);
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    ctx.err('castellan: not a terminal, so nothing to attach');
    return EXIT.error;
  }
  const connectWhere = (c: CliContext, m: string) => connectNamed(c, m, session === undefined ? {} : { session });
  // Connect before the client takes the terminal: a machine that is down is a plain error message, not a blank screen.
  let first: Awaited<ReturnType<typeof connectWhere>> | undefined = await connectWhere(ctx, machine);
  process.env.NODE_ENV = 'production';
  const { attach } = await import('../../client/attach.js');
  // The first connection is the one made above; after a lost link, each attempt is a fresh ssh.
  const open = async () => {
    const c = first ?? (await connectWhere(ctx, machine));
    first = undefined;
    return c;
  };
  return attach({ paths: ctx.paths, stdin: process.stdin, stdout: process.stdout, window, open, reconnect: { machine } });
}

export default defineCommand({
  name: 'attach',
  usage: 'castellan attach [-t NAME | -t SESSION@MACHINE] [--window w2] [--machine NAME]   (tmux: attach, a, at, attach-session)',
  summary: 'Attach this terminal to a running session, or to one its snapshot brings back; a session that is neither is an error, as in tmux (castellan new creates).',
  details: [
    '  -t, --target NAME  the session to attach to (same as --session NAME); SESSION@MACHINE (or @MACHINE) is one on another machine',
    '  -d, --detached     bring the session back if needed and return without attaching',
    '  --machine NAME     attach to the session of another machine (castellan machine add) over ssh; its server must run',
  ].join('\n'),
  options: {
    window: { type: 'string' },
    target: { type: 'string', short: 't' },
    detached: { type: 'boolean', short: 'd' },
    machine: { type: 'string' },
  },
  run: (outer, { values }) => {
    const to = machineTarget(values.target as string | undefined, values.machine as string | undefined);
    if (to.machine !== undefined && values.detached) throw new UsageError('-d is for a session here: castellan never starts anything on another machine');
    return to.machine !== undefined
      ? attachMachine(outer, to.machine, values.window as string | undefined, to.session)
      : openSession(forSession(outer, to.session), { create: false, detached: !!values.detached, window: values.window as string | undefined });
  },
});

/**
 * `-t SESSION@MACHINE` (tmux's target, with the machine after `@`; `-t @MACHINE` is that machine's own session) and
 * `--machine NAME`, as one place. Session names never hold `@`, so the split is unambiguous (the session part is
 * checked with the machine room's rule when it is loaded).
 */
export function machineTarget(target: string | undefined, machine: string | undefined): { session?: string; machine?: string } {
  const at = target?.lastIndexOf('@') ?? -1;
  const session = target === undefined ? undefined : at === -1 ? target : target.slice(0, at) || undefined;
  const named = at === -1 ? undefined : target!.slice(at + 1);
  if (named !== undefined && !named) throw new UsageError(`-t ${clip(target!)}: name a machine after '@' (castellan machine list)`);
  if (named !== undefined && machine !== undefined && named !== machine) throw new UsageError(`-t names machine ${clip(named)} and --machine names ${clip(machine)}: give one`);
  const m = named ?? machine;
  if (m === undefined || m === LOCAL_NAME) return session === undefined ? {} : { session };
  return { machine: m, ...(session === undefined ? {} : { session }) };
}

const clip = (s: string): string => JSON.stringify(s.slice(0, 80));
