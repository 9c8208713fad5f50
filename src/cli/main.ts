// CLI entry: runs the CLI (run.ts) as this process, its exit code the process's.
import { runCli } from './run.js';

// `castellan ... | head` closes the pipe early: that is the reader's choice, not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`castellan: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
