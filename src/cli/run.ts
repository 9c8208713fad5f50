// The CLI itself: global flags, command lookup in the table, and the mapping of errors to exit codes. main.ts runs it
// as the process; tests run it in process (every command's --help without a Node start each).
import { parseArgs } from 'node:util';
import { ApiClient, NotRunningError, RpcError } from '../api/client.js';
import { resolvePaths } from '../platform/paths.js';
import { VERSION } from '../version.js';
import { type CliContext, EXIT, UsageError } from './define-command.js';
import { COMMAND_ROWS, findRow } from './table.js';

function usage(): string {
  const rows = COMMAND_ROWS.filter((r) => !r.hidden);
  const w = Math.max(...rows.map((r) => r.name.length));
  return [
    'usage: castellan [--session NAME] [--no-restore] [command] [options]',
    '',
    'With no command, attaches to the session (starting its server first if none runs).',
    '',
    'commands:',
    ...rows.map((r) => `  ${r.name.padEnd(w)}  ${r.summary}${r.aliases ? ` (also: ${r.aliases.join(', ')})` : ''}`),
    '',
    'castellan help COMMAND shows a command\'s options. Exit codes: 0 ok, 1 error, 2 usage, 3 no server, 4 pane gone, 124 timeout.',
  ].join('\n');
}

/** Splits argv into global flags, the command name (one or two words) and its own arguments. */
function split(argv: string[]): { session?: string; noRestore?: boolean; help: boolean; version: boolean; name: string; args: string[] } {
  let session: string | undefined;
  let noRestore: boolean | undefined;
  let help = false;
  let version = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--session' || a === '-S') session = argv[++i];
    else if (a.startsWith('--session=')) session = a.slice(10);
    else if (a === '--no-restore') noRestore = true;
    else if (a === '-h' || a === '--help') help = true;
    else if (a === '-V' || a === '--version') version = true;
    else break;
  }
  const rest = argv.slice(i);
  if (rest[0] === 'help') {
    const two = rest.slice(1, 3).join(' ');
    return { session, noRestore, help: true, version, name: findRow(two) ? two : rest.slice(1, 2).join(' '), args: [] };
  }
  const two = rest.slice(0, 2).join(' ');
  if (findRow(two)) return { session, noRestore, help, version, name: two, args: rest.slice(2) };
  if (rest.length && findRow(rest[0])) return { session, noRestore, help, version, name: rest[0], args: rest.slice(1) };
  // `castellan --help` alone lists the commands; `castellan` alone attaches.
  return { session, noRestore, help, version, name: rest.length ? rest.join(' ') : help ? '' : 'new', args: [] };
}

function errorCode(e: unknown): number {
  if (e instanceof UsageError) return EXIT.usage;
  if (e instanceof NotRunningError) return EXIT.notRunning;
  if (e instanceof RpcError) {
    if (e.code === 'pane_not_found' || e.code === 'pane_gone') return EXIT.paneGone;
    if (e.code === 'timeout') return EXIT.timeout;
    if (e.code === 'invalid_params') return EXIT.usage;
    if (e.code === 'not_running') return EXIT.notRunning;
  }
  return EXIT.error;
}

/** Where the CLI writes: the process's stdout and stderr, or a test's buffers. */
export interface CliOutput {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export async function runCli(argv: string[], io: CliOutput = process): Promise<number> {
  const out = (s: string) => void io.stdout.write(s.endsWith('\n') ? s : s + '\n');
  const err = (s: string) => void io.stderr.write(s.endsWith('\n') ? s : s + '\n');
  const g = split(argv);
  if (g.version) {
    out(VERSION);
    return EXIT.ok;
  }
  const row = findRow(g.name) ?? (g.help && !g.name ? undefined : null);
  if (row === null) {
    err(`castellan: unknown command "${g.name}"\n\n${usage()}`);
    return EXIT.usage;
  }
  if (!row) {
    out(usage());
    return EXIT.ok;
  }
  const def = (await row.load()).default;
  const help = () => {
    const also = row.aliases ? `\n\nalso spelled: ${row.aliases.map((a) => `castellan ${a}`).join(', ')}` : '';
    out(`usage: ${def.usage}\n\n${def.summary}${def.details ? `\n\n${def.details}` : ''}${also}`);
    return EXIT.ok;
  };
  if (g.help) return help();
  let paths;
  try {
    paths = resolvePaths({ session: g.session });
  } catch (e) {
    err(`castellan: ${(e as Error).message}`);
    return EXIT.usage;
  }
  const ctx: CliContext = {
    paths,
    sessionFlag: g.session,
    env: process.env,
    cwd: process.cwd(),
    out,
    err,
    // Uses this context's paths, so commands that derive a context for another session connect there.
    connect(this: CliContext) {
      return ApiClient.connect(this.paths.socket);
    },
    version: VERSION,
    ...(g.noRestore ? { restore: false } : {}),
  };
  const dash = g.args.indexOf('--');
  const own = dash === -1 ? g.args : g.args.slice(0, dash);
  const rest = dash === -1 ? [] : g.args.slice(dash + 1);
  try {
    // -h/--help anywhere before `--` asks for this command's help, as every other CLI does.
    // A command that takes -h itself (popup: tmux's display-popup -h HEIGHT) keeps it; --help still works there.
    const options = { ...def.options, help: { type: 'boolean' as const, ...(Object.values(def.options ?? {}).some((o) => o.short === 'h') ? {} : { short: 'h' }) } };
    const parsed = parseArgs({ args: own, options, allowPositionals: !!def.positionals, strict: true });
    if (parsed.values.help) return help();
    delete parsed.values.help;
    // `castellan server start --session foo` means session foo, as `castellan --session foo server start` does (issue 13).
    const own_session = (parsed.values as Record<string, unknown>).session;
    if (typeof own_session === 'string' && own_session !== g.session) {
      ctx.paths = resolvePaths({ session: own_session });
      ctx.sessionFlag = own_session;
    }
    return await def.run(ctx, { values: parsed.values as never, positionals: parsed.positionals, rest });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      err(`castellan ${def.name}: ${(e as Error).message}\nusage: ${def.usage}`);
      return EXIT.usage;
    }
    const c = errorCode(e);
    err(`castellan${def.name === 'attach' || def.name === 'new' ? '' : ' ' + def.name}: ${(e as Error).message}${c === EXIT.usage && e instanceof UsageError ? `\nusage: ${def.usage}` : ''}`);
    return c;
  }
}
