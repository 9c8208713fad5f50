// Marks the server's file descriptors close-on-exec, so no pane program inherits another pane's pty master (the only koffi import).
//
// node-pty 1.1 returns forkpty's master without FD_CLOEXEC, and its Linux child closes nothing before
// exec: every later pane (and every hook process) inherited the masters of the panes before it, so
// closing a pane or killing the server never hung those terminals up. Node has no fcntl, so it is
// called from libc through koffi (prebuilt, no compiler needed).
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

type Fcntl = (fd: number, cmd: number, ...rest: unknown[]) => number;
let fcntl: Fcntl | null | undefined;

/** fcntl(2) from libc, or null where koffi cannot load (then fds stay as node-pty left them, and the reaper still ends orphans). */
function libcFcntl(): Fcntl | null {
  if (fcntl !== undefined) return fcntl;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    // dlopen(NULL): libc is already loaded into node, whichever libc it is (glibc, musl, macOS).
    fcntl = koffi.load(null).func('int fcntl(int fd, int cmd, ...)') as Fcntl;
  } catch {
    fcntl = null;
  }
  return fcntl;
}

/** Sets FD_CLOEXEC on one descriptor; false if it could not (no koffi, or a closed fd). */
export function closeOnExec(fd: number): boolean {
  const f = libcFcntl();
  if (!f || fd < 0) return false;
  const flags = f(fd, F_GETFD, 'int', 0);
  if (flags < 0) return false;
  return (flags & FD_CLOEXEC) !== 0 || f(fd, F_SETFD, 'int', flags | FD_CLOEXEC) === 0;
}

/**
 * Sets FD_CLOEXEC on every descriptor above stderr (node-pty's masters, and whatever the server inherited
 * from the shell that started it). Costs one readdir of /dev/fd and a syscall per fd: well under a millisecond.
 * Returns whether close-on-exec is available at all.
 */
export function closeOnExecAll(): boolean {
  if (!libcFcntl()) return false;
  let names: string[];
  try {
    names = readdirSync('/dev/fd');
  } catch {
    return true;
  }
  for (const n of names) {
    const fd = Number(n);
    if (Number.isInteger(fd) && fd > 2) closeOnExec(fd);
  }
  return true;
}
