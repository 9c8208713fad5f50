// The door's replies and deadlines that both its sides keep: the fallback reply and how long a reply is worth sending.
// Its own file so the door's reader (index.ts) can hand a call on without loading serve.ts and the bridge's run.
import { join } from 'node:path';
import { writeReply } from './files.js';

/**
 * Three lines like every reply: door.sh reads exactly three (`head -n 3` on a FIFO it holds open itself, so it never
 * sees an end of file), and a one-line `fallback` kept it waiting its whole 3 s before it ran the bridge.
 */
const FALLBACK_REPLY = Buffer.from('fallback\no\ne\n');

/** A request older than this (from its file's mtime, or its arrival) is not started: it goes to the bridge. */
export const START_BY_MS = 1000;

/** Past this the reply is not pushed into a full pipe any more (door.sh gives up 3 s after its request line). */
export const REPLY_BY_MS = 3000;

/** Tells requester `pid` to run the Node bridge: resolves with whether the reply went (see files.ts writeReply). */
export const replyFallback = (dir: string, pid: number, deadline: number) => writeReply(join(dir, `${pid}.out`), FALLBACK_REPLY, deadline);
