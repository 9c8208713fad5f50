// The environment a pane's program gets: the server's own, minus other multiplexers' markers, plus CASTELLAN_*.
export interface PaneEnvInput {
  base: NodeJS.ProcessEnv;
  socket: string;
  paneId: string;
  session: string;
  extra?: Record<string, string>;
}

/**
 * Variables that would make a program believe it runs somewhere else (or expose the server's internals), and an agent
 * identity the server may have inherited: only agent.start gives a pane one (through `extra`).
 */
const DROP = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES', 'ZELLIJ', 'ZELLIJ_SESSION_NAME', 'HERDR_PANE_ID', 'NODE_ENV', 'CASTELLAN_SERVER', 'CASTELLAN_AGENT_ID', 'CASTELLAN_AGENT_TYPE'];

export function paneEnv(i: PaneEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(i.base)) if (v !== undefined && !DROP.includes(k)) env[k] = v;
  Object.assign(env, i.extra ?? {});
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERM_PROGRAM = 'castellan';
  env.CASTELLAN_ENV = '1';
  env.CASTELLAN_SOCKET = i.socket;
  env.CASTELLAN_PANE_ID = i.paneId;
  env.CASTELLAN_SESSION = i.session;
  return env;
}

/** The user's shell: config, then $SHELL, then /bin/sh. */
export function defaultShell(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return configured || env.SHELL || '/bin/sh';
}
