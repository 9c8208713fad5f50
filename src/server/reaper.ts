// The server's side of the crash reaper: starts it (bin/castellan-reaper.sh) and tells it which pane programs run.
//
// Why a process and not a signal handler: kill -9 and crashes run no code in the server. Why not only the
// terminal hangup: the kernel hangs a pty up when the server's master closes, but programs that ignore
// SIGHUP (nohup'd jobs, daemons-to-be, agents that trap it) keep running. The reaper holds one end of a
// pipe whose other end only the server holds, so the kernel tells it the moment the server is gone.
//
// Why /bin/sh and not Node: it sleeps in `read` for the server's whole life, and a second Node process for
// that cost 43 MB RSS (7.5 MB of it private); dash costs about 1 MB. What it must do when woken (list the panes' processes,
// send three signals with short waits) is a few builtins.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reaperArgs, sessionTokens } from '../platform/proc/index.js';
import { closeOnExecAll } from './fd-cloexec.js';
import { watchPtys } from './pty.js';

/** bin/ sits two levels above both src/server and dist/server. */
export const REAPER_SCRIPT = fileURLToPath(new URL('../../bin/castellan-reaper.sh', import.meta.url));
const SHELL = '/bin/sh';
/** A reaper that keeps dying (killed by hand, a broken shell) is restarted this many times, then given up on. */
const MAX_STARTS = 4;
/** A pane program's session token is read this long after it starts (it has called setsid by then), and once more later. */
const TOKEN_AFTER_MS = [300, 3000];
/** What the reaper script accepts as a token (bin/castellan-reaper.sh): decimal, or 0x and lower-case hex; 18 at most. */
const TOKEN = /^(?:[1-9][0-9]{0,17}|0x[0-9a-f]{1,16})$/;

export interface Reaper {
  /** The reaper's pid now (changes when it is restarted), or undefined when there is none. */
  pid(): number | undefined;
}

export function startReaper(log: (msg: string) => void): Reaper {
  if (!existsSync(REAPER_SCRIPT) || !existsSync(SHELL)) {
    log(`reaper: no ${existsSync(SHELL) ? REAPER_SCRIPT : SHELL}; pane programs may outlive a crashed server`);
    return { pid: () => undefined };
  }
  /** Pane programs running now: a restarted reaper is told them all again, with their session tokens. */
  const running = new Set<number>();
  const tokens = new Map<number, string>();
  let child: ChildProcess | undefined;
  let starts = 0;
  const send = (line: string) => {
    if (child?.stdin?.writable) child.stdin.write(line);
  };
  const start = () => {
    starts++;
    // The reaper must not inherit fds the server got from whoever started it, nor any pane's pty master.
    closeOnExecAll();
    const c = spawn(SHELL, [REAPER_SCRIPT, ...reaperArgs()], { detached: true, cwd: '/', stdio: ['pipe', 'ignore', 'ignore'] });
    child = c;
    c.unref();
    const stdin = c.stdin!;
    // The pipe must not keep the event loop alive: the server lives by its socket.
    (stdin as unknown as { _handle?: { unref?(): void } })._handle?.unref?.();
    let gone = false;
    const lost = (why: string) => {
      if (gone) return;
      gone = true;
      if (child === c) child = undefined;
      if (starts < MAX_STARTS) {
        log(`reaper: ${why}; starting another`);
        start();
      } else log(`reaper: ${why}; gave up after ${starts} starts, pane programs may outlive a crashed server`);
    };
    stdin.on('error', (err) => lost(`pipe error: ${err.message}`));
    c.on('error', (err) => lost(`could not start: ${err.message}`));
    c.on('exit', (code, signal) => lost(`exited (${signal ?? code})`));
    if (running.size) stdin.write([...running].map((pid) => `+${pid}\n${tokens.has(pid) ? `=${pid} ${tokens.get(pid)}\n` : ''}`).join(''));
    log(`reaper: pid ${c.pid}`);
  };
  start();
  watchPtys({
    started: (pid) => {
      running.add(pid);
      send(`+${pid}\n`);
      // macOS's ps names a session by a pointer the reaper cannot learn once the pane's shell is gone: it is told now.
      const tokenOf = sessionTokens();
      if (tokenOf) for (const ms of TOKEN_AFTER_MS) {
        setTimeout(() => {
          if (!running.has(pid)) return;
          void tokenOf(pid).then((tok) => {
            if (!tok || !TOKEN.test(tok) || !running.has(pid) || tokens.get(pid) === tok) return;
            tokens.set(pid, tok);
            send(`=${pid} ${tok}\n`);
            log(`reaper: pane program ${pid} leads session ${tok}`);
          }, () => undefined);
        }, ms).unref();
      }
    },
    ended: (pid) => {
      running.delete(pid);
      tokens.delete(pid);
      send(`-${pid}\n`);
    },
  });
  return { pid: () => child?.pid };
}
