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

/** A request line, or why it is not one. */
export function parseRequestLine(line: string): DoorRequest | { why: string } {
  const m = /^v1 ([1-9][0-9]{0,9}) ([a-z]{1,16}) ([A-Za-z_]{1,64})$/.exec(line);
  if (!m) return { why: 'not a v1 request line' };
  const pid = Number(m[1]);
  if (pid > 2 ** 31) return { why: 'pid out of range' };
  const agent = m[2]!;
  if (!isAgentName(agent)) return { why: 'unknown agent' };
  if (!doorEvent(agent, m[3]!)) return { why: 'not an event the door serves' };
  return { pid, agent, event: m[3]! };
}

/**
 * Splits the FIFO's bytes into lines. A line longer than MAX_LINE_BYTES is dropped whole: the rest of it, up to the
 * next newline, is skipped (so its tail is never taken for a request).
 */
export class LineSplitter {
  private buf = '';
  private skipping = false;
  dropped = 0;

  push(chunk: Buffer, onLine: (line: string) => void): void {
    let s = chunk.toString('latin1');
    for (;;) {
      const nl = s.indexOf('\n');
      if (nl === -1) {
        if (!this.skipping) {
          this.buf += s;
          if (this.buf.length > MAX_LINE_BYTES) {
            this.buf = '';
            this.skipping = true;
            this.dropped++;
          }
        }
        return;
      }
      const part = s.slice(0, nl);
      s = s.slice(nl + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.buf + part;
      this.buf = '';
      if (line.length > MAX_LINE_BYTES) this.dropped++;
      else onLine(line);
    }
  }
}
