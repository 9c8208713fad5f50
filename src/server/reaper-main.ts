// The crash reaper process: one beside each server; when the server dies without ending its panes (kill -9, a crash), it ends them.
//
// It reads "+PID" / "-PID" lines (pane programs started and ended) from a pipe only the server holds;
// end of file means the server is gone, however it went. Then every process in those panes' sessions
// gets HUP, TERM and KILL, about a second in all, and the reaper exits. It costs nothing while the
// server runs: it sleeps on the pipe.
import { endSessions, type Step } from './terminate.js';

/** The kernel has already hung the terminals up when the server died; this is for what ignored that. */
const CRASH_STEPS: readonly Step[] = [
  { signal: 'SIGHUP', waitMs: 200 },
  { signal: 'SIGTERM', waitMs: 700 },
  { signal: 'SIGKILL', waitMs: 500 },
];
/** The server writes short lines; anything longer is not from it. */
const MAX_LINE = 64;

const leaders = new Set<number>();
let pending = '';
let done = false;

function line(text: string): void {
  const m = /^([+-])(\d{1,10})$/.exec(text.trim());
  if (!m) return;
  const pid = Number(m[2]);
  if (pid <= 1) return;
  if (m[1] === '+') leaders.add(pid);
  else leaders.delete(pid);
}

async function serverGone(): Promise<void> {
  if (done) return;
  done = true;
  await endSessions(leaders, CRASH_STEPS);
  process.exit(0);
}

// Its own session already (spawned detached); a stray hangup or interrupt must not stop the watch.
process.on('SIGHUP', () => {});
process.on('SIGINT', () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  if (pending.length > MAX_LINE) pending = '';
  for (const l of lines) line(l);
});
process.stdin.on('end', () => void serverGone());
process.stdin.on('close', () => void serverGone());
process.stdin.on('error', () => void serverGone());
