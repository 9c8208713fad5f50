// The hook door (issue 14): tool-gating hook calls served without a Node start.
//
// The server opens a private directory next to its socket, `<socket>.door/` (0700), with a request FIFO `in` (0600)
// and its pid in `pid`. share/hooks/door.sh, which the installed hook line runs for an agent's foreground events,
// writes the call's variables and payload to `<pid>.req` / `<pid>.pay`, makes a reply FIFO `<pid>.out`, writes one
// line `v1 <pid> <agent> <event>` to `in`, and prints the three-line reply. Here each request runs the Node bridge's
// own code (hook-command.ts runHook) in server-only mode; whatever is not "the server answered" is replied
// `fallback`, and door.sh runs the Node bridge as before. The contract: docs/integrations.md, "The hook door".
import { closeSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { claimDir, doorDir, doorState, openRequestFifo, publishPid, STALE_MS, sweepStale } from './door-dir.js';
import { replyFallback } from './reply.js';
import { LineSplitter, parseRequestLine, type DoorRequest } from './request.js';
import type { ServeResult } from './serve.js';

export { DOOR_VARS } from './vars.js';
export { sweepStale } from './door-dir.js';

/**
 * Requests run at once; the rest wait in a queue of QUEUE_MAX. A request past that is told `fallback` at once (its
 * door.sh runs the bridge now, not after its 3 s wait: measured 3131 ms before, test/hookdoor/door.test.ts "flooded"),
 * by at most FULL_REPLIES_MAX replies at a time; only past those is its line dropped.
 */
const IN_FLIGHT_MAX = 8;
const QUEUE_MAX = 256;
const FULL_REPLIES_MAX = 256;

export interface HookDoor {
  readonly dir: string;
  /** Stops reading and removes the door directory. */
  close(): void;
  /** For tests: requests taken, answered, handed to the bridge (`full`: of those, found the queue full), lines dropped, checks run. */
  readonly stats: { lines: number; answered: number; fallback: number; full: number; dropped: number; pending: number; checks: number };
}

export interface HookDoorOptions {
  socket: string;
  log(msg: string): void;
  /** Called after each request (tests). */
  onServed?(req: DoorRequest, r: ServeResult): void;
  /** How often the door is checked to be still ours, and stale request files swept (tests; default STALE_MS). */
  checkMs?: number;
}

/**
 * Opens the door of the server on `socket`; undefined (logged) when it cannot be opened safely: the hook lines then
 * run the Node bridge as before. Never throws.
 */
export async function openHookDoor(o: HookDoorOptions): Promise<HookDoor | undefined> {
  const dir = doorDir(o.socket);
  const refused = (why: string) => {
    o.log(`hook door ${dir} not opened: ${why}; hook calls take the Node bridge`);
    return undefined;
  };
  const why = claimDir(dir);
  if (why) return refused(why);
  await sweepStale(dir, Date.now());
  const first = await openRequestFifo(dir);
  if ('why' in first) return refused(first.why);
  let fd = first.fd;
  const stats = { lines: 0, answered: 0, fallback: 0, full: 0, dropped: 0, pending: 0, checks: 0 };
  const queue: Array<{ req: DoorRequest; arrival: number }> = [];
  let inFlight = 0;
  let fullReplies = 0;
  /**
   * Pids whose request is queued or running: door.sh writes one line per call, so another line for one of them is a
   * replay, and serving it would decide and audit the call twice (measured before: the same line sent twice at once
   * was served twice). Only while it runs: a hook run in a fresh pid namespace may have the same $$ on its next call.
   */
  const taken = new Set<number>();
  let closed = false;
  let lastDropLog = 0;
  const splitter = new LineSplitter();
  const opts = { dir, socket: o.socket, log: o.log };
  let serveMod: Promise<typeof import('./serve.js')> | undefined;

  const drop = (why: string) => {
    stats.dropped++;
    const now = Date.now();
    if (now - lastDropLog > 10_000) {
      lastDropLog = now;
      o.log(`hook door: dropped a request line (${why}; ${stats.dropped} so far)`);
    }
  };
  // A fresh reply FIFO's empty pipe always takes the 13 bytes, so one try (deadline now): a requester whose pipe is full
  // or gone costs nothing more.
  const queueFull = (req: DoorRequest) => {
    if (fullReplies >= FULL_REPLIES_MAX) return drop('queue full');
    fullReplies++;
    stats.fallback++;
    stats.full++;
    void replyFallback(dir, req.pid, Date.now()).finally(() => {
      fullReplies--;
      o.onServed?.(req, { answered: false, why: 'queue full' });
    });
  };
  const pump = () => {
    while (!closed && inFlight < IN_FLIGHT_MAX && queue.length) {
      const { req, arrival } = queue.shift()!;
      inFlight++;
      stats.pending = queue.length;
      void (serveMod ??= import('./serve.js'))
        .then((m) => m.serveRequest(opts, req, arrival))
        .then(
          (r) => {
            if (r.answered) stats.answered++;
            else stats.fallback++;
            o.onServed?.(req, r);
          },
          (e: unknown) => o.log(`hook door: ${(e as Error)?.stack ?? e}`),
        )
        .finally(() => {
          inFlight--;
          taken.delete(req.pid);
          pump();
        });
    }
  };
  const onData = (chunk: Buffer) => {
    splitter.push(chunk, (line, cut) => {
      stats.lines++;
      const req = parseRequestLine(line);
      if ('why' in req) return drop(cut ? 'overlong line' : req.why);
      if (taken.has(req.pid)) return drop('a replay of a request being served');
      if (queue.length >= QUEUE_MAX) return queueFull(req);
      taken.add(req.pid);
      queue.push({ req, arrival: Date.now() });
    });
    pump();
  };
  const listen = (fd: number) =>
    new net.Socket({ fd, readable: true, writable: false }).on('data', onData).on('error', (e) => o.log(`hook door: request FIFO: ${e.message}`));
  let stream = listen(fd);
  const refusedPid = publishPid(dir);
  if (refusedPid) {
    stream.destroy();
    return refused(refusedPid);
  }
  let checking = false;
  let unfixed = false;
  /**
   * Files of requesters killed without their trap (SIGKILL) would pile up in a server that runs for weeks (a payload
   * may be 8 MiB); and a door whose `in` or `pid` was removed or replaced is never reached again, every call taking
   * the bridge (~100 ms more each) until a restart: it is made again, as at the start.
   */
  const check = async () => {
    if (closed || checking) return;
    checking = true;
    try {
      await sweepStale(dir, Date.now());
      const state = doorState(dir, fd);
      if (closed || state === 'ours') return;
      if (state === 'theirs') {
        o.log(`hook door ${dir}: another server's now; this one stops reading it`);
        stop();
        return;
      }
      const why = claimDir(dir);
      const next = why ? { why } : await openRequestFifo(dir);
      if ('why' in next || closed) {
        if ('fd' in next) closeSync(next.fd);
        else if (!unfixed) o.log(`hook door ${dir} is not ours any more and cannot be made again: ${next.why}; hook calls take the Node bridge`);
        unfixed = true;
        return;
      }
      const old = stream;
      fd = next.fd;
      stream = listen(fd);
      old.destroy();
      const pw = publishPid(dir);
      unfixed = !!pw;
      o.log(pw ? `hook door ${dir} made again, but ${pw}` : `hook door ${dir} made again (its FIFO or pid was removed or replaced)`);
    } finally {
      checking = false;
      stats.checks++;
    }
  };
  const sweeper = setInterval(() => void check(), o.checkMs ?? STALE_MS);
  sweeper.unref();
  /** Stops reading and taking requests (those running finish). */
  const stop = () => {
    closed = true;
    clearInterval(sweeper);
    queue.length = 0;
    taken.clear();
    stream.destroy();
  };
  o.log(`hook door open at ${dir}`);
  return {
    dir,
    stats,
    close() {
      if (closed) return;
      stop();
      // Only when it is still our door (a server that replaced ours on the same socket path keeps its own).
      try {
        if (readFileSync(join(dir, 'pid'), 'utf8') === `${process.pid}\n` && !lstatSync(dir).isSymbolicLink()) rmSync(dir, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
    },
  };
}
