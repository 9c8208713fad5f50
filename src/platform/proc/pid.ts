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

/** Does any process of the group still exist? pidExists of -pgid: the signal 0 goes to the group (no process started). */
export function groupExists(pgid: number): boolean {
  return Number.isSafeInteger(pgid) && pgid > 1 && pidExists(-pgid);
}
