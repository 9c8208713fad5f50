// Where castellan keeps things: the only module that reads HOME, XDG_* and CASTELLAN_* path variables.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_SESSION = 'default';

export interface Paths {
  home: string;
  /** Directory of sockets (mode 0700). */
  socketDir: string;
  socket: string;
  session: string;
  /** ~/.castellan: user config, themes, agents. */
  userDir: string;
  userConfig: string;
  userThemes: string;
  userAgents: string;
  /** User detection rules (override or add to the built-in ones): ~/.castellan/detect/<agent>.toml. */
  userDetect: string;
  /** Logs, audit log, trust store. */
  stateDir: string;
  serverLog: string;
  auditLog: string;
  trustFile: string;
  /** Machine profiles (src/machines): ~/.castellan/machines.json. */
  machinesFile: string;
  /** The ssh program machines are reached with: CASTELLAN_SSH, else `ssh` from PATH. */
  sshProgram: string;
}

function validSession(name: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name) || name === '.' || name === '..') {
    throw new Error(`invalid session name "${name}": use letters, digits, '_', '-', '.' (up to 64)`);
  }
  return name;
}

/**
 * Paths for a session. `CASTELLAN_SOCKET` (when no explicit session is asked for) pins the socket, which is how
 * commands run inside a pane reach the server that owns the pane.
 */
export function resolvePaths(opts: { session?: string; env?: NodeJS.ProcessEnv } = {}): Paths {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  const socketDir = join(home, '.config', 'castellan');
  const session = validSession(opts.session ?? env.CASTELLAN_SESSION ?? DEFAULT_SESSION);
  const defaultSocket = join(socketDir, session === DEFAULT_SESSION ? 'castellan.sock' : `${session}.sock`);
  const socket = !opts.session && env.CASTELLAN_SOCKET ? env.CASTELLAN_SOCKET : defaultSocket;
  const userDir = join(home, '.castellan');
  const stateDir = env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'castellan') : join(home, '.local', 'state', 'castellan');
  return {
    home,
    socketDir: opts.session || !env.CASTELLAN_SOCKET ? socketDir : join(socket, '..'),
    socket,
    session,
    userDir,
    userConfig: join(userDir, 'config.toml'),
    userThemes: join(userDir, 'themes'),
    userAgents: join(userDir, 'agents'),
    userDetect: join(userDir, 'detect'),
    stateDir,
    serverLog: join(stateDir, `server-${session}.log`),
    auditLog: join(stateDir, 'audit.jsonl'),
    trustFile: join(stateDir, 'trust.json'),
    machinesFile: join(userDir, 'machines.json'),
    sshProgram: env.CASTELLAN_SSH || 'ssh',
  };
}

/** A session's socket in a socket directory (the default session's is castellan.sock). */
export function socketFor(socketDir: string, session: string): string {
  return join(socketDir, validSession(session) === DEFAULT_SESSION ? 'castellan.sock' : `${session}.sock`);
}

/** The session a socket file name belongs to, or undefined when it is not one of castellan's. */
export function sessionOfSocket(file: string): string | undefined {
  if (file === 'castellan.sock') return DEFAULT_SESSION;
  const m = /^([A-Za-z0-9_.-]{1,64})\.sock$/.exec(file);
  return m && m[1] !== '.' && m[1] !== '..' && m[1] !== DEFAULT_SESSION ? m[1] : undefined;
}
