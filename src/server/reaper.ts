// The server's side of the crash reaper: starts it (see reaper-main.ts) and tells it which pane programs run.
//
// Why a process and not a signal handler: kill -9 and crashes run no code in the server. Why not only the
// terminal hangup: the kernel hangs a pty up when the server's master closes, but programs that ignore
// SIGHUP (nohup'd jobs, daemons-to-be, agents that trap it) keep running. The reaper holds one end of a
// pipe whose other end only the server holds, so the kernel tells it the moment the server is gone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closeOnExecAll } from './fd-cloexec.js';
import { watchPtys } from './pty.js';

export function startReaper(log: (msg: string) => void): void {
  const built = fileURLToPath(new URL('./reaper-main.js', import.meta.url));
  const source = fileURLToPath(new URL('./reaper-main.ts', import.meta.url));
  // Under tsx (tests of the source tree) the entry is the .ts file, run with the same loader flags.
  const [entry, execArgv] = existsSync(built) ? [built, []] : existsSync(source) ? [source, process.execArgv] : [undefined, []];
  if (!entry) {
    log('reaper: no reaper-main script; pane programs may outlive a crashed server');
    return;
  }
  // The reaper must not inherit fds the server got from whoever started it.
  closeOnExecAll();
  const child = spawn(process.execPath, [...execArgv, '--max-old-space-size=16', entry], { detached: true, cwd: '/', stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  const stdin = child.stdin!;
  let alive = true;
  const gone = (why: string) => {
    if (!alive) return;
    alive = false;
    unwatch();
    log(`reaper: ${why}; pane programs may outlive a crashed server`);
  };
  stdin.on('error', (err) => gone(`pipe error: ${err.message}`));
  child.on('error', (err) => gone(`could not start: ${err.message}`));
  child.on('exit', (code, signal) => gone(`exited (${signal ?? code})`));
  // The pipe must not keep the event loop alive: the server lives by its socket.
  (stdin as unknown as { _handle?: { unref?(): void } })._handle?.unref?.();
  const unwatch = watchPtys({
    started: (pid) => alive && stdin.write(`+${pid}\n`),
    ended: (pid) => alive && stdin.write(`-${pid}\n`),
  });
  log(`reaper: pid ${child.pid}`);
}
