// Asking a person before a command destroys work: on a terminal, the answer must be typed out; with none, nobody was asked.
import { createInterface } from 'node:readline/promises';

export interface ConfirmIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
}

/** true only for the typed word `yes`; false for anything else or end of input; undefined when there is no terminal to ask on. */
export async function confirmTyped(io: ConfirmIo, question: string): Promise<boolean | undefined> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) return undefined;
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: false });
  try {
    // Ctrl-D (end of input) is a no, not a hang.
    const closed = new Promise<string>((r) => rl.once('close', () => r('')));
    const a = await Promise.race([rl.question(question), closed]);
    return a.trim() === 'yes';
  } finally {
    rl.close();
  }
}
