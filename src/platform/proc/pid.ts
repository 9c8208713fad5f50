// Whether a pid names a process: a signal 0, which every platform has.

/** The pid names a process, ours or not (a zombie still counts: use processAlive for "has it exited"). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
