// The door's request lines: `v1 <pid> <agent> <event>\n`, written by door.sh to the request FIFO, one per hook call.
import { isAgentName } from '../integrations/tables.js';
import { doorEvent } from '../integrations/command-line.js';
import type { AgentName } from '../integrations/types.js';

/** Longer than any real line (~40 bytes) and below PIPE_BUF, so a line is written whole among concurrent writers. */
export const MAX_LINE_BYTES = 4096;

export interface DoorRequest {
  pid: number;
  agent: AgentName;
  event: string;
}

const LINE = /^v1 ([1-9][0-9]{0,9}) ([a-z]{1,16}) ([A-Za-z_]{1,64})$/;

/**
 * A request line, or why it is not one. door.sh writes each line with one write() under PIPE_BUF, so it lands whole
 * and starts with `v1 `; a writer that stops mid-line (no newline) leaves its bytes in front of the next requester's
 * line. A line holds no `v1 ` but its start (pid digits, agent [a-z], event letters), so the request is the tail from
 * the last `v1 `: the glued-on requester is served, not left to its 3 s wait (test/robustness/hook-door.test.ts).
 */
export function parseRequestLine(line: string): DoorRequest | { why: string } {
  const m = LINE.exec(line.slice(Math.max(0, line.lastIndexOf('v1 '))));
  if (!m) return { why: 'not a v1 request line' };
  const pid = Number(m[1]);
  if (pid > 2 ** 31) return { why: 'pid out of range' };
  const agent = m[2]!;
  if (!isAgentName(agent)) return { why: 'unknown agent' };
  if (!doorEvent(agent, m[3]!)) return { why: 'not an event the door serves' };
  return { pid, agent, event: m[3]! };
}

/**
 * Splits the FIFO's bytes into lines. Of a line longer than MAX_LINE_BYTES only its last MAX_LINE_BYTES are kept
 * (`cut`): memory stays bounded, and a requester's line written after a writer's unfinished flood is still whole in it.
 */
export class LineSplitter {
  private buf = '';
  private cut = false;

  push(chunk: Buffer, onLine: (line: string, cut: boolean) => void): void {
    let s = chunk.toString('latin1');
    for (;;) {
      const nl = s.indexOf('\n');
      this.buf += nl === -1 ? s : s.slice(0, nl);
      if (this.buf.length > MAX_LINE_BYTES) {
        this.buf = this.buf.slice(-MAX_LINE_BYTES);
        this.cut = true;
      }
      if (nl === -1) return;
      s = s.slice(nl + 1);
      const line = this.buf;
      const cut = this.cut;
      this.buf = '';
      this.cut = false;
      onLine(line, cut);
    }
  }
}
