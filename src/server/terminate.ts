// Ending pane programs for good: every process in each pane's session gets HUP, then TERM, then KILL, with short grace periods.
//
// A pane's program leads its own session (forkpty calls setsid), and everything it starts stays in that
// session unless it calls setsid itself: its children, and jobs a shell put in other process groups. So
// the session id, not the process group, says what belongs to a pane. Linux lists sessions; elsewhere (the portable
// backend of src/platform/proc) a pane's process group and its program's descendants are what can be found.
import { pidExists, sessionMembers as membersOf } from '../platform/proc/index.js';

export interface Step {
  signal: NodeJS.Signals;
  /** How long to wait for the processes to end before the next step. */
  waitMs: number;
}

/** `server stop`: a hangup (what closing a terminal sends), then the polite kill, then the one that cannot be ignored. */
export const STOP_STEPS: readonly Step[] = [
  { signal: 'SIGHUP', waitMs: 400 },
  { signal: 'SIGTERM', waitMs: 600 },
  { signal: 'SIGKILL', waitMs: 500 },
];

const POLL_MS = 25;

/**
 * Live (not zombie) processes in the given sessions, or undefined where the platform cannot list them. A leader that is
 * still our own child counts even before it leads its session: node-pty's child calls setsid() only after the fork, so a
 * pane closed the instant it was split (or a server stopped then) would otherwise find nothing to signal, and its shell
 * would go on to exec and outlive the pane (seen as a test process that never exited).
 */
export function sessionMembers(leaders: ReadonlySet<number>): number[] | undefined {
  return membersOf(leaders, process.pid);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone, or not ours */
  }
}

/** Sends `sig` to everything in the sessions; returns how many processes were still there. */
function signalSessions(leaders: ReadonlySet<number>, sig: NodeJS.Signals): number {
  const members = sessionMembers(leaders);
  if (!members) {
    // Nothing can be listed (no ps): the leaders' process groups are what can be reached.
    for (const pid of leaders) signal(-pid, sig);
    return [...leaders].filter((pid) => pidExists(pid)).length;
  }
  for (const pid of members) signal(pid, sig);
  return members.length;
}


function remaining(leaders: ReadonlySet<number>): number {
  const members = sessionMembers(leaders);
  return members ? members.length : [...leaders].filter(pidExists).length;
}

/**
 * Ends every process of the sessions led by `leaders`, one step after another, moving on as soon as none
 * is left. Resolves with how many processes were still alive at the end (0 unless something is unkillable,
 * such as a process stuck in the kernel). Takes at most the sum of the steps' waits.
 */
export async function endSessions(leaders: Iterable<number>, steps: readonly Step[] = STOP_STEPS): Promise<number> {
  const set = new Set([...leaders].filter((pid) => Number.isInteger(pid) && pid > 1));
  if (!set.size) return 0;
  for (const step of steps) {
    if (!signalSessions(set, step.signal)) return 0;
    const deadline = Date.now() + step.waitMs;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (!remaining(set)) return 0;
    }
  }
  return remaining(set);
}
